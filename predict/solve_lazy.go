// This file implements the lazy treatment of transitivity in the witness
// search (design notes on gini: "solve, find a cycle in the chosen orders,
// add the clause breaking it, repeat"; the order-matrix encoding of Yang,
// Gopalakrishnan and Lindstrom, Appendix A, without its cubic
// transitivity clauses): the solve loop, the topological order that
// becomes the schedule, and cycle extraction.

package predict

import (
	"container/heap"
	"time"
)

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
	// Depth-first search over the nodes Kahn could not order: they hold a
	// cycle, and a full search of them finds a back edge.
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

// schedule is a witness in Finding's compact form: the events below
// prefix in the goroutines' prefixes (goroutines in stops run up to that
// event), then window.
type schedule struct {
	prefix int
	stops  []int
	window []int
}

// witness assembles the schedule: the prefix (each goroutine's events up
// to its barrier, in observed order), the window in the found order, then
// the tail. The prefix is described, not listed: it ends at the last
// prefix event, and a goroutine that has no window or tail event but
// events before that beyond its barrier stops at its barrier.
func (enc *encoder) witness(order []int32) *schedule {
	c, p := enc.e.c, enc.p
	last := int32(-1)
	for g, b := range p.bar {
		if b > 0 && c.byG[g][b-1] > last {
			last = c.byG[g][b-1]
		}
	}
	s := &schedule{prefix: int(last) + 1, window: make([]int, 0, len(order)+len(p.tail))}
	for _, u := range order {
		s.window = append(s.window, int(enc.nodes[u]))
	}
	for _, x := range p.tail {
		s.window = append(s.window, int(x))
	}
	for g, evs := range c.byG {
		b := p.bar[g]
		if int(b) >= len(evs) || evs[b] > last || p.cut[g] > b {
			continue // nothing of g left out below the prefix, or g has window events
		}
		tail := false
		for _, x := range p.tail {
			tail = tail || int(c.ev[x].G) == g
		}
		if !tail {
			s.stops = append(s.stops, int(evs[b]))
		}
	}
	return s
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
