// This file implements the predicted nil dereference (issue 32, item 6):
// an order violation that no race report names. The typical shape:
//
//	func (c *Client) Close() {         func (c *Client) watch() {
//		c.mu.Lock()                        c.mu.Lock()
//		c.conn = nil      // w             n := c.conn.n  // r, then *
//		c.mu.Unlock()                      c.mu.Unlock()
//	}                                   }
//
// Both sides hold the mutex, so there is no race; in the recorded run the
// watcher's section came first and read a live connection. In the
// schedule in which Close's section comes first, the watcher reads nil
// and dereferences it: the program panics. The same with a slice set to
// nil and indexed (a nil slice has length 0: index out of range) is
// KindIndexOutOfRange; with a map set to nil and assigned an entry
// ("assignment to entry in nil map"), KindNilMapWrite.
//
// Two halves make the claim:
//
//   - The schedule (the trace's half). Goroutine W's read r and goroutine
//     C's write w touch the same bytes, r before w in the run. Let s0 be
//     the acquire of W's outermost critical section open at r (r itself
//     when W holds no lock) and wEnd the release of C's outermost section
//     open at w (w when none). The cut P is the causal cone of C's events
//     up to wEnd and of W's events before s0, closed under the
//     sync-preserving lock rule (cut.go; Mathur, Pavlogiannis and
//     Viswanathan, POPL 2021, §3) and under one more rule: every section
//     in P of a lock that W acquires between s0 and r is released in P.
//     P must hold none of W's events from s0 on. The schedule is P in
//     observed order, then W's events from s0 to r: it reverses W's
//     sections after C's, which the synchronisation-reversal races (Shi,
//     Mathur and Pavlogiannis, PLDI 2024, §3) allow when no event of the
//     moved sections depends on what was moved over them. That is
//     checked: W's events from s0 to r are plain accesses and lock
//     operations only; their causal cone (but W's own) is in P; no write
//     in P that the run made after one of W's reads (but r) is to that
//     read's location (each keeps its writer, as the maximal causal model
//     requires: Şerbănuţă, Chen and Roşu, RV 2012, Theorem 2); and no
//     write to r's location runs between w and r. r, W's last event,
//     reads what w stored.
//   - The values (the static half, Options.NilStore and Options.NilUse:
//     package static's Program.NilStore and Program.NilUse). w stores nil
//     into a pointer, an interface or a slice, and W dereferences (or,
//     a slice, indexes) the value r returns right after it, in the same
//     basic block with nothing that can branch, block or call between,
//     and no function on W's stack defers a recover.
//
// Without both options the layer does not run (seer predict reads a trace
// without its source). The finding (Kind nil-dereference, always
// Predicted: a run that read the nil panicked and its trace ends there)
// lists w and r; KindIndexOutOfRange's and KindNilMapWrite's likewise. The checker (package
// witness, nilderef.go) re-checks the schedule against the serial
// specifications and that r sees w.
//
// Contract: it reports only pairs whose two halves hold as above; it
// builds the witness from the cut and W's moved events, with no search.

package predict

import (
	"slices"
	"time"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

// stageNil names the layer's funnel row.
const stageNil = "nil"

// The layer's bounds: the reads it tries in a trace (a closure each),
// the reads of another goroutine it looks at before each store (latest
// first: a watcher in a loop reads thousands of times), and the stores
// of one site it looks from (a Close called in a loop).
const (
	maxNilReads  = 2000
	maxNilLooks  = 64
	maxNilStores = 64
)

// nilDerefLayer finds and proves predicted nil dereferences. Its funnel
// row counts the reads tried (NilReads) and the pairs of sites proved
// (NilSites).
func (e *engine) nilDerefLayer() ([]Finding, Stage, error) {
	t0 := time.Now()
	if e.opts.NilStore == nil || e.opts.NilUse == nil {
		return nil, Stage{Name: stageNil}, nil
	}
	c, t := e.c, e.t
	var tried int64
	row := func(n int) Stage {
		return Stage{Name: stageNil, NilReads: tried, NilSites: n, Time: time.Since(t0)}
	}
	// The stores of nil, judged once per stack (not per site: an event
	// of a function of the standard library called on the line has the
	// line's site, and is no store the line makes), to a location two
	// goroutines touch.
	storeStack := map[trace.StackID]bool{}
	var stores []int32
	locs := map[int32]bool{}
	for i := range c.ev {
		ev := &c.ev[i]
		if ev.Op != trace.OpWrite || !e.m.shared(int32(i)) {
			continue
		}
		ok, seen := storeStack[ev.Stack]
		if !seen {
			ok = e.opts.NilStore(t, i)
			storeStack[ev.Stack] = ok
		}
		if ok {
			stores = append(stores, int32(i))
			locs[e.m.loc[i]] = true
		}
	}
	if len(stores) == 0 {
		return nil, row(0), nil
	}
	// The reads of those locations, in order.
	reads := map[int32][]int32{}
	for i := range c.ev {
		if c.ev[i].Op == trace.OpRead && locs[e.m.loc[i]] {
			reads[e.m.loc[i]] = append(reads[e.m.loc[i]], int32(i))
		}
	}
	useStack := map[trace.StackID]report.Kind{} // judged once per stack, as the stores
	storesOf := map[int32]int{}                 // per store site: the stores looked from
	tries := map[patternKey]int{}
	proved := map[patternKey]int{} // index in out
	var out []Finding
	cut := make([]int32, len(c.byG))
	tmp := make([]int32, len(c.byG))
	for _, w := range stores {
		we := &c.ev[w]
		if storesOf[c.site(w)]++; storesOf[c.site(w)] > maxNilStores {
			continue
		}
		rs := reads[e.m.loc[w]]
		n, _ := slices.BinarySearch(rs, w)
		looked := 0
		for j := n - 1; j >= 0 && looked < maxNilLooks; j-- { // the reads before w, latest first
			if err := e.ctx.Err(); err != nil {
				return nil, row(len(out)), err
			}
			r := rs[j]
			re := &c.ev[r]
			if re.G == we.G || re.Addr != we.Addr || re.Size != we.Size {
				continue
			}
			looked++
			key := newPatternKey(KindNilDeref, c.site(w), c.site(r))
			if at, ok := proved[key]; ok {
				out[at].Count++
				continue
			}
			if tries[key] >= e.opts.MaxTries || tried >= maxNilReads {
				continue
			}
			// Every schedule that runs w has run r: no reordering.
			if e.mhb.knows(int32(we.G), c.pos[w], int32(re.G)) >= c.pos[r] {
				continue
			}
			kind, seen := useStack[re.Stack]
			if !seen {
				kind = e.opts.NilUse(t, int(r))
				useStack[re.Stack] = kind
			}
			if kind != KindNilDeref && kind != KindIndexOutOfRange && kind != KindNilMapWrite {
				continue
			}
			tries[key]++
			tried++
			if err := e.needCone(); err != nil {
				return nil, row(len(out)), err
			}
			if fd, ok := e.nilWitness(w, r, cut, tmp); ok {
				fd.Kind = kind
				proved[key] = len(out)
				out = append(out, fd)
			}
		}
	}
	return out, row(len(out)), nil
}

// nilWitness builds the schedule in which r reads what w stored (see the
// file comment), in cut (tmp is scratch), and reports whether there is
// one: W's section moved after C's (moveAfter, section_move.go), r seeing
// w.
func (e *engine) nilWitness(w, r int32, cut, tmp []int32) (Finding, bool) {
	c := e.c
	gr := int32(c.ev[r].G)
	s0, ok := e.moveAfter(w, r, cut, tmp)
	if !ok || e.writtenAfter(cut, w, gr) {
		return Finding{}, false
	}
	for _, x := range e.writesOf(e.m.loc[r], gr) {
		if p := c.pos[x]; s0 <= p && p < c.pos[r] {
			return Finding{}, false
		}
	}
	fd := e.movedFinding(gr, cut, s0, c.pos[r])
	fd.Kind, fd.Events = KindNilDeref, []int{int(w), int(r)}
	return fd, true
}
