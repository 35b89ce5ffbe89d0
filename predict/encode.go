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
	"container/heap"
	"sort"
	"time"
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
func (e *engine) search(p *plan) (encResult, []int32) {
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
		if c.acqIdx[i] >= 0 && !c.ev[i].Op.IsAtomic() {
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
	src := c.acqs[c.acqIdx[v]]
	for _, m := range src.merges {
		if src.rel >= 0 {
			enc.edge(src.rel, m)
		}
	}
	for _, x := range rs {
		if x == src.rel || containsI32(src.merges, x) || x == v {
			continue
		}
		if src.rel < 0 {
			enc.edge(v, x)
		} else {
			enc.or(enc.before(x, src.rel), enc.before(v, x))
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
	by := make(map[any][]sect)
	for _, i := range enc.nodes {
		if m := c.lockMode[i]; m == 'w' || m == 'r' {
			g := int32(c.ev[i].G)
			s, _ := c.section(g, c.ev[i].Obj, c.pos[i])
			x := sect{g: g, acq: i, rel: -1, shared: s.shared}
			if s.rel != 0 && s.rel <= enc.p.cut[g] {
				x.rel = c.at(g, s.rel)
			}
			by[c.ev[i].Obj] = append(by[c.ev[i].Obj], x)
		}
	}
	for _, list := range by {
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

// solve runs the lazy loop.
func (enc *encoder) solve() (encResult, []int32) {
	n := len(enc.nodes)
	var s *solver
	lits := make([][2]lit, len(enc.cls))
	if len(enc.cls) > 0 {
		s = newSolver(len(enc.cls), len(enc.cls))
		for k, cl := range enc.cls {
			lits[k] = [2]lit{enc.lit(s, cl[0]), enc.lit(s, cl[1])}
			s.clause(lits[k][0], lits[k][1])
		}
	}
	deadline := time.Now().Add(enc.e.opts.SolveTimeout)
	for iter := 0; iter < 5000; iter++ {
		chosen := make([]lit, 0, len(enc.cls))
		extra := make([][]edgeTag, n)
		if s != nil {
			switch s.solve(enc.e.ctx, time.Until(deadline)) {
			case satNo:
				return encInfeasible, nil
			case satUnknown:
				return encUnknown, nil
			}
			for k, cl := range enc.cls {
				t, l := cl[0], lits[k][0]
				if !s.value(l) {
					t, l = cl[1], lits[k][1]
				}
				extra[enc.node[t.x]] = append(extra[enc.node[t.x]], edgeTag{enc.node[t.y], int32(len(chosen))})
				chosen = append(chosen, l)
			}
		}
		cyc, order := enc.topo(extra)
		if cyc == nil {
			return encWitness, order
		}
		if len(cyc) == 0 || s == nil {
			return encInfeasible, nil // a cycle of fixed edges
		}
		for _, k := range cyc {
			s.g.Add(chosen[k].Not())
		}
		s.g.Add(0)
	}
	return encUnknown, nil
}

// lit returns the literal for a non-constant term.
func (enc *encoder) lit(s *solver, t term) lit {
	x, y := t.x, t.y
	neg := false
	if y < x {
		x, y, neg = y, x, true
	}
	l, ok := enc.pairs[[2]int32{x, y}]
	if !ok {
		l = s.fresh()
		enc.pairs[[2]int32{x, y}] = l
	}
	if neg {
		return l.Not()
	}
	return l
}

type edgeTag struct{ to, tag int32 }

// topo orders the window by fixed and chosen edges, preferring observed
// order; if there is a cycle it returns the tags of the chosen edges on
// one (an empty, non-nil slice if it uses fixed edges only).
func (enc *encoder) topo(extra [][]edgeTag) ([]int32, []int32) {
	n := len(enc.nodes)
	indeg := make([]int32, n)
	for u := 0; u < n; u++ {
		for _, v := range enc.succ[u] {
			indeg[v]++
		}
		for _, t := range extra[u] {
			indeg[t.to]++
		}
	}
	h := &nodeHeap{ev: enc.nodes}
	for u := 0; u < n; u++ {
		if indeg[u] == 0 {
			h.items = append(h.items, int32(u))
		}
	}
	heap.Init(h)
	order := make([]int32, 0, n)
	for h.Len() > 0 {
		u := heap.Pop(h).(int32)
		order = append(order, u)
		dec := func(v int32) {
			if indeg[v]--; indeg[v] == 0 {
				heap.Push(h, v)
			}
		}
		for _, v := range enc.succ[u] {
			dec(v)
		}
		for _, t := range extra[u] {
			dec(t.to)
		}
	}
	if len(order) == n {
		return nil, order
	}
	return enc.cycle(extra, indeg), nil
}

// cycle finds a cycle among the nodes left with positive in-degree and
// returns the tags of its chosen edges.
func (enc *encoder) cycle(extra [][]edgeTag, indeg []int32) []int32 {
	n := len(enc.nodes)
	// Walk backwards? Simpler: DFS restricted to remaining nodes.
	color := make([]byte, n)
	parent := make([]int32, n)
	ptag := make([]int32, n)
	type frame struct {
		u    int32
		next int
	}
	for s := 0; s < n; s++ {
		if indeg[s] <= 0 || color[s] != 0 {
			continue
		}
		stack := []frame{{int32(s), 0}}
		color[s] = 1
		parent[s] = -1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			u := f.u
			ns := len(enc.succ[u])
			if f.next >= ns+len(extra[u]) {
				color[u] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			var v, tag int32
			if f.next < ns {
				v, tag = enc.succ[u][f.next], -1
			} else {
				t := extra[u][f.next-ns]
				v, tag = t.to, t.tag
			}
			f.next++
			if indeg[v] <= 0 {
				continue
			}
			switch color[v] {
			case 0:
				color[v] = 1
				parent[v], ptag[v] = u, tag
				stack = append(stack, frame{v, 0})
			case 1:
				tags := []int32{}
				if tag >= 0 {
					tags = append(tags, tag)
				}
				for w := u; w != v; w = parent[w] {
					if ptag[w] >= 0 {
						tags = append(tags, ptag[w])
					}
				}
				return tags
			}
		}
	}
	return []int32{}
}

// witness assembles the schedule: prefix in observed order, the window in
// the found order, then the tail.
func (enc *encoder) witness(order []int32) []int32 {
	c, p := enc.e.c, enc.p
	n := 0
	last := int32(-1)
	for g, b := range p.bar {
		n += int(b)
		if b > 0 && c.byG[g][b-1] > last {
			last = c.byG[g][b-1]
		}
	}
	out := make([]int32, 0, n+len(order)+len(p.tail))
	for i := int32(0); i <= last; i++ {
		if c.pos[i] <= p.bar[c.ev[i].G] {
			out = append(out, i)
		}
	}
	for _, u := range order {
		out = append(out, enc.nodes[u])
	}
	return append(out, p.tail...)
}

type nodeHeap struct {
	items []int32
	ev    []int32
}

func (h *nodeHeap) Len() int           { return len(h.items) }
func (h *nodeHeap) Less(a, b int) bool { return h.ev[h.items[a]] < h.ev[h.items[b]] }
func (h *nodeHeap) Swap(a, b int)      { h.items[a], h.items[b] = h.items[b], h.items[a] }
func (h *nodeHeap) Push(x any)         { h.items = append(h.items, x.(int32)) }
func (h *nodeHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

func containsI32(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
