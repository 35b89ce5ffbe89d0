// This file implements the Universal Causality Graph (Kahlon and Wang,
// "Universal Causality Graphs", §3, Algorithm 1), for up to 64 candidates
// at once (§3.5: every edge carries the set of candidates whose graph it
// belongs to, as one bit per candidate in a uint64), with causality chains
// through any number of goroutines (§3.4), built only on the suffixes
// after each candidate's last causality barrier (§4, Theorem 4).
//
// Vertices are the window events that matter: lock acquires and releases,
// endpoints of fixed synchronisation and read-from edges, and the
// property's events. Edges are program order, seed edges (the property's,
// go/join and the fixed synchronisation of the CTP, and read-from into the
// reads a witness must keep — which every witness respects) and induced
// edges from locks. A causality chain from d to d' is a path of edges and
// program order; with it, the induction of Algorithm 1 (lines 13-15, read
// with §3.2's prose) is: if lock l is held at d or at d', the release of
// the last critical section of l at or before d must precede the acquire
// of the first critical section at or after d'. A critical section that a
// fixed goroutine (one that may not run past its bug event) leaves open
// must come last on its lock (lines 11-12). A cycle on a candidate's
// edges means no schedule can show it.
//
// Goroutines that may grow in a witness (to release a lock, say) are
// treated as such: a section they leave open in the graph might be closed
// later, so no rule assumes it stays open. Every edge is then implied by
// every witness, which makes the graph a sound filter.
//
// Contract: it reports nothing itself. It only rules out candidates
// (races and atomicity violations the sound layers left), each of whose
// graphs has a cycle; every candidate it keeps goes to the witness search
// (solve_encode.go), which builds the witness.

package predict

import (
	"sort"

	"github.com/seer-tools/seer/trace"
)

// maxUCG bounds the vertices of one graph (the closure is cubic).
const maxUCG = 224

// ucgResult is the verdict for one candidate of a batch.
type ucgResult byte

const (
	ucgFeasible ucgResult = iota
	ucgInfeasible
	ucgSkipped // too large: no verdict
)

type ucgGraph struct {
	e    *engine
	ps   []*plan
	vs   []int32         // vertex -> event
	vid  map[int32]int32 // event -> vertex
	ex   []uint64        // vertex -> candidates whose window holds it
	free []uint64        // vertex -> candidates for which its read-from is not kept
	fix  map[int32]uint64
	m    int
	E, R []uint64 // m*m label matrices: edges and their closure
	dead uint64
}

// ucgEnds returns the last position of goroutine g on plan p's paths:
// the body, and the tail events (the property's last events).
func ucgEnd(p *plan, g int32, c *ctp) int32 {
	end := p.cut[g]
	for _, t := range p.tail {
		if int32(c.ev[t].G) == g && c.pos[t] > end {
			end = c.pos[t]
		}
	}
	return end
}

// runUCG decides a batch of at most 64 candidates (their UCG plans).
func (e *engine) runUCG(ps []*plan) []ucgResult {
	res := make([]ucgResult, len(ps))
	g := &ucgGraph{e: e, ps: ps, vid: make(map[int32]int32), fix: make(map[int32]uint64)}
	if !g.vertices() {
		if len(ps) == 1 {
			res[0] = ucgSkipped
			return res
		}
		h := len(ps) / 2
		return append(e.runUCG(ps[:h]), e.runUCG(ps[h:])...)
	}
	g.seed()
	for {
		g.close()
		if !g.induce() {
			break
		}
	}
	for x := 0; x < g.m; x++ {
		g.dead |= g.R[x*g.m+x]
	}
	for i := range ps {
		if g.dead&(1<<uint(i)) != 0 {
			res[i] = ucgInfeasible
		}
	}
	return res
}

// inWindow reports whether event i lies on candidate k's paths after its
// barrier.
func (g *ucgGraph) inWindow(k int, i int32) bool {
	c := g.e.c
	p := g.ps[k]
	gr := int32(c.ev[i].G)
	pos := c.pos[i]
	return pos > p.bar[gr] && pos <= ucgEnd(p, gr, c)
}

// vertices picks the vertices; false if there are too many.
func (g *ucgGraph) vertices() bool {
	c := g.e.c
	add := func(i int32) {
		if _, ok := g.vid[i]; !ok {
			g.vid[i] = int32(len(g.vs))
			g.vs = append(g.vs, i)
		}
	}
	for k, p := range g.ps {
		for gr := range p.cut {
			gr := int32(gr)
			end := ucgEnd(p, gr, c)
			for q := p.bar[gr] + 1; q <= end; q++ {
				i := c.at(gr, q)
				if c.lockMode[i] != 0 {
					add(i)
				}
				g.edgesInto(k, i, func(u int32) { add(u); add(i) })
				if len(g.vs) > maxUCG {
					return false
				}
			}
		}
		for _, s := range p.seeds {
			add(s[0])
			add(s[1])
		}
		for _, t := range p.tail {
			add(t)
		}
	}
	if len(g.vs) > maxUCG {
		return false
	}
	// Order vertices by goroutine and position for program-order edges.
	sort.Slice(g.vs, func(a, b int) bool {
		ea, eb := &c.ev[g.vs[a]], &c.ev[g.vs[b]]
		if ea.G != eb.G {
			return ea.G < eb.G
		}
		return c.pos[g.vs[a]] < c.pos[g.vs[b]]
	})
	for v, i := range g.vs {
		g.vid[i] = int32(v)
	}
	g.m = len(g.vs)
	g.ex = make([]uint64, g.m)
	g.free = make([]uint64, g.m)
	for k, p := range g.ps {
		bit := uint64(1) << uint(k)
		for v, i := range g.vs {
			if g.inWindow(k, i) {
				g.ex[v] |= bit
			}
		}
		for _, t := range p.tail {
			g.free[g.vid[t]] |= bit
		}
		if p.free >= 0 {
			g.free[g.vid[p.free]] |= bit
		}
		for gr, f := range p.fixed {
			if f {
				g.fix[int32(gr)] |= bit
			}
		}
	}
	g.E = make([]uint64, g.m*g.m)
	return true
}

// edgesInto calls f for the cross-goroutine seed edges u -> i on candidate
// k's window: fixed synchronisation, go, join, and read-from into a read
// whose writer a witness keeps.
func (g *ucgGraph) edgesInto(k int, i int32, f func(u int32)) {
	c := g.e.c
	gi := c.ev[i].G
	c.sources(i, func(u int32) {
		if c.ev[u].G != gi && g.inWindow(k, u) {
			f(u)
		}
	})
	if g.e.keepsWriter(i) {
		for _, w := range g.e.m.writers(i) {
			if w >= 0 && c.ev[w].G != gi && g.inWindow(k, w) {
				f(w)
			}
		}
	}
}

func (g *ucgGraph) edge(u, v int32, l uint64) bool {
	x := &g.E[int(u)*g.m+int(v)]
	if *x|l == *x {
		return false
	}
	*x |= l
	return true
}

// seed adds program order and the seed edges.
func (g *ucgGraph) seed() {
	c := g.e.c
	for v := 1; v < g.m; v++ {
		if c.ev[g.vs[v]].G == c.ev[g.vs[v-1]].G {
			g.edge(int32(v-1), int32(v), g.ex[v-1]&g.ex[v])
		}
	}
	for v, i := range g.vs {
		c.sources(i, func(u int32) {
			if w, ok := g.vid[u]; ok && c.ev[u].G != c.ev[i].G {
				g.edge(w, int32(v), g.ex[w]&g.ex[v])
			}
		})
		if g.e.keepsWriter(i) {
			for _, u := range g.e.m.writers(i) {
				if w, ok := g.vid[u]; ok && u >= 0 && c.ev[u].G != c.ev[i].G {
					g.edge(w, int32(v), g.ex[w]&g.ex[v]&^g.free[v])
				}
			}
		}
	}
	for k, p := range g.ps {
		bit := uint64(1) << uint(k)
		for _, s := range p.seeds {
			g.edge(g.vid[s[0]], g.vid[s[1]], bit)
		}
	}
	g.openSections()
}

// lockVertex is a critical section seen from the graph.
type lockVertex struct {
	g        int32
	acq, rel int32 // vertices, -1 if not a vertex
	shared   bool
}

// sections returns, per lock, the critical sections with their acquire
// on the graph.
func (g *ucgGraph) sections() map[trace.ObjID][]lockVertex {
	c := g.e.c
	out := make(map[trace.ObjID][]lockVertex)
	for v, i := range g.vs {
		if m := c.lockMode[i]; m == 'w' || m == 'r' {
			gr := int32(c.ev[i].G)
			s, _ := c.section(gr, c.ev[i].Obj, c.pos[i])
			lv := lockVertex{g: gr, acq: int32(v), rel: -1, shared: s.shared}
			if s.rel != 0 {
				if r, ok := g.vid[c.at(gr, s.rel)]; ok {
					lv.rel = r
				}
			}
			out[c.ev[i].Obj] = append(out[c.ev[i].Obj], lv)
		}
	}
	return out
}

// openSections adds Algorithm 1's lines 11-12: a section that a fixed
// goroutine leaves open comes after every other section on the lock; two
// such sections cannot coexist.
func (g *ucgGraph) openSections() {
	for _, list := range g.sections() {
		for _, s := range list {
			open := g.ex[s.acq] & g.fix[s.g]
			if s.rel >= 0 {
				open &^= g.ex[s.rel]
			}
			if open == 0 {
				continue
			}
			for _, t := range list {
				if t.g == s.g || (t.shared && s.shared) {
					continue
				}
				if t.rel >= 0 {
					g.edge(t.rel, s.acq, open&g.ex[t.rel])
				}
				topen := g.ex[t.acq] & g.fix[t.g]
				if t.rel >= 0 {
					topen &^= g.ex[t.rel]
				}
				g.dead |= open & topen
			}
		}
	}
}

// close computes the transitive closure R of E (Floyd-Warshall over the
// semiring of candidate sets: a path exists for a candidate if every edge
// on it carries the candidate).
func (g *ucgGraph) close() {
	m := g.m
	if g.R == nil {
		g.R = make([]uint64, m*m)
	}
	copy(g.R, g.E)
	R := g.R
	for k := 0; k < m; k++ {
		rk := R[k*m : k*m+m]
		for i := 0; i < m; i++ {
			x := R[i*m+k]
			if x == 0 {
				continue
			}
			ri := R[i*m : i*m+m]
			for j, y := range rk {
				ri[j] |= x & y
			}
		}
	}
}

// induce adds the induced edges of Algorithm 1 (lines 13-15) for every
// causality chain d ⇝ d' of R; it reports whether any label was added.
func (g *ucgGraph) induce() bool {
	c := g.e.c
	m := g.m
	added := false
	for l := range g.sections() {
		// For each vertex: the section of l at or before it (j side) and
		// at or after it (i side).
		type side struct {
			held   bool
			v      int32 // release (j side) or acquire (i side) vertex, -1 if none
			shared bool
		}
		js := make([]side, m)
		is := make([]side, m)
		for v, ev := range g.vs {
			gr := int32(c.ev[ev].G)
			p := c.pos[ev]
			js[v], is[v] = side{v: -1}, side{v: -1}
			if s, ok := c.section(gr, l, p); ok {
				is[v] = side{held: true, v: -1, shared: s.shared}
				if a, ok := g.vid[c.at(gr, s.acq)]; ok {
					is[v].v = a
				}
				js[v] = side{held: true, v: -1, shared: s.shared}
				if s.rel != 0 {
					if r, ok := g.vid[c.at(gr, s.rel)]; ok {
						js[v].v = r
					}
				}
				continue
			}
			if s, ok := g.lastBefore(gr, l, p); ok {
				if r, ok := g.vid[c.at(gr, s.rel)]; ok {
					js[v] = side{v: r, shared: s.shared}
				}
			}
			if s, ok := g.firstAfter(gr, l, p); ok {
				if a, ok := g.vid[c.at(gr, s.acq)]; ok {
					is[v] = side{v: a, shared: s.shared}
				}
			}
		}
		for dj := 0; dj < m; dj++ {
			j := js[dj]
			if j.v < 0 {
				continue
			}
			row := g.R[dj*m : dj*m+m]
			for di := 0; di < m; di++ {
				lab := row[di]
				if lab == 0 || c.ev[g.vs[dj]].G == c.ev[g.vs[di]].G {
					continue
				}
				i := is[di]
				if i.v < 0 || !(j.held || i.held) || (j.shared && i.shared) {
					continue
				}
				if g.edge(j.v, i.v, lab&g.ex[j.v]&g.ex[i.v]) {
					added = true
				}
			}
		}
	}
	return added
}

// lastBefore returns the last section of l in goroutine gr released before
// position p.
func (g *ucgGraph) lastBefore(gr int32, l trace.ObjID, p int32) (csect, bool) {
	list := g.e.c.cs[gl{gr, l}]
	k := sort.Search(len(list), func(k int) bool { return list[k].acq >= p })
	if k == 0 {
		return csect{}, false
	}
	s := list[k-1]
	if s.rel == 0 || s.rel >= p {
		return csect{}, false
	}
	return s, true
}

// firstAfter returns the first section of l in goroutine gr acquired after
// position p.
func (g *ucgGraph) firstAfter(gr int32, l trace.ObjID, p int32) (csect, bool) {
	list := g.e.c.cs[gl{gr, l}]
	k := sort.Search(len(list), func(k int) bool { return list[k].acq > p })
	if k == len(list) {
		return csect{}, false
	}
	return list[k], true
}
