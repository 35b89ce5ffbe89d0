package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seer witness on a trace and on a report: text, the picture, and -n.
func TestWitness(t *testing.T) {
	dir := t.TempDir()
	std := filepath.Join(dir, "race.std")
	if err := os.WriteFile(std, []byte(predictRaceSTD), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := seer(t, dir, "witness", "race.std")
	if code != 0 || !strings.Contains(out, "data race on V1 (predicted)") || !strings.Contains(out, "<== read") || !strings.Contains(out, "<== write") {
		t.Errorf("witness as text: exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}

	// The same finding from the JSON report that seer predict prints.
	report, _, code := seer(t, dir, "predict", "-o", "json", "race.std")
	if code != 1 {
		t.Fatalf("seer predict -o json: exit %d", code)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{"race.std", "report.json"} {
		page := filepath.Join(dir, input+".html")
		if _, stderr, code := seer(t, dir, "witness", "-html", "-o", page, input); code != 0 {
			t.Fatalf("witness -html %s: exit %d: %s", input, code, stderr)
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(html), "data-bug-access="); !strings.HasPrefix(string(html), "<!DOCTYPE html>") || n != 2 {
			t.Errorf("witness -html %s: %d accesses marked, want 2:\n%s", input, n, html)
		}
	}

	if _, stderr, code := seer(t, dir, "witness", "-n", "2", "report.json"); code != 2 || !strings.Contains(stderr, "-n 2: report.json has 1 finding (1 to 1)") {
		t.Errorf("witness -n 2: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := seer(t, dir, "witness"); code != 2 || !strings.Contains(stderr, "usage: seer witness") {
		t.Errorf("witness without a file: exit %d, stderr %q", code, stderr)
	}
	if out, _, _ := seer(t, dir, "help"); !strings.Contains(out, "witness") {
		t.Errorf("seer help does not list witness:\n%s", out)
	}
}
