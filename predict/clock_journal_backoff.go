// This file implements the journal's back-off: a receiver whose journal
// joins (clock_journal.go) keep failing stops trying them for a while.
//
// A journal join reads the groups the source's goroutine logged since
// the receiver last heard of it, up to a budget, and gives up for a whole
// join past it, so a failed try costs its reading on top of the whole
// join. Where goroutines all talk to all (issue 31's channel stress test)
// most tries fail, and what they read is most of what the journal reads
// (bench/RESULTS.md, "the journal's back-off"). A receiver's failures
// come in runs, so after a failed try a receiver joins its next 2^k-1
// tagged clocks of others whole, k its failures in a row (at most
// journalBackoffCap), and one success sets k back to zero: the binary
// exponential back-off of Ethernet's retransmissions (Metcalfe and
// Boggs, CACM 1976), for a try whose result is right either way.
//
// A join through the journal and a whole join give the same clock (the
// journal's note), so skipping a try changes only the cost: the history
// is the same (TestPassShortcutsSameHistory's back-off level).

package predict

// journalBackoffCap bounds the failures in a row a receiver counts, so
// it skips at most 2^cap-1 tries at once; 0 turns the back-off off
// (tests, to compare).
// onJournalSkip, if set (tests), is called at each try skipped.
var (
	journalBackoffCap uint8 = 3
	onJournalSkip     func()
)

// backoff is the journal's back-off state, by receiving goroutine.
type backoff struct{ fails, skip []uint8 }

// skipping reports whether receiver g, of ng goroutines, skips its
// journal try now.
func (b *backoff) skipping(g int32, ng int) bool {
	if journalBackoffCap == 0 {
		return false
	}
	if b.skip == nil {
		b.fails, b.skip = make([]uint8, ng), make([]uint8, ng)
	}
	if b.skip[g] == 0 {
		return false
	}
	b.skip[g]--
	if onJournalSkip != nil {
		onJournalSkip()
	}
	return true
}

// tried notes the outcome of receiver g's journal try.
func (b *backoff) tried(g int32, ok bool) {
	if b.skip == nil {
		return
	}
	if ok {
		b.fails[g] = 0
		return
	}
	b.fails[g] = min(b.fails[g]+1, journalBackoffCap)
	b.skip[g] = 1<<b.fails[g] - 1
}
