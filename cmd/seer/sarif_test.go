package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seer predict -o sarif prints a SARIF log (predict's -format is the
// trace's format); bad report formats are usage errors.
func TestReportFormats(t *testing.T) {
	dir := t.TempDir()
	std := "T0|fork(T1)|1\nT0|w(V1)|2\nT0|acq(L1)|3\nT0|rel(L1)|5\nT1|acq(L1)|6\nT1|rel(L1)|8\nT1|r(V1)|9\n"
	file := filepath.Join(dir, "t.std")
	os.WriteFile(file, []byte(std), 0o644)
	out, stderr, code := seer(t, dir, "predict", "-format", "std", "-o", "sarif", file)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, stderr)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Name string } `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "seer" ||
		len(log.Runs[0].Results) != 1 || log.Runs[0].Results[0].RuleID != "race" {
		t.Errorf("SARIF log: %+v", log)
	}
	for _, tc := range []struct {
		args []string
		want string // in the usage error
	}{
		{[]string{"predict", "-o", "xml", file}, "unknown report format"},
		{[]string{"predict", "-json", "-o", "sarif", file}, "-json and -o sarif disagree"},
		{[]string{"check", "-format", "xml", "."}, "unknown report format"},
		{[]string{"check", "-json", "-format", "sarif", "."}, "-json and -format sarif disagree"},
	} {
		if _, stderr, code := seer(t, dir, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error with %q", tc.args, code, stderr, tc.want)
		}
	}
}
