package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairedSentences: a rendezvous the witness pairs otherwise is told
// with the three operations, file names shortened once per sentence; a
// finding without one says nothing.
func TestRepairedSentences(t *testing.T) {
	f := &Finding{Kind: KindDeadlock, Predicted: true, Repaired: []Sync{
		{Op: "recv", Goroutine: 9, File: "/m/p_test.go", Line: 12, Object: "jobs"},
		{Op: "send", Goroutine: 8, File: "/m/p_test.go", Line: 19, Object: "jobs"},
		{Op: "send", Goroutine: 10, File: "/m/p_test.go", Line: 16, Object: "jobs"},
	}}
	got := RepairedSentences(f, filepath.Base)
	want := "in the recorded run goroutine 9's receive on jobs at p_test.go:12 took goroutine 8's send at :19; in the witness goroutine 10's send at :16 takes it first, and goroutine 8's send is left waiting"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if s := RepairedSentences(&Finding{Kind: KindDeadlock}, filepath.Base); len(s) != 0 {
		t.Fatalf("no re-pairing: got %q", s)
	}
	f.Accesses = []Access{{File: "/m/p_test.go", Line: 19, Op: "send", Goroutine: 8, Variable: "jobs"}}
	if hover := HoverMarkdown(f, 0, filepath.Base, func(string, int) string { return "" }); !strings.Contains(hover, capitalizeFirst(want)) {
		t.Errorf("the hover lacks the sentence:\n%s", hover)
	}
	if text := FindingText(f, filepath.Base); !strings.Contains(text, want) {
		t.Errorf("the text report lacks the sentence:\n%s", FindingText(f, filepath.Base))
	}
}
