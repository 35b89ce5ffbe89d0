package check

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// story is a finding's story as `seer check` tells it, with the numbers
// that vary from run to run (event indices and counts) replaced by N.
func story(f *report.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s (%s, %s)\n", f.Kind, f.Variable, report.Verdict(f), f.Test)
	for _, s := range report.ReorderedSentences(f, filepath.Base) {
		fmt.Fprintf(&b, "%s\n", s)
	}
	fmt.Fprintf(&b, "witness: %s\n", report.PrefixPhrase(f, filepath.Base))
	for _, s := range f.Witness {
		if s.File == "" || strings.HasPrefix(s.File, filepath.Join(os.Getenv("GOROOT"), "src")) || !strings.Contains(s.File, "examples") {
			continue
		}
		mark := ""
		if !report.StoryStep(&s) {
			mark = " (left out of the story)"
		}
		fmt.Fprintf(&b, "  g%d %s at %s:%d%s\n", s.Goroutine, report.StepText(&s), filepath.Base(s.File), s.Line, mark)
	}
	return regexp.MustCompile(`(event|from) \d+|\d+ (later )?events?( of \d+ goroutines)?`).ReplaceAllStringFunc(b.String(), func(m string) string {
		return regexp.MustCompile(`\d+`).ReplaceAllString(m, "N")
	})
}

// The example bank's stories, recorded: objects named as the source
// names them, the mutex's own accesses not called reads, the reordered
// critical sections and the prefix in sentences.
func TestStoryOfExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir, _ := filepath.Abs("../../examples/bank")
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Atomicity: true})
	if err != nil {
		t.Fatal(err)
	}
	internalID := regexp.MustCompile(`#\d`)
	var audit, withdraw *report.Finding
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.Test == "TestAudit" && f.Kind == "race" {
			audit = f
		}
		if f.Test == "TestWithdraw" && f.Kind == "atomicity" {
			withdraw = f
		}
		for _, s := range f.Witness {
			if internalID.MatchString(s.Object) || internalID.MatchString(s.Text) {
				t.Errorf("%s: step names an internal id: %+v", f.Test, s)
			}
			if s.File == "" || s.Within != "" || s.Op != "read" {
				continue
			}
			if line := sourceLine(t, s.File, s.Line); strings.Contains(line, ".Unlock()") || strings.Contains(line, ".Lock()") {
				t.Errorf("%s: a step at %q is told as a read: %+v", f.Test, line, s)
			}
		}
		for _, s := range f.Reordered {
			if internalID.MatchString(s.Object) {
				t.Errorf("%s: reordered section names an internal id: %+v", f.Test, s)
			}
		}
	}
	if audit == nil || withdraw == nil {
		t.Fatalf("want a race in TestAudit and an atomicity violation in TestWithdraw: %+v", rep.Findings)
	}
	// The check-then-act's schedule depends on the run's timing: its story
	// is checked for its words, not to the letter.
	w := story(withdraw)
	for _, want := range []string{
		"atomicity on a.balance", "locks a.mu at bank.go:53", "reads a.balance at bank.go:54",
		"unlocks a.mu at bank.go:55", "writes a.balance at bank.go:60",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("TestWithdraw's story lacks %q:\n%s", want, w)
		}
	}
	if os.Getenv("SEER_STORY_DEBUG") != "" {
		for i := range rep.Findings {
			t.Logf("%s", story(&rep.Findings[i]))
		}
	}
	got := story(audit)
	golden := "testdata/bank-audit.story"
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if got != string(want) {
		t.Errorf("TestAudit's story differs from %s (-update rewrites it):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
	var b bytes.Buffer
	report.WriteSARIF(&b, rep, report.SARIFOptions{Root: filepath.Dir(filepath.Dir(dir)), Version: "test"})
	sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
}

func sourceLine(t *testing.T, file string, line int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	return lines[line-1]
}
