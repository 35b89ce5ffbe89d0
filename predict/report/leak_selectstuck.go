// This file says what a select's predicted leak (issue 32, item 5;
// predict/leak_selectstuck.go) means: a goroutine left waiting for ever
// in a select whose every case has lost its partner, while its test
// returns. Its Stuck says why each case cannot proceed (StuckSentences).

package report

import "fmt"

// StuckLeak reports whether f is a select's predicted leak: a predicted
// leak whose witness leaves a select waiting for ever.
func StuckLeak(f *Finding) bool {
	return f.Kind == KindLeak && f.Predicted && len(f.Stuck) > 0
}

// stuckLeakSentence says what a select's predicted leak's schedule does
// (LeakSentence).
func stuckLeakSentence(f *Finding, rel func(string) string) string {
	s := f.Stuck[0]
	test := "its test"
	if f.Test != "" {
		test = f.Test
	}
	return fmt.Sprintf("in a schedule that nothing rules out, %s returns while goroutine %d waits for ever in its select at %s: every goroutine that could complete one of the select's cases has ended or waits for ever too, so goroutine %d is left blocked after the test",
		test, s.Goroutine, position(s.File, s.Line, rel), s.Goroutine)
}

// stuckLeakHover adds to the hover of a select's predicted leak who took
// whose partner, and why each of the select's cases cannot proceed.
func stuckLeakHover(f *Finding, short func(string) string) string {
	out := ""
	for _, s := range RepairedSentences(f, short) {
		out += capitalizeFirst(s) + ".\n\n"
	}
	return out
}
