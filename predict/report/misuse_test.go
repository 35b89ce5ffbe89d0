// This file tests the rows of the misuse kinds in the kinds table.

package report

import (
	"strings"
	"testing"
)

// TestMisuseWords checks each misuse kind's title, -explain text and
// hover sentence, which name the failing operation's goroutine and
// object.
func TestMisuseWords(t *testing.T) {
	for _, kind := range Kinds() {
		if !kind.IsMisuse() {
			continue
		}
		if kind.Title() == string(kind) || kind.heading() != kind.Title() {
			t.Errorf("%s: title %q, witness page title %q", kind, kind.Title(), kind.heading())
		}
		if text, ok := Explain(kind); !ok || !strings.HasPrefix(text, "# "+string(kind)+": ") {
			t.Errorf("%s: explanation %q", kind, text)
		}
		f := &Finding{Kind: kind, Accesses: []Access{{Goroutine: 3, Variable: "a"}, {Goroutine: 7, Variable: "s.reqs"}}}
		s := MisuseSentence(f)
		if !strings.Contains(s, "s.reqs") || kind != KindWaitGroupReuse && !strings.Contains(s, "goroutine 7") {
			t.Errorf("%s: sentence %q does not name goroutine 7 and s.reqs", kind, s)
		}
	}
	if s := MisuseSentence(&Finding{Kind: "race", Accesses: []Access{{}}}); s != "" || KindRace.IsMisuse() {
		t.Errorf("race taken for a misuse: %q", s)
	}
}
