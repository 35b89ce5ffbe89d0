// This file says what a taken partner's predicted leak (issue 32, items
// 1 and 5; predict/leak_selectstuck.go) means: a goroutine left waiting
// for ever, on a send or receive whose partner another goroutine took,
// or in a select whose every case has lost its partner, while its test
// returns. Its Repaired says who took whose partner (RepairedSentences),
// its Stuck why each case of a select cannot proceed (StuckSentences).

package report

import "fmt"

// StuckLeak reports whether f is a taken partner's predicted leak: a
// predicted leak whose witness pairs a rendezvous otherwise than the run
// (Repaired) or leaves a select waiting for ever (Stuck). A leak after a
// select's other case (predict/leak_select.go) has neither.
func StuckLeak(f *Finding) bool {
	return f.Kind == KindLeak && f.Predicted && (len(f.Stuck) > 0 || len(f.Repaired) > 0)
}

// stuckLeakSentence says what a taken partner's predicted leak's
// schedule does (LeakSentence).
func stuckLeakSentence(f *Finding, rel func(string) string) string {
	test := "its test"
	if f.Test != "" {
		test = f.Test
	}
	if len(f.Stuck) == 0 {
		if len(f.Accesses) == 0 {
			return ""
		}
		a := f.Accesses[0]
		on := " a channel"
		if a.Variable != "" {
			on = " " + a.Variable
		}
		return fmt.Sprintf("in a schedule that nothing rules out, %s returns while goroutine %d waits for ever to %s%s at %s: every goroutine that could be its partner has ended or waits for ever too, so goroutine %d is left blocked after the test",
			test, a.Goroutine, waitVerb(a.Op), on, position(a.File, a.Line, rel), a.Goroutine)
	}
	s := f.Stuck[0]
	return fmt.Sprintf("in a schedule that nothing rules out, %s returns while goroutine %d waits for ever in its select at %s: every goroutine that could complete one of the select's cases has ended or waits for ever too, so goroutine %d is left blocked after the test",
		test, s.Goroutine, position(s.File, s.Line, rel), s.Goroutine)
}

// stuckLeakHover adds to the hover of a taken partner's predicted leak
// who took whose partner, and why each case of a select left waiting
// cannot proceed.
func stuckLeakHover(f *Finding, short func(string) string) string {
	out := ""
	for _, s := range RepairedSentences(f, short) {
		out += capitalizeFirst(s) + ".\n\n"
	}
	return out
}
