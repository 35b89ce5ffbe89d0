package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStuckSentences: a select left waiting is told with each of its
// other cases and why it cannot proceed, in the text report and the
// hover; a finding without one says nothing of it.
func TestStuckSentences(t *testing.T) {
	f := &Finding{Kind: KindDeadlock, Predicted: true, Stuck: []StuckSelect{{
		Goroutine: 2, File: "/m/p_test.go", Line: 19, Taken: "ch",
		Others: []SelectCase{
			{Channel: "quit"},
			{Send: true, Channel: "out", Partners: []Access{{File: "/m/p_test.go", Line: 40}, {File: "/m/p_test.go", Line: 44}}},
		},
	}}}
	got := StuckSentences(f, filepath.Base)
	want := "goroutine 2's select at p_test.go:19 can never proceed: its case on ch taken in the recorded run has lost its partner, " +
		"and its receive from quit can never complete: no operation in the program could complete it, " +
		"and its send on out can never complete: the only operations that could (at :40, :44) do not run again, every goroutine having ended or waiting for ever"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if s := StuckSentences(&Finding{Kind: KindDeadlock}, filepath.Base); len(s) != 0 {
		t.Fatalf("no select: got %q", s)
	}
	if s := RepairedSentences(f, filepath.Base); len(s) != 1 || s[0] != want {
		t.Errorf("RepairedSentences = %q, want the select's sentence", s)
	}
	f.Accesses = []Access{{File: "/m/p_test.go", Line: 19, Op: "send", Goroutine: 2, Variable: "ch"}}
	if hover := HoverMarkdown(f, 0, filepath.Base, func(string, int) string { return "" }); !strings.Contains(hover, capitalizeFirst(want)) {
		t.Errorf("the hover lacks the sentence:\n%s", hover)
	}
	if text := FindingText(f, filepath.Base); !strings.Contains(text, want) {
		t.Errorf("the text report lacks the sentence:\n%s", text)
	}
}
