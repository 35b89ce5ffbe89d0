// This file tests what the hover says of a replayed witness.

package lsp

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/check"
)

func TestReplayHover(t *testing.T) {
	race := func(confirmed, note string) check.Finding {
		return check.Finding{
			Test: "TestAudit", Kind: "race", Predicted: true, Count: 1, Variable: "a.note",
			Confirmed: confirmed, Replay: note,
			Accesses: []check.Access{
				{File: "/w/bank.go", Line: 21, Op: "write", Goroutine: 9, Event: 5},
				{File: "/w/bank.go", Line: 35, Op: "read", Goroutine: 10, Event: 9},
			},
		}
	}
	for _, tc := range []struct {
		confirmed, note string
		want            string // "" = no replay line
	}{
		{"", "", ""},
		{check.ConfirmedYes, "the replayed run left the accesses unordered", "- **Confirmed by replay**: seer ran the test again under the witness schedule, and the replayed run left the accesses unordered."},
		{check.ConfirmedNo, "g7 did not reach its step 3 (lock bank.go:32) within 2s", "- **Not confirmed by replay**: g7 did not reach its step 3 (lock bank.go:32) within 2s."},
		{check.ConfirmedNotTried, "goroutine 12 was started by the runtime, not a go statement", "- Replay not tried: goroutine 12 was started by the runtime, not a go statement."},
	} {
		f := race(tc.confirmed, tc.note)
		h := hoverMarkdown(&f, 0, base, func(string, int) string { return "" })
		has := strings.Contains(h, "by replay") || strings.Contains(h, "Replay not tried")
		switch {
		case tc.want == "" && has:
			t.Errorf("no replay, but the hover speaks of one:\n%s", h)
		case tc.want != "" && !strings.Contains(h, tc.want):
			t.Errorf("confirmed %q: hover lacks %q:\n%s", tc.confirmed, tc.want, h)
		}
	}
}
