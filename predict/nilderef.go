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
// KindIndexOutOfRange.
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
// lists w and r; KindIndexOutOfRange's likewise. The checker (package
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
			if kind != KindNilDeref && kind != KindIndexOutOfRange {
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
// one.
func (e *engine) nilWitness(w, r int32, cut, tmp []int32) (Finding, bool) {
	c := e.c
	gw, gr := int32(c.ev[w].G), int32(c.ev[r].G)
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
		return Finding{}, false
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
				return Finding{}, false
			}
			acquires = append(acquires, x.Obj)
		default:
			return Finding{}, false
		}
	}
	clear(cut)
	e.coneInto(cut, gw, wEnd)
	e.coneInto(cut, gr, s0-1)
	below := func(cut []int32) bool { return cut[gr] < s0 && e.ctx.Err() == nil }
	for {
		if !e.closeCut(cut, -1, -1, below) {
			return Finding{}, false
		}
		grew, ok := e.releaseFor(cut, gr, acquires)
		if !ok {
			return Finding{}, false
		}
		if !grew {
			break
		}
	}
	if !below(cut) || cut[gr] != s0-1 {
		return Finding{}, false
	}
	// The moved events' causes, but W's own, are in the cut.
	copy(tmp, cut)
	e.coneInto(tmp, gr, c.pos[r]-1)
	for g := range tmp {
		if int32(g) != gr && tmp[g] > cut[g] {
			return Finding{}, false
		}
	}
	// Every moved read keeps its writer; r sees w.
	for p := s0; p < c.pos[r]; p++ {
		x := c.at(gr, p)
		if c.ev[x].Op == trace.OpRead && e.keepsWriter(x) && e.writtenAfter(cut, x, gr) {
			return Finding{}, false
		}
	}
	if e.writtenAfter(cut, w, gr) {
		return Finding{}, false
	}
	for _, x := range e.writesOf(e.m.loc[r], gr) {
		if p := c.pos[x]; s0 <= p && p < c.pos[r] {
			return Finding{}, false
		}
	}
	return e.nilFinding(w, r, cut, s0), true
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

// writtenAfter reports whether cut holds a write, of a goroutine other
// than g, to the location of event x that the run made after x.
func (e *engine) writtenAfter(cut []int32, x, g int32) bool {
	c := e.c
	loc := e.m.loc[x]
	for _, h := range e.writerGoroutines(loc) {
		if h == g {
			continue
		}
		ws := e.writesOf(loc, h)
		j, found := slices.BinarySearch(ws, x)
		if found {
			j++
		}
		if j < len(ws) && c.pos[ws[j]] <= cut[h] {
			return true
		}
	}
	return false
}

// nilFinding returns the finding whose schedule is cut in observed order,
// then r's goroutine's events from position s0 to r.
func (e *engine) nilFinding(w, r int32, cut []int32, s0 int32) Finding {
	c := e.c
	gr := int32(c.ev[r].G)
	last := int32(-1)
	for g, n := range cut {
		if n > 0 {
			last = max(last, c.byG[g][n-1])
		}
	}
	prefix := int(last) + 1
	var stops []int
	for g, n := range cut {
		if int32(g) == gr || int(n) >= len(c.byG[g]) {
			continue
		}
		if x := c.byG[g][n]; int(x) < prefix {
			stops = append(stops, int(x))
		}
	}
	slices.Sort(stops)
	var moved []int
	for p := s0; p <= c.pos[r]; p++ {
		moved = append(moved, int(c.at(gr, p)))
	}
	return Finding{Kind: KindNilDeref, Predicted: true, Count: 1, Events: []int{int(w), int(r)},
		Prefix: prefix, Stops: stops, Witness: moved}
}
