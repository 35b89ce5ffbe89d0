// This file implements the SC and TSO checks' last step at scale, by the
// paper's own route (Zennou, Bouajjani, Enea and Erradi, "Gradual
// Consistency Checking", CAV 2019, §3.3 Algorithm 1 and §4.2 Algorithm
// 2): extend the partial store order that CCM (wCCM) leaves, pww (wpww),
// to a total one, deciding only the pairs of writes it leaves unordered.
//
// The paper enumerates the extensions of pww; here they are searched:
//
//  1. Saturation. The store order is kept per key as its transitive
//     closure (a bit row per write), starting from pww's. The model's
//     graphs (SC: po ∪ wr ∪ ww ∪ rw[ww]; TSO: po-loc ∪ wr ∪ ww ∪ rw[ww]
//     and ppo ∪ wr_e ∪ ww ∪ rw[ww], as in sat.go) are built over the
//     order's covering pairs, with reachability as clocks (graph.go).
//     Two rules force a pair a, b of writes to one key, as every store
//     order that keeps the graphs acyclic has it: a ⇝ b in a graph
//     (else b ww a closes a cycle), and a ⇝ r in a graph for a read r of
//     b (else r rw a closes one). The forced pairs join the order and
//     the graphs are rebuilt until nothing is forced. A cycle on the way
//     proves the history inconsistent: each of its edges is a rule or a
//     forced pair.
//  2. Search (schedule.go). With the saturated order, a depth-first
//     search builds the execution itself: SC's interleaving, or TSO's
//     memory order (a read sees its process's last earlier write to the
//     key while that write is not yet in memory, else memory), along
//     the graph, remembering the sets of operations that failed. The
//     store order it commits to is one extension of the saturated one.
//     An execution it completes is the witness of consistency,
//     re-checked by witness.go, which shares no code with the graphs; a
//     search that fails within its bound proves that no extension
//     exists.
//  3. A search that reaches its bound proves nothing: the SAT encoding
//     of sat.go decides, with every saturated pair fixed as a unit
//     clause (sound: every store order that explains the reads has
//     them), and a satisfying store order is scheduled again into a
//     witness.

package consistency

import (
	"cmp"
	"math/bits"
	"slices"
)

// extender completes the partial store order of one SC or TSO check.
type extender struct {
	c      *checker
	g      *hg
	m      Model
	ords   []order            // the model's graphs, by their program order
	wrs    []func(int32) bool // which reads' wr edge each graph has
	sched  int                // the graph the schedule follows
	writes [][]int32          // per key, its writes (the initial write first)
	index  []int32            // per write node, its index in writes[key]
	reads  [][]int32          // per write node, the reads of it
	after  [][]uint64         // per key: row i holds j when writes[i] precedes writes[j]
	words  []int              // per key, the words of a row
	// the graphs of the last build, and their clocks
	graphs []*graphIn
	vcs    [][]int32
}

func newExtender(c *checker, m Model) *extender {
	g := c.g
	x := &extender{c: c, g: g, m: m}
	all := func(int32) bool { return true }
	if m == TSO {
		x.ords = []order{{kind: oLoc, g: g, entry: true}, {kind: oPPO, g: g, entry: true}}
		x.wrs = []func(int32) bool{all, c.external}
		x.sched = 1
	} else {
		x.ords = []order{c.po}
		x.wrs = []func(int32) bool{all}
	}
	x.writes = make([][]int32, len(g.keys))
	x.index = make([]int32, len(g.nodes))
	x.reads = make([][]int32, len(g.nodes))
	for v := range int32(len(g.nodes)) {
		nd := &g.nodes[v]
		if nd.write {
			x.index[v] = int32(len(x.writes[nd.key]))
			x.writes[nd.key] = append(x.writes[nd.key], v)
		} else if nd.src >= 0 {
			x.reads[nd.src] = append(x.reads[nd.src], v)
		}
	}
	x.after = storeClosure(x.writes, x.index, c.pwwOut)
	x.words = make([]int, len(x.writes))
	for k, ws := range x.writes {
		x.words[k] = (len(ws) + 63) / 64
	}
	return x
}

// storeClosure returns, per key, the transitive closure of the partial
// store order that out generates (by source), as bit rows over the
// key's writes. The order must be acyclic (ccm and wccm checked it).
func storeClosure(writes [][]int32, index []int32, out [][]int32) [][]uint64 {
	after := make([][]uint64, len(writes))
	for k, ws := range writes {
		n := len(ws)
		words := (n + 63) / 64
		reach := make([]uint64, n*words)
		done := make([]bool, n)
		var visit func(i int)
		visit = func(i int) {
			done[i] = true
			ri := reach[i*words : (i+1)*words]
			for _, s := range out[ws[i]] {
				j := int(index[s])
				if !done[j] {
					visit(j)
				}
				ri[j/64] |= 1 << (j % 64)
				for x, w := range reach[j*words : (j+1)*words] {
					ri[x] |= w
				}
			}
		}
		for i := range n {
			if !done[i] {
				visit(i)
			}
		}
		after[k] = reach
	}
	return after
}

// before reports whether write i precedes write j in key k's order.
func (x *extender) before(k, i, j int) bool {
	w := x.words[k]
	return x.after[k][i*w+j/64]>>(j%64)&1 == 1
}

// order adds "i before j" to key k's order and closes it. It reports
// false, adding nothing, when j already precedes i.
func (x *extender) order(k, i, j int) bool {
	if x.before(k, j, i) {
		return false
	}
	w := x.words[k]
	rows := x.after[k]
	rj := rows[j*w : (j+1)*w]
	for p := range len(x.writes[k]) {
		if p != i && !x.before(k, p, i) {
			continue
		}
		rp := rows[p*w : (p+1)*w]
		for t, b := range rj {
			rp[t] |= b
		}
		rp[j/64] |= 1 << (j % 64)
	}
	return true
}

// covers returns, per write node, its immediate successors in its key's
// order (the pairs not implied by others).
func (x *extender) covers() [][]int32 {
	succ := make([][]int32, len(x.g.nodes))
	for k, ws := range x.writes {
		n := len(ws)
		// Earlier writes have strictly more successors.
		cnt := make([]int, n)
		w := x.words[k]
		for i := range n {
			for _, b := range x.after[k][i*w : (i+1)*w] {
				cnt[i] += bits.OnesCount64(b)
			}
		}
		topo := make([]int, n)
		for i := range topo {
			topo[i] = i
		}
		slices.SortFunc(topo, func(a, b int) int { return cmp.Compare(cnt[b], cnt[a]) })
		pos := make([]int, n)
		for p, i := range topo {
			pos[i] = p
		}
		covered := make([]uint64, w)
		for i := range n {
			clear(covered)
			for _, j := range topo[pos[i]+1:] {
				if !x.before(k, i, j) || covered[j/64]>>(j%64)&1 == 1 {
					continue
				}
				succ[ws[i]] = append(succ[ws[i]], ws[j])
				for t, b := range x.after[k][j*w : (j+1)*w] {
					covered[t] |= b
				}
			}
		}
	}
	return succ
}

// build makes the model's graphs over the current order and their
// clocks. It returns a cycle and the index of its graph when one is
// cyclic.
func (x *extender) build() ([]cedge, int) {
	g := x.g
	succ := x.covers()
	wwIn := make([][]edge, len(g.nodes))
	rwIn := make([][]edge, len(g.nodes))
	for w, ss := range succ {
		for _, s := range ss {
			wwIn[s] = append(wwIn[s], edge{from: int32(w), kind: eWW})
			for _, r := range x.reads[w] {
				rwIn[s] = append(rwIn[s], edge{from: r, kind: eRW, aux: int32(w)})
			}
		}
	}
	x.graphs = x.graphs[:0]
	x.vcs = x.vcs[:0]
	for i := range x.ords {
		ord, wr := x.ords[i], x.wrs[i]
		gi := g.makeGraph(&ord, func(v int32, add func(edge)) {
			if nd := &g.nodes[v]; !nd.write && nd.src >= 0 && wr(v) {
				add(edge{from: nd.src, kind: eWR})
			}
			for _, e := range wwIn[v] {
				add(e)
			}
			for _, e := range rwIn[v] {
				add(e)
			}
		})
		vc, cyc := g.clocks(ord, gi)
		if cyc != nil {
			return cyc, i
		}
		x.graphs = append(x.graphs, gi)
		x.vcs = append(x.vcs, vc)
	}
	return nil, 0
}

// reaches reports whether a ⇝ b in graph i of the last build.
func (x *extender) reaches(i int, a, b int32) bool {
	ord := x.ords[i]
	return ord.has(row(x.vcs[i], ord.comps(), b), a)
}

// forced reports whether every store order that keeps the graphs
// acyclic puts write a before write b.
func (x *extender) forced(a, b int32) bool {
	for i := range x.ords {
		if x.reaches(i, a, b) {
			return true
		}
		for _, r := range x.reads[b] {
			if x.reaches(i, a, r) {
				return true
			}
		}
	}
	return false
}

// force adds every forced pair that the order lacks and reports whether
// it changed anything.
func (x *extender) force() bool {
	changed := false
	for k, ws := range x.writes {
		for i := range ws {
			for j := i + 1; j < len(ws); j++ {
				if x.before(k, i, j) || x.before(k, j, i) {
					continue
				}
				a, b := ws[i], ws[j]
				switch {
				case x.forced(a, b):
					x.order(k, i, j)
					changed = true
				case x.forced(b, a):
					x.order(k, j, i)
					changed = true
				}
			}
		}
	}
	return changed
}

// saturate adds forced pairs until none is left. It returns a cycle, and
// its graph's index, when the graphs cannot be kept acyclic.
func (x *extender) saturate() ([]cedge, int) {
	for {
		if cyc, i := x.build(); cyc != nil {
			return cyc, i
		}
		if !x.force() {
			return nil, 0
		}
	}
}

// refs names the operations of a schedule.
func (x *extender) refs(trace []int32) []OpRef {
	out := make([]OpRef, len(trace))
	for i, v := range trace {
		out[i] = x.g.ref(v)
	}
	return out
}

// free returns how many pairs of writes to one key the order leaves
// unordered, and how many there are.
func (x *extender) free() (free, pairs int) {
	for k, ws := range x.writes {
		n := len(ws)
		pairs += n * (n - 1) / 2
		fixed := 0
		for _, w := range x.after[k] {
			fixed += bits.OnesCount64(w)
		}
		free += n*(n-1)/2 - fixed
	}
	return free, pairs
}

// violation explains a cycle that saturation found in graph gi.
func (x *extender) violation(cyc []cedge, gi int, name string) *Violation {
	rel := "po"
	if x.m == TSO {
		rel = [...]string{"po-loc", "ppo"}[gi]
	}
	steps := x.g.steps(cyc, rel)
	for i := range steps {
		if steps[i].Rel == "ww" {
			steps[i].Why = "every store order that explains the reads has it (" + name + ", or forced by the graph)"
		}
	}
	return &Violation{Model: x.m, Cycle: steps,
		Msg: "no store order of the writes to each key explains every read: every extension of " + name + " closes a cycle"}
}

// witnessOf schedules the total store order of the solver's model, or
// returns nil when that is not a witness (it then has none to show).
func (x *extender) witnessOf(e *satEnc) []OpRef {
	succ := e.storeOrder()
	for k, ws := range x.writes {
		clear(x.after[k])
		// ws[0], the initial write, is first (its rule is on); follow
		// succ from it.
		var chain []int32
		for v := ws[0]; v >= 0; v = succ[v] {
			chain = append(chain, v)
		}
		if len(chain) != len(ws) {
			return nil
		}
		for i := len(chain) - 1; i > 0; i-- {
			x.order(k, int(x.index[chain[i-1]]), int(x.index[chain[i]]))
		}
	}
	if cyc, _ := x.build(); cyc != nil {
		return nil
	}
	trace, _ := x.schedule()
	if trace == nil {
		return nil
	}
	w := x.refs(trace)
	if VerifyWitness(x.g.h, x.m, w) != nil {
		return nil
	}
	return w
}
