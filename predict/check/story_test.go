package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestStorySentences(t *testing.T) {
	f := &witnessReport("/src/bank").Findings[0]
	rel := filepath.Base
	if got, want := PrefixPhrase(f, rel), "the recorded run before event 3800, less goroutine 9's events from bank.go:21 on (7 events) and 1 later event of a goroutine in the runtime or the test harness"; got != want {
		t.Errorf("prefix:\n got %s\nwant %s", got, want)
	}
	want := []string{"in the recorded run goroutine 9's critical section on a.mu at bank.go:22 ran before goroutine 10's at :32; the witness runs goroutine 10's first, and nothing else orders them"}
	if got := ReorderedSentences(f, rel); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reordered:\n got %q\nwant %q", got, want)
	}
	// Two locks, one with two sections the witness overtakes.
	f.Reordered = []Sync{
		{Op: "lock", Goroutine: 3, File: "/src/a.go", Line: 5, Object: "mu"},
		{Op: "lock", Goroutine: 4, File: "/src/a.go", Line: 9, Object: "mu"},
		{Op: "lock", Goroutine: 5, File: "/src/b.go", Line: 7, Object: "mu", First: true},
		{Op: "rlock", Goroutine: 3, File: "/src/a.go", Line: 30, Object: "s.rw"},
		{Op: "rlock", Goroutine: 6, File: "/src/a.go", Line: 40, Object: "s.rw", First: true},
	}
	want = []string{
		"in the recorded run goroutine 3's critical section on mu at a.go:5 and goroutine 4's at :9 ran before goroutine 5's at b.go:7; the witness runs goroutine 5's first, and nothing else orders them",
		"in the recorded run goroutine 3's read-locked section on s.rw at a.go:30 ran before goroutine 6's at :40; the witness runs goroutine 6's first, and nothing else orders them",
	}
	if got := ReorderedSentences(f, rel); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reordered:\n got %q\nwant %q", got, want)
	}
}

// story is a finding's story as `seer check` tells it, with the numbers
// that vary from run to run (event indices and counts) replaced by N.
func story(f *Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s (%s, %s)\n", f.Kind, f.Variable, verdictWord(f), f.Test)
	for _, s := range ReorderedSentences(f, filepath.Base) {
		fmt.Fprintf(&b, "%s\n", s)
	}
	fmt.Fprintf(&b, "witness: %s\n", PrefixPhrase(f, filepath.Base))
	for _, s := range f.Witness {
		if s.File == "" || strings.HasPrefix(s.File, filepath.Join(os.Getenv("GOROOT"), "src")) || !strings.Contains(s.File, "examples") {
			continue
		}
		mark := ""
		if !StoryStep(&s) {
			mark = " (left out of the story)"
		}
		fmt.Fprintf(&b, "  g%d %s at %s:%d%s\n", s.Goroutine, StepText(&s), filepath.Base(s.File), s.Line, mark)
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
	var audit, withdraw *Finding
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
	WriteSARIF(&b, rep, SARIFOptions{Root: filepath.Dir(filepath.Dir(dir)), Version: "test"})
	validSARIF(t, sarifSchema(t), b.Bytes())
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
