// This file implements the shape of a witness for one candidate: which
// events it must contain (the causal cone of the bug events: everything
// they must-happen-after, closed under the read-from of every read whose
// value matters — the event set of soundness-of-predictive-analyses §5.1,
// Definition 10), which critical sections must be closed, and where the
// last causality barrier lies (UCG paper §4, Theorem 4, generalising its
// two-goroutine Algorithm 2 to any number of goroutines).

package predict

import "github.com/seer-tools/seer/trace"

// plan is one way a witness for a candidate could look. Goroutine g runs
// its first cut[g] events in the body; tail events follow the body in
// order, each the last event of its goroutine.
type plan struct {
	cd     cand
	cut    []int32
	tail   []int32
	free   int32      // a body read that may see another writer (it is last in its goroutine), or -1
	fixed  []bool     // goroutines whose cut must not grow
	before [][2]int32 // extra orderings: x before y
	bar    []int32    // causality barrier: positions 1..bar[g] are the prefix
	props  [][2]int32 // property vertices (goroutine, position) that must stay after the barrier
	seeds  [][2]int32 // property seed edges, for the UCG
}

// coneInto raises cut to include the first p events of goroutine g and
// everything they need (their causal cone).
func (e *engine) coneInto(cut []int32, g, p int32) { e.closeInto(e.cone, cut, g, p) }

// closeInto raises cut to include the first p events of goroutine g and
// everything they are after in relation h. A clock that knows an event
// knows all its goroutine knew then, except what a release-acquire event
// acquired after releasing (clock_pass.go): for those, their own clock is added
// too, so that the cut is downward closed under h.
//
// Only the first state is read whole. A release-acquire event (k, v) is
// put on the worklist when a clock already added to cut knows it, that is
// holds k's clock before it (a release at v releases k's first v-1 events'
// clock); so what (k, v) adds is only what rose at it, which the pass kept
// (clockMode.acqRises): a few components, where reading k's whole clock
// costs one per goroutine k knows of.
func (e *engine) closeInto(h *clocks, cut []int32, g, p int32) {
	raise := func(k, v int32) {
		cut[k] = v
		if i := e.c.at(k, v); e.c.syncKind(int(i)) == trace.SyncReleaseAcquire {
			e.work = append(e.work, [2]int32{k, v})
		}
	}
	if p > cut[g] {
		cut[g] = p
	}
	if p <= 0 && e.c.goEv[g] < 0 {
		return
	}
	e.work = e.work[:0]
	h.h.eachAbove(g, p, cut, raise)
	for len(e.work) > 0 {
		g, p := e.work[len(e.work)-1][0], e.work[len(e.work)-1][1]
		e.work = e.work[:len(e.work)-1]
		if p > cut[g] {
			cut[g] = p
		}
		if h.acq == nil {
			h.h.eachAbove(g, p, cut, raise)
			continue
		}
		e.dec = h.acq.at(e.dec, e.c.at(g, p))
		for _, r := range e.dec {
			// Components: with chains, translated (clock_chain_cone.go).
			h.h.eachKnown(r.g, r.v, func(k, v int32) {
				if v > cut[k] {
					raise(k, v)
				}
			})
		}
	}
}

// racePlan returns the plan of race (a, b), or nil if the cone of one
// access contains the other (the race cannot be shown: schedulable
// happens-before with the reads that matter).
func (e *engine) racePlan(cd cand, ucg bool) *plan {
	c := e.c
	a, b := cd.ev[0], cd.ev[1]
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	p := e.newPlan(cd)
	e.coneInto(p.cut, ga, c.pos[a]-1)
	e.coneInto(p.cut, gb, c.pos[b]-1)
	if p.cut[ga] >= c.pos[a] || p.cut[gb] >= c.pos[b] {
		return nil
	}
	p.fixed[ga], p.fixed[gb] = true, true
	p.tail = []int32{a, b}
	for _, x := range []int32{a, b} {
		g := int32(c.ev[x].G)
		if c.pos[x] > 1 {
			p.props = append(p.props, [2]int32{g, c.pos[x] - 1})
		}
	}
	if c.pos[a] > 1 {
		p.seeds = append(p.seeds, [2]int32{c.at(ga, c.pos[a]-1), b})
	}
	if c.pos[b] > 1 {
		p.seeds = append(p.seeds, [2]int32{c.at(gb, c.pos[b]-1), a})
	}
	e.barrier(p)
	return p
}

// atomicityPlan returns a plan for violation (c1, r, c2). In variant 1 the
// remote access r is the last event of its goroutine (so a read r may see
// another writer); in variant 2 its goroutine may go on (to release locks
// the local goroutine needs), and r keeps its observed writer. For the
// UCG (ucg set), the path of r's goroutine ends at r but may grow.
func (e *engine) atomicityPlan(cd cand, variant int, ucg bool) *plan {
	c := e.c
	c1, r, c2 := cd.ev[0], cd.ev[1], cd.ev[2]
	g, h := int32(c.ev[c1].G), int32(c.ev[r].G)
	p := e.newPlan(cd)
	e.coneInto(p.cut, g, c.pos[c2]-1)
	if variant == 1 || ucg {
		e.coneInto(p.cut, h, c.pos[r]-1)
		if p.cut[h] > c.pos[r] && !ucg {
			return nil // g needs more of h than r: only variant 2 can do
		}
		if p.cut[h] < c.pos[r] {
			p.cut[h] = c.pos[r]
		}
		if isRead(c.ev[r].Op) {
			p.free = r // last in its goroutine: may see another writer
		}
		p.fixed[h] = !ucg
	} else {
		e.coneInto(p.cut, h, c.pos[r])
	}
	if p.cut[g] >= c.pos[c2] {
		return nil
	}
	p.fixed[g] = true
	p.tail = []int32{c2}
	p.before = [][2]int32{{c1, r}}
	p.props = [][2]int32{{g, c.pos[c1]}, {h, c.pos[r]}}
	p.seeds = [][2]int32{{c1, r}, {r, c2}}
	e.barrier(p)
	return p
}

// closedPlan returns a copy of p whose growable goroutines release the
// locks they hold at the end of the body, or nil if that changes nothing.
func (e *engine) closedPlan(p *plan) *plan {
	q := *p
	q.cut = append([]int32(nil), p.cut...)
	if !e.closeSections(&q) {
		return nil
	}
	e.barrier(&q)
	return &q
}

func (e *engine) newPlan(cd cand) *plan {
	ng := len(e.c.byG)
	return &plan{cd: cd, cut: make([]int32, ng), fixed: make([]bool, ng), free: -1}
}

// closeSections extends goroutines that may grow so that they release the
// locks they hold at the end of the body, when that does not pull in a
// bug event (a critical section left open must come last on its lock,
// which a second open one makes impossible). It reports whether it
// extended anything.
func (e *engine) closeSections(p *plan) bool {
	c := e.c
	refused := make(map[int32]bool)
	grew := false
	for changed := true; changed; {
		changed = false
		for g := range p.cut {
			g := int32(g)
			if p.fixed[g] || refused[g] || p.cut[g] == 0 || !c.locked.has(c.at(g, p.cut[g])) {
				continue
			}
			target := int32(0)
			c.heldAt(g, p.cut[g], func(_ trace.ObjID, s csect) {
				if s.rel > target {
					target = s.rel
				}
			})
			if target == 0 { // held to the end of the trace: stays open
				refused[g] = true
				continue
			}
			t := append([]int32(nil), p.cut...)
			e.coneInto(t, g, target)
			if !e.keepsFixed(p, t) {
				refused[g] = true
				continue
			}
			p.cut = t
			changed, grew = true, true
		}
	}
	return grew
}

// keepsFixed reports whether cut t leaves fixed goroutines where p has
// them.
func (e *engine) keepsFixed(p *plan, t []int32) bool {
	for g, f := range p.fixed {
		if f && t[g] != p.cut[g] {
			return false
		}
	}
	return true
}

// lastLockFree returns the last position q <= p of goroutine g after which
// g holds no lock but for terminal sections (0 is always lock-free; see
// solve_terminal.go).
func (e *engine) lastLockFree(g, p int32) int32 { return e.lastOutside(e.c.pinned, g, p) }

// lastOutside returns the last position q <= p of goroutine g whose event
// is not in held (0 if there is none).
func (e *engine) lastOutside(held bitset, g, p int32) int32 {
	for q := p; q >= 1; q-- {
		if !held.has(e.c.at(g, q)) {
			return q
		}
	}
	return 0
}

// barrier computes the last causality barrier of plan p: for each
// goroutine a lock-free position, no later than its body's end nor than
// its property vertices, such that no edge of the causal cone goes from
// one goroutine's suffix into another's prefix. Starting from the latest
// candidates, a violation moves the receiving goroutine's barrier back
// before the receiving event, to a fixpoint (the n-goroutine form of the
// UCG paper's Algorithm 2). Violations are found with the cone clocks: the
// clock after k's prefix names, for every goroutine j, the last event of j
// that the prefix needs.
func (e *engine) barrier(p *plan) {
	ng := len(p.cut)
	p.bar = make([]int32, ng)
	if e.opts.NoChop {
		return
	}
	var active []int32
	for g := 0; g < ng; g++ {
		if p.cut[g] > 0 {
			active = append(active, int32(g))
			p.bar[g] = e.lastLockFree(int32(g), p.cut[g])
		}
	}
	for _, v := range p.props {
		if b := e.lastLockFree(v[0], v[1]-1); b < p.bar[v[0]] {
			p.bar[v[0]] = b
		}
	}
	e.settle(p, active)
	for len(e.c.terminal) > 0 && e.unpinTerminal(p) {
		e.settle(p, active)
	}
}

// maxWidenings bounds how often a candidate's window is widened.
const maxWidenings = 3

// widen moves plan p's barriers back so that each goroutine's part of the
// window about doubles (by 16 events at least), then settles them: the
// solver, which keeps the prefix in observed order, may then reorder more
// of the run. It reports false when no barrier can move or the window is
// already an eighth of MaxWindow.
func (e *engine) widen(p *plan) bool {
	if e.opts.NoChop {
		return false
	}
	var active []int32
	size := int32(0)
	for g := range p.cut {
		if p.cut[g] > 0 {
			active = append(active, int32(g))
			size += p.cut[g] - p.bar[g]
		}
	}
	if int(size) >= e.opts.MaxWindow/8 {
		return false // widening large windows costs the solver more than it finds
	}
	moved := false
	for _, g := range active {
		if p.bar[g] == 0 {
			continue
		}
		w := max(16, p.cut[g]-p.bar[g])
		p.bar[g] = e.lastLockFree(g, max(0, p.bar[g]-w))
		moved = true
	}
	if !moved {
		return false
	}
	e.settle(p, active)
	for len(e.c.terminal) > 0 && e.unpinTerminal(p) {
		e.settle(p, active)
	}
	return true
}

// settle moves barriers back until no cone edge crosses from a suffix
// into a prefix. The cut holds the cone of every prefix (coneInto), so an
// edge can only enter a goroutine whose barrier lies before its cut; and
// moving a barrier back only shrinks its goroutine's prefix, so after
// that only the goroutines whose barriers moved can be entered anew. Each
// sweep looks at just those components of every prefix's clock (the
// result is the greatest fixpoint, as with looking at all of them).
func (e *engine) settle(p *plan, active []int32) {
	var moved []int32 // goroutines an edge may enter
	for _, j := range active {
		if p.bar[j] < p.cut[j] {
			moved = append(moved, j)
		}
	}
	mark := make([]bool, len(p.cut))
	for len(moved) > 0 {
		for _, j := range moved {
			mark[j] = true
		}
		var next []int32
		for _, k := range active {
			bk := p.bar[k]
			if bk == 0 {
				continue
			}
			// The first position of k that knows more of j than j's
			// prefix: an edge crosses iff it is at or before bk.
			minq := bk + 1
			look := func(j int32, rs knowsList) {
				if j == k || rs.valueAt(bk) <= p.bar[j] {
					return // k's prefix needs nothing of j's suffix
				}
				if q := knowingPos(rs.firstAbove(p.bar[j])); q < minq {
					minq = q
				}
			}
			if 4*len(moved) > e.cone.h.size(k) {
				// Many to look at: walk the clock's components once.
				e.cone.h.eachRisesMarked(k, mark, look)
			} else {
				for _, j := range moved {
					look(j, e.cone.h.rises(k, j))
				}
			}
			if minq <= bk {
				p.bar[k] = e.lastLockFree(k, minq-1)
				next = append(next, k)
			}
		}
		for _, j := range moved {
			mark[j] = false
		}
		moved = next
	}
}

// knowingPos turns the answer of firstAboveIn into a position: never
// (-1) is past every position, and the clock before a goroutine's
// first event (position 0) counts as its first event.
func knowingPos(q int32) int32 {
	switch {
	case q < 0:
		return 1 << 30
	case q < 1:
		return 1
	default:
		return q
	}
}
