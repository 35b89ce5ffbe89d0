package static

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestSelectCases checks SelectCases on the selects of
// testdata/src/selectcases, each marked "cases:yes" or "cases:no", and
// the partners it finds for the first two.
func TestSelectCases(t *testing.T) {
	p := loadTestdata(t)
	lines, file := markedLines(t, "selectcases", "selectcases.go", "cases")
	base := filepath.Base(file)
	got := map[string][]SelectCase{}
	for _, l := range lines {
		fn := "example.com/seer.data/selectcases." + l.fn
		if strings.Contains(l.text, "(closure") {
			fn += ".func1"
		}
		cases, ok := p.SelectCases(trace.Frame{Func: fn, File: file, Line: l.line})
		if ok != l.want {
			t.Errorf("%s (line %d): SelectCases = %v, want %v", l.fn, l.line, ok, l.want)
		}
		got[l.fn] = cases
	}
	if len(lines) < 12 {
		t.Fatalf("found %d marked selects", len(lines))
	}
	at := func(lines ...int) []trace.Frame {
		var out []trace.Frame
		for _, n := range lines {
			out = append(out, trace.Frame{File: base, Line: n})
		}
		return out
	}
	for _, tc := range []struct {
		fn   string
		want []SelectCase
	}{
		// ch <- 1's partners: the goroutine's receive and the test's;
		// <-quit's: none.
		{"takenPartner", []SelectCase{{Send: true, Partners: at(11, 17)}, {Partners: nil}}},
		// <-ch's: the worker's select (its line and its case's); <-quit's: the close in stop.
		{"closedLater", []SelectCase{{Partners: at(33, 34)}, {Partners: at(39)}}},
		// Through parameters (the worker's caller passes closedLater's
		// channels): ch <- 1's partners are closedLater's receive;
		// <-quit's the close in stop.
		{"worker", []SelectCase{{Send: true, Partners: at(24, 25)}, {Partners: at(39)}}},
		// Both calls of loop pass pool's channels: <-jobs's partner is
		// pool's send, <-quit's its close.
		{"loop", []SelectCase{{Partners: at(91)}, {Partners: at(92)}}},
		// Captured: jobs's send in captured; nothing ever completes
		// <-quit.
		{"captured", []SelectCase{{Partners: at(116)}, {Partners: nil}}},
	} {
		if !slices.EqualFunc(got[tc.fn], tc.want, func(a, b SelectCase) bool {
			return a.Send == b.Send && slices.Equal(a.Partners, b.Partners)
		}) {
			t.Errorf("%s: cases %+v, want %+v", tc.fn, got[tc.fn], tc.want)
		}
	}
}

// TestSelectCaseNames: each case names its channel's variable.
func TestSelectCaseNames(t *testing.T) {
	p := loadTestdata(t)
	lines, file := markedLines(t, "selectcases", "selectcases.go", "cases")
	for _, l := range lines {
		if l.fn != "takenPartner" {
			continue
		}
		cases, _ := p.SelectCases(trace.Frame{Func: "example.com/seer.data/selectcases." + l.fn, File: file, Line: l.line})
		if len(cases) != 2 || cases[0].Name != "ch" || cases[1].Name != "quit" {
			t.Fatalf("cases %+v, want ch and quit", cases)
		}
		return
	}
	t.Fatal("no takenPartner select")
}
