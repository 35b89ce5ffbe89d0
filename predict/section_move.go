// This file implements the schedule that moves one goroutine's critical
// section after another goroutine's: the half of an order violation's
// witness that the trace gives (issue 32, item 6), shared by the
// predicted nil dereference (nilderef.go) and the predicted send on (or
// close of) a closed channel (misuse_reorder.go).
//
// Goroutine C's event w and goroutine W's event r, r before w in the run.
// Let s0 be the acquire of W's outermost critical section open at r (r
// itself when W holds no lock) and wEnd the release of C's outermost
// section open at w (w when none). The cut P is the causal cone of C's
// events up to wEnd and of W's events before s0, closed under the
// sync-preserving lock rule (cut.go; Mathur, Pavlogiannis and
// Viswanathan, POPL 2021, §3) and under one more rule: every section in P
// of a lock that W acquires between s0 and r is released in P. P must
// hold none of W's events from s0 on. The schedule is P in observed
// order, then W's events from s0 up to r: it reverses W's sections after
// C's, which the synchronisation-reversal races (Shi, Mathur and
// Pavlogiannis, PLDI 2024, §3) allow when no event of the moved sections
// depends on what was moved over them. That is checked: W's events from
// s0 to r (r excluded) are plain accesses and lock operations only; their
// causal cone (but W's own) is in P; and no write in P that the run made
// after one of W's reads is to that read's location (each keeps its
// writer, as the maximal causal model requires: Şerbănuţă, Chen and Roşu,
// RV 2012, Theorem 2). What r does then (reads a store of nil, starts a
// send on a closed channel) is the caller's to check.
//
// Contract: moveAfter builds the cut with no search; it reports a
// schedule only when every check above holds.

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// moveAfter computes in cut the prefix P of the schedule that runs C's
// sections up to w's before W's section open at r (the file comment),
// tmp being scratch, and returns s0, the position of W's first moved
// event. It reports false when there is no such schedule.
func (e *engine) moveAfter(w, r int32, cut, tmp []int32) (int32, bool) {
	c := e.c
	gw, gr := int32(c.ev[w].G), int32(c.ev[r].G)
	if gw == gr {
		return 0, false
	}
	s0 := c.pos[r]
	c.heldAt(gr, c.pos[r], func(_ trace.ObjID, s csect) { s0 = min(s0, s.acq) })
	wEnd, never := c.pos[w], false
	c.heldAt(gw, c.pos[w], func(_ trace.ObjID, s csect) {
		if s.rel == 0 {
			never = true
		}
		wEnd = max(wEnd, s.rel)
	})
	if never {
		return 0, false
	}
	// W's moved events: plain accesses and lock operations of locks kept
	// as locks.
	var acquires []trace.ObjID
	for p := s0; p < c.pos[r]; p++ {
		x := &c.ev[c.at(gr, p)]
		switch x.Op {
		case trace.OpRead, trace.OpWrite, trace.OpUnlock, trace.OpRUnlock:
		case trace.OpLock, trace.OpRLock:
			if c.observed[x.Obj] {
				return 0, false
			}
			acquires = append(acquires, x.Obj)
		default:
			return 0, false
		}
	}
	// A moved read that C's own events up to wEnd, which P holds,
	// overwrite does not keep its writer: seen before any cut is made
	// (a sender that checks the closer's flag in its section).
	for p := s0; p < c.pos[r]; p++ {
		x := c.at(gr, p)
		if c.ev[x].Op == trace.OpRead && e.keepsWriter(x) && e.writtenBy(x, gw, wEnd) {
			return 0, false
		}
	}
	clear(cut)
	e.coneInto(cut, gw, wEnd)
	e.coneInto(cut, gr, s0-1)
	below := func(cut []int32) bool { return cut[gr] < s0 && e.ctx.Err() == nil }
	for {
		if !e.closeCut(cut, -1, -1, below) {
			return 0, false
		}
		grew, ok := e.releaseFor(cut, gr, acquires)
		if !ok {
			return 0, false
		}
		if !grew {
			break
		}
	}
	if !below(cut) || cut[gr] != s0-1 {
		return 0, false
	}
	// The moved events' causes, but W's own, are in the cut.
	copy(tmp, cut)
	e.coneInto(tmp, gr, c.pos[r]-1)
	for g := range tmp {
		if int32(g) != gr && tmp[g] > cut[g] {
			return 0, false
		}
	}
	// Every moved read keeps its writer.
	for p := s0; p < c.pos[r]; p++ {
		x := c.at(gr, p)
		if c.ev[x].Op == trace.OpRead && e.keepsWriter(x) && e.writtenAfter(cut, x, gr) {
			return 0, false
		}
	}
	return s0, true
}

// releaseFor adds to cut the release (with its cone) of every section
// that another goroutine than g holds open at the cut's end, of a lock
// that g acquires (acquires) after the cut (shared or not: a reader's
// section too, which is more than the lock needs). It
// reports whether cut grew, and false ok when a section is never
// released.
func (e *engine) releaseFor(cut []int32, g int32, acquires []trace.ObjID) (grew, ok bool) {
	c, lg := e.c, e.lockGoroutines()
	for _, l := range acquires {
		for _, h := range lg[l] {
			if h == g || cut[h] == 0 {
				continue
			}
			s, open := c.section(h, l, cut[h])
			if !open || s.rel != 0 && s.rel <= cut[h] {
				continue
			}
			if s.rel == 0 {
				return grew, false
			}
			e.coneInto(cut, h, s.rel)
			grew = true
		}
	}
	return grew, true
}

// maxWrittenAfter bounds the writes of one goroutine that writtenAfter
// looks at; past it, it answers yes.
const maxWrittenAfter = 256

// writtenAfter reports whether cut holds a write, of a goroutine other
// than g, to any byte of event x that the run made after x. A location
// groups the bytes that chains of overlapping accesses join (a struct
// zeroed whole is one location), so the bytes are compared: a flag next
// to the field read is not the field.
func (e *engine) writtenAfter(cut []int32, x, g int32) bool {
	for _, h := range e.writerGoroutines(e.m.loc[x]) {
		if h != g && e.writtenBy(x, h, cut[h]) {
			return true
		}
	}
	return false
}

// writtenBy reports whether goroutine h's first upTo events hold a write
// to any byte of event x that the run made after x.
func (e *engine) writtenBy(x, h, upTo int32) bool {
	c := e.c
	xe := &c.ev[x]
	ws := e.writesOf(e.m.loc[x], h)
	j, found := slices.BinarySearch(ws, x)
	if found {
		j++
	}
	for k := j; k < len(ws) && c.pos[ws[k]] <= upTo; k++ {
		if k-j >= maxWrittenAfter {
			return true
		}
		if we := &c.ev[ws[k]]; we.Addr < xe.End() && xe.Addr < we.End() {
			return true
		}
	}
	return false
}

// movedFinding returns the finding whose schedule is cut in observed
// order, then goroutine g's events from position s0 to end (included),
// with its kind and events still to set.
func (e *engine) movedFinding(g int32, cut []int32, s0, end int32) Finding {
	c := e.c
	last := int32(-1)
	for h, n := range cut {
		if n > 0 {
			last = max(last, c.byG[h][n-1])
		}
	}
	prefix := int(last) + 1
	var stops []int
	for h, n := range cut {
		if int32(h) == g || int(n) >= len(c.byG[h]) {
			continue
		}
		if x := c.byG[h][n]; int(x) < prefix {
			stops = append(stops, int(x))
		}
	}
	slices.Sort(stops)
	var moved []int
	for p := s0; p <= end; p++ {
		moved = append(moved, int(c.at(g, p)))
	}
	return Finding{Predicted: true, Count: 1, Prefix: prefix, Stops: stops, Witness: moved}
}
