// This file implements how a pass without a log (the SHB layer's,
// race_shb.go) bounds what an address's pending release-merges hold
// (issue 31, item 2: a memory budget for every layer). A syncVar joins
// its release-merges lazily, at the next acquire, keeping each
// goroutine's latest (clock_pass.go): a WaitGroup that tens of thousands
// of goroutines call Done on, each with a clock of thousands of entries,
// held every one of those clocks until Wait. On pond's trace (issue 31)
// the SHB pass's pending merges held most of its peak. Once an address
// has foldPending goroutines' merges pending, the pass joins them into
// the address's clock at once: a join is associative, commutative and
// monotone, so the clock the next acquire joins is the same
// (TestFoldPendingSameSHB), and the merged clocks are free as soon as
// no goroutine holds them. What it costs is the lazy way's saving, one
// join a goroutine: a goroutine that merges again after a fold is joined
// again.
//
// A release-merge that no acquire reads (none follows before the
// address's clock is replaced by a release, reset by a plain write over
// an atomic variable, or dropped after its last event) is not kept at
// all (idleMerges): folded early, the merges into an address that no
// Wait reads again cost a join each where the lazy way cost nothing.
//
// A pass with a log does not fold early: its journal (clock_journal.go)
// joins an address's clock by its tag, which a fold of several clocks
// clears, and its merges are cheap journal joins.

package predict

import "github.com/seer-tools/seer/trace"

// foldPending is how many goroutines' merges an address of a pass
// without a log holds pending before it joins them (0: never early).
var foldPending = 64

// foldedEarly, for tests, counts the early folds since the process
// started.
var foldedEarly int

// mergeFold records release-merge i into s by the goroutine of ep,
// whose clock is c, unless no acquire reads it, and folds s's pending
// merges if they are foldPending.
func (ps *pass) mergeFold(i int, s *syncVar, c vclock, ep centry) {
	if ps.idleMerge.has(int32(i)) {
		return
	}
	s.merge(c, ep)
	if ps.jr == nil && foldPending > 0 && len(s.pend) >= foldPending {
		s.tag = jtag{} // clk is now a join of several
		s.fold(ps.fsc)
		foldedEarly++
	}
}

// idleMerges marks the release-merges of a pass in mode (without a log)
// that no acquire reads: scanning back, an address is read ahead from an
// acquire (or a release-acquire, which acquires first) until a release,
// or a plain write over an atomic variable, replaces its clock. Without
// dropDead it marks none (TestPassShortcutsSameHistory compares).
func idleMerges(c *ctp, mode clockMode, pv *passVars) bitset {
	if !dropDead || mode.want == nil {
		return nil
	}
	idle := newBitset(len(c.ev))
	ahead := make([]bool, pv.n)
	pv.each(true, func(i int, r int32) {
		k := pv.at(r)
		// An event uses one address: its synchronisation's (varOf), or,
		// a plain write over an atomic variable (never a
		// synchronisation), the variable's, whose clock it resets.
		switch c.passKind(i, &mode) {
		case trace.SyncAcquire, trace.SyncReleaseAcquire:
			ahead[k] = true
		case trace.SyncRelease:
			ahead[k] = false
		case trace.SyncReleaseMerge:
			if !ahead[k] {
				idle.set(int32(i))
			}
		}
		if c.overAtomic.has(int32(i)) {
			ahead[k] = false
		}
	})
	return idle
}
