// This file tests the journal's back-off (clock_journal_backoff.go): how
// many tries a receiver skips after a run of failures, and that a success
// ends the run. That skipping leaves every history unchanged is
// TestPassShortcutsSameHistory's back-off level.

package predict

import "testing"

func TestJournalBackoffSchedule(t *testing.T) {
	// Each step: the outcome of a try by goroutine 1, then how many of
	// its next tries are skipped before it tries again.
	for _, tc := range []struct {
		name  string
		cap   uint8
		tries []bool
		skips []int
	}{
		{"one failure", 3, []bool{false}, []int{1}},
		{"failures double the skips", 3, []bool{false, false, false}, []int{1, 3, 7}},
		{"capped", 3, []bool{false, false, false, false, false}, []int{1, 3, 7, 7, 7}},
		{"cap 1", 1, []bool{false, false}, []int{1, 1}},
		{"success resets", 3, []bool{false, false, true, false}, []int{1, 3, 0, 1}},
		{"successes skip nothing", 3, []bool{true, true}, []int{0, 0}},
		{"off", 0, []bool{false, false}, []int{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(c uint8) { journalBackoffCap = c }(journalBackoffCap)
			journalBackoffCap = tc.cap
			var b backoff
			const g, ng = 1, 3
			for i, ok := range tc.tries {
				if b.skipping(g, ng) {
					t.Fatalf("try %d skipped", i)
				}
				b.tried(g, ok)
				n := 0
				for b.skipping(g, ng) {
					n++
				}
				if n != tc.skips[i] {
					t.Fatalf("after try %d (ok %v): %d skipped, want %d", i, ok, n, tc.skips[i])
				}
				if b.skipping(0, ng) || b.skipping(2, ng) {
					t.Fatal("another goroutine's tries skipped")
				}
			}
		})
	}
}
