// This file implements a second filter that, like the read-from filter
// (cone_readfrom.go), refuses a race candidate before the causal cone is
// made: one that a lock and a read's observed writer order. It asks only
// the events of the two goroutines and must-happen-before's clocks.
//
// The rule. Let x be an event of goroutine gx that holds lock L at x, in
// the critical section S1 acquired at acq1, and let goroutine gy have
// released L at rel2 before y (its section S2 ended before y). A race
// witness of (x, y) runs everything before x in gx and everything before
// y in gy, then x and y (every layer's witness does: SHB's, the
// sync-preserving and reversal closures', the solver's). At its end gx
// still holds L, so S2, which that prefix runs whole, ends before S1
// begins: rel2 before acq1. Now let r be a read of gx between acq1 and x
// whose writer the witness keeps (engine.keepsWriter: the maximal causal
// model of Şerbănuţă, Chen and Roşu, Theorem 2: each read the witness runs
// before its goroutine's next step sees what it saw), and w' a write of
// gy before rel2 to bytes r reads, that is none of r's observed writers,
// while each of those writers is the initial value or must happen before
// w'. Then in every witness w' comes before rel2, so before acq1, so
// before r, and after every observed writer of the bytes it writes: r
// would see w' (or a later write), not its writer. So no witness exists
// and the candidate is dropped. These are M2's closure rules 2 (every
// release of the cone before the open acquire of its lock) and 3 (a write
// ordered before a read precedes the read's writer), in
// soundness-of-predictive-analyses §6.1, applied to one pair of sections
// and ending in a cycle (the writer must happen before w') or at the
// initial value, without the cone.
//
// pond is the pattern: a submitter takes the pool's mutex, loads the
// stopped flag (0, never written before) and adds to the worker
// WaitGroup; Stop takes the same mutex, stores 1 in the flag, unlocks
// and waits on the WaitGroup. The race detector's own accesses of the
// WaitGroup's semaphore in Add (under the mutex) and in Wait (after
// Stop's section) are a candidate that no layer before the solver
// refuses, and the solver leaves undecided past its timeout: the causal
// cone's pass over the history's prefix was made for it alone.
//
// The walks over gx's section and gy's events before rel2 are bounded by
// maxReadFromWalk each; past them the filter answers no.

package predict

import "github.com/seer-tools/seer/trace"

// lockReadFilter lets refuteByReadFrom use this filter; false for the
// tests that compare the findings with and without it.
var lockReadFilter = true

// lockReadOrdered reports whether lockReadBefore refuses the pair (x, y)
// with either event as the one inside the section.
func (e *engine) lockReadOrdered(x, y int32) bool {
	return lockReadFilter && (e.lockReadBefore(x, y) || e.lockReadBefore(y, x))
}

// lockReadBefore reports whether, for some lock L held at x by x's
// goroutine and released by y's goroutine before y, a kept read of x's
// section before x would see a write of y's goroutine made before that
// release in every witness of the pair: see the file's comment.
func (e *engine) lockReadBefore(x, y int32) bool {
	c := e.c
	gx, gy := int32(c.ev[x].G), int32(c.ev[y].G)
	if gx == gy {
		return false
	}
	found := false
	c.heldAt(gx, c.pos[x], func(l trace.ObjID, s1 csect) {
		if found || c.observed[l] || c.nestedRead[l] || s1.acq >= c.pos[x] {
			return
		}
		s2, ok := lastReleasedBefore(c.cs[gl{gy, l}], c.pos[y])
		if !ok || s1.shared && s2.shared { // two read sections may overlap
			return
		}
		found = e.readSeesLaterWrite(gx, s1.acq, c.pos[x], gy, s2.rel)
	})
	return found
}

// lastReleasedBefore returns the last of sections (one goroutine's of
// one lock, in order) whose release is before position p.
func lastReleasedBefore(sections []csect, p int32) (csect, bool) {
	for k := len(sections) - 1; k >= 0; k-- {
		if s := sections[k]; s.rel != 0 && s.rel < p {
			return s, true
		}
	}
	return csect{}, false
}

// readSeesLaterWrite reports whether a kept read of goroutine gx strictly
// between positions acq and at has a write of goroutine gy before
// position rel to its bytes that none of its writers may follow (each is
// the initial value or must happen before that write).
func (e *engine) readSeesLaterWrite(gx, acq, at, gy, rel int32) bool {
	c := e.c
	// gy's writes of shared locations before rel, latest first, by
	// location.
	var ws map[int32][]int32
	for p, n := rel-1, 0; p >= 1 && n < maxReadFromWalk; p, n = p-1, n+1 {
		w := c.at(gy, p)
		if isWrite(c.ev[w].Op) && e.m.shared(w) {
			if ws == nil {
				ws = make(map[int32][]int32)
			}
			l := e.m.loc[w]
			ws[l] = append(ws[l], w)
		}
	}
	if ws == nil {
		return false
	}
	for p, n := at-1, 0; p > acq && n < maxReadFromWalk; p, n = p-1, n+1 {
		r := c.at(gx, p)
		if !e.keepsWriter(r) {
			continue
		}
		for _, w := range ws[e.m.loc[r]] {
			if e.overwrites(r, w) {
				return true
			}
		}
	}
	return false
}

// overwrites reports whether write w writes bytes that read r reads, is
// none of r's writers, and follows each of them (the initial value, or a
// write that must happen before w) in every schedule.
func (e *engine) overwrites(r, w int32) bool {
	er, ew := &e.c.ev[r], &e.c.ev[w]
	if ew.Addr >= er.Addr+uint64(er.Size) || er.Addr >= ew.Addr+uint64(ew.Size) {
		return false
	}
	for _, wr := range e.m.writers(r) {
		if wr == w || wr >= 0 && !e.mhb.before(wr, w) {
			return false
		}
	}
	return true
}
