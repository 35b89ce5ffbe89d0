// This file implements the witness search for one plan: the constraints of
// the maximal causal model (Şerbănuţă, Chen and Roşu, Theorem 2; the
// encodings of RVPredict and MCR, soundness-of-predictive-analyses §6.2-6.3)
// restricted to the chopped window, decided with gini.
//
// The events before the causality barrier run first, in observed order
// (a valid computation that ends with no lock held). The window is
// ordered by the solver. Fixed orderings (program order, the CTP's fixed
// synchronisation, go/join, the writer of every read whose value matters,
// and the candidate's own orderings) are graph edges. Choices are pair
// literals, one per unordered pair of window events that a constraint
// mentions ("x before y"): lock mutual exclusion (release of one section
// before the acquire of the other, or the reverse; an open section last)
// and read-from preservation (any other write to the bytes a kept read
// reads comes before its writer or after the read; the same for the
// release that an acquire synchronises with). Transitivity is lazy, as the
// design notes ask: solve, take one true literal per clause, look for a
// cycle among those edges and the fixed ones, and if there is one add the
// clause that forbids that combination; repeat. An acyclic choice is a
// witness: a topological order (observed order breaking ties) followed by
// the bug events.

package predict

import (
	"sort"

	"github.com/seer-tools/seer/trace"
)

// encResult is the outcome of a witness search.
type encResult int

const (
	encUnknown encResult = iota
	encWitness
	encInfeasible
)

// term is one side of a binary constraint: "x before y", resolved to a
// constant when the order is fixed.
type term struct {
	konst int8 // 1 true, -1 false, 0 literal
	x, y  int32
}

type encoder struct {
	e     *engine
	p     *plan
	nodes []int32         // window events
	node  map[int32]int32 // event -> node
	succ  [][]int32       // fixed edges
	pairs map[[2]int32]lit
	cls   [][2]term
	bad   bool            // infeasible
	move  map[int32]int32 // goroutine -> barrier must be at most this
}

// search looks for a witness for plan p. The plan's barriers may move
// back when the prefix would break a kept read.
func (e *engine) search(p *plan) (encResult, *schedule) {
	for round := 0; round < 8; round++ {
		enc := &encoder{e: e, p: p, node: make(map[int32]int32), pairs: make(map[[2]int32]lit), move: make(map[int32]int32)}
		if !enc.window() {
			return encUnknown, nil
		}
		enc.constraints()
		if enc.bad {
			return encInfeasible, nil
		}
		if len(enc.move) > 0 {
			var active []int32
			for g, b := range enc.move {
				if b < p.bar[g] {
					p.bar[g] = b
				}
			}
			for g := range p.cut {
				if p.cut[g] > 0 {
					active = append(active, int32(g))
				}
			}
			e.settle(p, active)
			continue
		}
		r, order := enc.solve()
		if r != encWitness {
			return r, nil
		}
		return encWitness, enc.witness(order)
	}
	return encUnknown, nil
}

func (enc *encoder) inPrefix(i int32) bool {
	c := enc.e.c
	return c.pos[i] <= enc.p.bar[c.ev[i].G]
}

func (enc *encoder) inBody(i int32) bool {
	c := enc.e.c
	return c.pos[i] <= enc.p.cut[c.ev[i].G]
}

// window collects the window's events; false if it is too large.
func (enc *encoder) window() bool {
	c, p := enc.e.c, enc.p
	for g := range p.cut {
		for q := p.bar[g] + 1; q <= p.cut[g]; q++ {
			i := c.at(int32(g), q)
			enc.node[i] = int32(len(enc.nodes))
			enc.nodes = append(enc.nodes, i)
		}
		if len(enc.nodes) > enc.e.opts.MaxWindow {
			return false
		}
	}
	enc.succ = make([][]int32, len(enc.nodes))
	return true
}

// before returns the term "x before y" for body events x, y.
func (enc *encoder) before(x, y int32) term {
	c := enc.e.c
	px, py := enc.inPrefix(x), enc.inPrefix(y)
	switch {
	case x == y:
		return term{konst: -1}
	case px && py:
		if x < y {
			return term{konst: 1}
		}
		return term{konst: -1}
	case px:
		return term{konst: 1}
	case py:
		return term{konst: -1}
	case c.ev[x].G == c.ev[y].G:
		if c.pos[x] < c.pos[y] {
			return term{konst: 1}
		}
		return term{konst: -1}
	case enc.e.mhb.before(x, y):
		return term{konst: 1}
	case enc.e.mhb.before(y, x):
		return term{konst: -1}
	}
	return term{x: x, y: y}
}

// edge adds the fixed ordering x before y (body events). It adds the
// graph edge even when must-happen-before already orders the two: the
// edges are what enforce must-happen-before in the window.
func (enc *encoder) edge(x, y int32) {
	c := enc.e.c
	px, py := enc.inPrefix(x), enc.inPrefix(y)
	switch {
	case x == y:
		enc.bad = true
	case px && py:
		if x > y {
			enc.need(x, y)
		}
	case px:
	case py:
		enc.need(x, y)
	case c.ev[x].G == c.ev[y].G:
		if c.pos[x] > c.pos[y] {
			enc.bad = true
		}
	default:
		enc.succ[enc.node[x]] = append(enc.succ[enc.node[x]], enc.node[y])
	}
}

// need handles a required "x before y" that the prefix contradicts: y is
// in the prefix but must follow x, so y's goroutine's barrier must move
// back before y. If that cannot help (same goroutine, or x in the prefix
// after y), the plan is infeasible.
func (enc *encoder) need(x, y int32) {
	c := enc.e.c
	if c.ev[x].G == c.ev[y].G || !enc.inPrefix(y) || enc.e.opts.NoChop {
		enc.bad = true
		return
	}
	g := int32(c.ev[y].G)
	b := enc.e.lastLockFree(g, c.pos[y]-1)
	if old, ok := enc.move[g]; !ok || b < old {
		enc.move[g] = b
	}
}

// or adds the constraint "a or b".
func (enc *encoder) or(a, b term) {
	switch {
	case a.konst == 1 || b.konst == 1:
	case a.konst == -1 && b.konst == -1:
		// Both orders are fixed the wrong way; if the prefix fixed them,
		// moving a barrier may help.
		if enc.inPrefix(a.y) && !enc.inPrefix(a.x) {
			enc.need(a.x, a.y)
		} else if enc.inPrefix(b.y) && !enc.inPrefix(b.x) {
			enc.need(b.x, b.y)
		} else {
			enc.bad = true
		}
	case a.konst == -1:
		enc.edge(b.x, b.y)
	case b.konst == -1:
		enc.edge(a.x, a.y)
	default:
		enc.cls = append(enc.cls, [2]term{a, b})
	}
}

// constraints encodes the window.
func (enc *encoder) constraints() {
	e, c, p := enc.e, enc.e.c, enc.p
	writes := make(map[int32][]int32)    // location -> window writes
	releases := make(map[uint64][]int32) // sync address -> window releases
	for _, i := range enc.nodes {
		if isWrite(c.ev[i].Op) && e.m.shared(i) {
			writes[e.m.loc[i]] = append(writes[e.m.loc[i]], i)
		}
		if k := c.syncKind(int(i)); k.Releases() && !c.ev[i].Op.IsAtomic() {
			a := c.syncAddr(int(i))
			releases[a] = append(releases[a], i)
		}
	}
	for k, i := range enc.nodes {
		if k > 0 && c.ev[enc.nodes[k-1]].G == c.ev[i].G {
			enc.succ[k-1] = append(enc.succ[k-1], int32(k))
		}
		c.sources(i, func(u int32) {
			if !enc.inBody(u) {
				enc.bad = true // the cone is closed: cannot happen
				return
			}
			enc.edge(u, i)
		})
		if i != p.free && e.keepsWriter(i) {
			enc.readFrom(i, writes[e.m.loc[i]])
		}
		if c.acqIdx(int32(i)) >= 0 && !c.ev[i].Op.IsAtomic() {
			a := c.syncAddr(int(i))
			enc.syncFrom(i, a, releases[a])
		}
	}
	for _, b := range p.before {
		if enc.inBody(b[0]) && enc.inBody(b[1]) {
			enc.edge(b[0], b[1])
		}
	}
	enc.locks()
}

// readFrom keeps the writers of read v: each writer before v, and every
// other write to a byte v reads either before that byte's writer or after
// v.
func (enc *encoder) readFrom(v int32, ws []int32) {
	e, c := enc.e, enc.e.c
	rv := &c.ev[v]
	wr := e.m.writers(v)
	for _, w := range wr {
		if w < 0 {
			continue
		}
		if !enc.inBody(w) {
			enc.bad = true
			return
		}
		enc.edge(w, v)
	}
	// byteWriter: the latest of v's writers that covers address a.
	byteWriter := func(a uint64) int32 {
		best := int32(-1)
		for _, w := range wr {
			if w >= 0 && c.ev[w].Addr <= a && a < c.ev[w].End() && w > best {
				best = w
			}
		}
		return best
	}
	for _, x := range ws {
		ex := &c.ev[x]
		if x == v || !overlap(ex.Addr, ex.Size, rv.Addr, rv.Size) {
			continue
		}
		lo, hi := max(ex.Addr, rv.Addr), min(ex.End(), rv.End())
		var seen []int32
		for a := lo; a < hi; a++ {
			wb := byteWriter(a)
			if wb == x || containsI32(seen, wb) {
				continue
			}
			seen = append(seen, wb)
			if wb < 0 {
				enc.edge(v, x)
			} else {
				enc.or(enc.before(x, wb), enc.before(v, x))
			}
		}
	}
	// Writes in the prefix that the run made after v would come first.
	for _, g := range e.writerGoroutines(e.m.loc[v]) {
		if enc.p.bar[g] == 0 {
			continue
		}
		list := e.writesOf(e.m.loc[v], g)
		k := sort.Search(len(list), func(k int) bool { return list[k] > v })
		for ; k < len(list) && c.pos[list[k]] <= enc.p.bar[g]; k++ {
			x := list[k]
			if overlap(c.ev[x].Addr, c.ev[x].Size, rv.Addr, rv.Size) {
				enc.need(v, x)
				break
			}
		}
	}
}

// syncFrom keeps what acquire v synchronises with: every other release on
// its address in the body comes before v's release or after v.
func (enc *encoder) syncFrom(v int32, a uint64, rs []int32) {
	e, c := enc.e, enc.e.c
	rel, merges := c.acq(c.acqIdx(v))
	for _, m := range merges {
		if rel >= 0 {
			enc.edge(rel, m)
		}
	}
	for _, x := range rs {
		if x == rel || containsI32(merges, x) || x == v {
			continue
		}
		if rel < 0 {
			enc.edge(v, x)
		} else {
			enc.or(enc.before(x, rel), enc.before(v, x))
		}
	}
	for _, g := range e.releaserGoroutines(a) {
		if enc.p.bar[g] == 0 {
			continue
		}
		list := e.releasesOf(a, g)
		k := sort.Search(len(list), func(k int) bool { return list[k] > v })
		if k < len(list) && c.pos[list[k]] <= enc.p.bar[g] {
			enc.need(v, list[k])
		}
	}
}

// locks encodes mutual exclusion between the window's critical sections.
func (enc *encoder) locks() {
	c := enc.e.c
	type sect struct {
		g        int32
		acq, rel int32 // events; rel -1 if open in the body
		shared   bool
	}
	by := make(map[trace.ObjID][]sect)
	var objs []trace.ObjID // in order of first appearance: deterministic clauses
	for _, i := range enc.nodes {
		if m := c.lockMode[i]; m == 'w' || m == 'r' {
			g := int32(c.ev[i].G)
			s, _ := c.section(g, c.ev[i].Obj, c.pos[i])
			x := sect{g: g, acq: i, rel: -1, shared: s.shared}
			if s.rel != 0 && s.rel <= enc.p.cut[g] {
				x.rel = c.at(g, s.rel)
			}
			if len(by[c.ev[i].Obj]) == 0 {
				objs = append(objs, c.ev[i].Obj)
			}
			by[c.ev[i].Obj] = append(by[c.ev[i].Obj], x)
		}
	}
	for _, l := range objs {
		list := by[l]
		for x := 0; x < len(list); x++ {
			for y := x + 1; y < len(list); y++ {
				s, t := list[x], list[y]
				if s.g == t.g || (s.shared && t.shared) {
					continue
				}
				switch {
				case s.rel < 0 && t.rel < 0:
					enc.bad = true
				case s.rel < 0:
					enc.edge(t.rel, s.acq)
				case t.rel < 0:
					enc.edge(s.rel, t.acq)
				default:
					enc.or(enc.before(s.rel, t.acq), enc.before(t.rel, s.acq))
				}
			}
		}
	}
}

func containsI32(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
