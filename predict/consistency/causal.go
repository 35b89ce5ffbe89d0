// This file implements the causal criteria of "Gradual Consistency
// Checking" (Zennou, Bouajjani, Enea, Erradi), §3.1-3.2, in polynomial
// time: CC, CCv, CM and CCM.
//
// co = (po ∪ wr)+ is kept as vector clocks over the processes (graph.go),
// so that "is w in the causal past of r" is one comparison and "the
// writes to x in r's causal past" are, per process, a prefix of its
// writes to x. Where a definition relates every write of such a set to
// something, one edge from the prefix's last write stands for all of them
// (the others reach it by po). Costs, for n operations and p processes:
//
//   - CC: the bad patterns of Bouajjani et al. (POPL 2017) that the
//     paper's prose describes: po ∪ wr acyclic, no thin-air read, and no
//     read r of w with a write w' to its key such that w co w' co r. The
//     formula as printed (po ∪ wr ∪ rw[co] acyclic) is stronger than the
//     prose: it rejects the paper's own Figures 1c and 3, which are CM
//     and CCv. O(n·p·log n).
//   - CCv: CC and po ∪ wr ∪ cf acyclic, cf without self-pairs. O(n·p·log n).
//   - CM: CC and hb_o acyclic for every o. hb_o grows along po (its
//     rules only look at o's causal past and at the reads po-before o),
//     so hb_o of each process's last operation stands for all of the
//     process's; each is a least fixpoint: compute the clocks of
//     po ∪ wr ∪ E, add to E the rule-2 edges w → w' for each read of the
//     process reading w' with a write w to its key hb-before it, repeat
//     until nothing is added. O(p·i·n·p) for i rounds (a handful).
//   - CCM: hb is the closure of po ∪ wr and every process's E; the
//     partial store order pww is generated per key by hb's writes and
//     cf[hb], one edge per process each; rw[pww] needs only an edge to
//     each generator-successor of the write read from, the rest follows
//     by the generators. O(n·p·log n) after CM.

package consistency

import "fmt"

type checker struct {
	g  *hg
	po order
	// co: the clocks of po ∪ wr (cc).
	coGraph *graphIn
	coVC    []int32
	// hbIn: every process's causal memory edges (cm), by target.
	hbIn [][]edge
	// pwwOut: the generators of the partial store order, by source
	// (ccm or wccm).
	pwwOut [][]int32
	// bound limits the solver (bound.go); nil: no bound.
	bound *bound
}

func newChecker(g *hg) *checker {
	return &checker{g: g, po: order{kind: oPO, g: g, entry: true}}
}

// wrEdges adds v's write-read edge.
func (c *checker) wrEdges(v int32, add func(edge)) {
	if nd := &c.g.nodes[v]; !nd.write && nd.src >= 0 {
		add(edge{from: nd.src, kind: eWR})
	}
}

// external reports whether the read r reads from a write that is not
// related to it by program order (wr_e).
func (c *checker) external(r int32) bool {
	g := c.g
	w := g.nodes[r].src
	if w < 0 {
		return false
	}
	if g.nodes[w].chain == g.nodes[r].chain {
		return false
	}
	return !(int(w) < len(g.keys) && g.initAttached(int32(w)))
}

func (c *checker) thinAir() *Violation {
	g := c.g
	for v := len(g.keys); v < len(g.nodes); v++ {
		if nd := &g.nodes[v]; !nd.write && nd.src == srcNone {
			r := g.ref(int32(v))
			return &Violation{Model: CC, Msg: fmt.Sprintf("%s reads %s=%d, which no operation writes", r, r.Op.Key, r.Op.Value)}
		}
	}
	return nil
}

// cc decides CC.
func (c *checker) cc() *Violation {
	if v := c.thinAir(); v != nil {
		return v
	}
	g := c.g
	c.coGraph = g.makeGraph(&c.po, c.wrEdges)
	vc, cyc := g.clocks(c.po, c.coGraph)
	if cyc != nil {
		return &Violation{Model: CC, Msg: "the causal order (program order and reads-from) is cyclic: a read returns a value from its own future",
			Cycle: g.steps(cyc, "po")}
	}
	c.coVC = vc
	nc := c.po.comps()
	for v := int32(len(g.keys)); v < int32(len(g.nodes)); v++ {
		nd := &g.nodes[v]
		if nd.write || nd.src < 0 {
			continue
		}
		r := row(vc, nc, v)
		for i := range g.kw[nd.key] {
			lw := c.po.lastWrite(r, &g.kw[nd.key][i])
			if lw < 0 || lw == nd.src || !c.po.has(row(vc, nc, lw), nd.src) {
				continue
			}
			rd, w, w2 := g.ref(v), g.ref(nd.src), g.ref(lw)
			cyc := append(g.path(c.coGraph, lw, v), g.path(c.coGraph, nd.src, lw)...)
			steps := g.steps(cyc, "po")
			steps = append(steps, Step{From: rd, To: w2, Rel: "rw", Why: fmt.Sprintf("it reads %s, which %s overwrites", w, w2)})
			return &Violation{Model: CC, Cycle: steps,
				Msg: fmt.Sprintf("%s reads %s=%d from %s, but %s overwrote it in the read's causal past", rd, rd.Op.Key, rd.Op.Value, w, w2)}
		}
	}
	return nil
}

// ccv decides po ∪ wr ∪ cf acyclic (after cc).
func (c *checker) ccv() *Violation {
	g := c.g
	nc := c.po.comps()
	cfIn := make([][]edge, len(g.nodes))
	for v := int32(len(g.keys)); v < int32(len(g.nodes)); v++ {
		nd := &g.nodes[v]
		if nd.write || nd.src < 0 {
			continue
		}
		r := row(c.coVC, nc, v)
		for i := range g.kw[nd.key] {
			if lw := c.po.lastWrite(r, &g.kw[nd.key][i]); lw >= 0 && lw != nd.src {
				cfIn[nd.src] = append(cfIn[nd.src], edge{from: lw, kind: eCF, aux: v})
			}
		}
	}
	gi := g.makeGraph(&c.po, func(v int32, add func(edge)) {
		c.wrEdges(v, add)
		for _, e := range cfIn[v] {
			add(e)
		}
	})
	if _, cyc := gi.topo(); cyc != nil {
		return &Violation{Model: CCv, Cycle: g.steps(cyc, "po"),
			Msg: "the processes cannot agree on one order of conflicting writes (po ∪ wr ∪ cf is cyclic)"}
	}
	return nil
}

// memoryFixpoint computes the rule-2 edges of hb_o for the reads that
// reads selects, under program order ord and write-read edges wr: the
// least E such that, for each selected read r of w' and each write w to
// its key with w ⇝ r in ord ∪ wr ∪ E, w ⇝ w'. It returns the edges by
// target, or a cycle.
func (c *checker) memoryFixpoint(ord order, wr func(int32, func(edge)), reads []int32) ([][]edge, []cedge) {
	g := c.g
	E := make([][]edge, len(g.nodes))
	nc := ord.comps()
	for {
		gi := g.makeGraph(&ord, func(v int32, add func(edge)) {
			wr(v, add)
			for _, e := range E[v] {
				add(e)
			}
		})
		vc, cyc := g.clocks(ord, gi)
		if cyc != nil {
			return nil, cyc
		}
		added := false
		for _, v := range reads {
			nd := &g.nodes[v]
			if nd.src < 0 {
				continue
			}
			r := row(vc, nc, v)
			for i := range g.kw[nd.key] {
				lw := ord.lastWrite(r, &g.kw[nd.key][i])
				if lw < 0 || lw == nd.src || ord.has(row(vc, nc, nd.src), lw) {
					continue
				}
				E[nd.src] = append(E[nd.src], edge{from: lw, kind: eHB, aux: v})
				added = true
			}
		}
		if !added {
			return E, nil
		}
	}
}

// cm decides CM (after cc): hb of each process's last operation is
// acyclic.
func (c *checker) cm() *Violation {
	g := c.g
	c.hbIn = make([][]edge, len(g.nodes))
	for _, ch := range g.chains {
		if ch.proc < 0 {
			continue
		}
		var reads []int32
		for _, v := range ch.nodes {
			if !g.nodes[v].write {
				reads = append(reads, v)
			}
		}
		if len(reads) == 0 {
			continue
		}
		E, cyc := c.memoryFixpoint(c.po, c.wrEdges, reads)
		if cyc != nil {
			return &Violation{Model: CM, Cycle: g.steps(cyc, "po"),
				Msg: fmt.Sprintf("process %s cannot see the writes in one order (its causal memory order hb is cyclic)", g.h.procs[ch.proc].Name)}
		}
		for v, es := range E {
			c.hbIn[v] = append(c.hbIn[v], es...)
		}
	}
	return nil
}

// ccm decides CCM (after cc and cm).
func (c *checker) ccm() *Violation {
	g := c.g
	gi := g.makeGraph(&c.po, func(v int32, add func(edge)) {
		c.wrEdges(v, add)
		for _, e := range c.hbIn[v] {
			add(e)
		}
	})
	vc, cyc := g.clocks(c.po, gi)
	if cyc != nil {
		return &Violation{Model: CCM, Cycle: g.steps(cyc, "po"),
			Msg: "the processes' causal memory orders together are cyclic (hb)"}
	}
	pwwIn := c.storeOrder(c.po, vc, c.po, vc, func(int32) bool { return true })
	return c.storeOrderCycle(CCM, pwwIn, []order{c.po}, []func(int32, func(edge)){c.wrEdges}, "pww")
}

// storeOrder returns the generators of a partial store order by target:
// per key, for each write w2 and each process, the process's last write
// to the key that reaches w2 under (ord, vc) (hb_WW); and for each read r
// of w2 that cfRead selects, the process's last write to the key that
// reaches r under (cfOrd, cfVC) (cf[hb]). It also records them by source
// in c.pwwOut.
func (c *checker) storeOrder(ord order, vc []int32, cfOrd order, cfVC []int32, cfRead func(int32) bool) [][]edge {
	g := c.g
	in := make([][]edge, len(g.nodes))
	c.pwwOut = make([][]int32, len(g.nodes))
	nc, cnc := ord.comps(), cfOrd.comps()
	addGen := func(v int32, kw []keyWrites, ord order, r []int32, aux int32) {
		for i := range kw {
			if lw := ord.lastWrite(r, &kw[i]); lw >= 0 && lw != v {
				in[v] = append(in[v], edge{from: lw, kind: ePWW, aux: aux})
				c.pwwOut[lw] = append(c.pwwOut[lw], v)
			}
		}
	}
	for v := range int32(len(g.nodes)) {
		nd := &g.nodes[v]
		kw := g.kw[nd.key]
		if nd.write {
			addGen(v, kw, ord, row(vc, nc, v), -1)
		} else if nd.src >= 0 && cfRead(v) {
			// cf[R]: w1 R r and r reads w2 give w1 → w2.
			w2 := nd.src
			for i := range kw {
				if lw := cfOrd.lastWrite(row(cfVC, cnc, v), &kw[i]); lw >= 0 && lw != w2 {
					in[w2] = append(in[w2], edge{from: lw, kind: ePWW, aux: v})
					c.pwwOut[lw] = append(c.pwwOut[lw], w2)
				}
			}
		}
	}
	return in
}

// storeOrderCycle checks, for each program order ords[i] with its
// write-read edges wrs[i], that ord ∪ wr ∪ pww ∪ rw[pww] is acyclic.
func (c *checker) storeOrderCycle(m Model, pwwIn [][]edge, ords []order, wrs []func(int32, func(edge)), name string) *Violation {
	g := c.g
	rwIn := make([][]edge, len(g.nodes))
	for r := range int32(len(g.nodes)) {
		nd := &g.nodes[r]
		if nd.write || nd.src < 0 {
			continue
		}
		for _, m := range c.pwwOut[nd.src] {
			rwIn[m] = append(rwIn[m], edge{from: r, kind: eRW, aux: nd.src})
		}
	}
	for i, ord := range ords {
		gi := g.makeGraph(&ord, func(v int32, add func(edge)) {
			wrs[i](v, add)
			for _, e := range pwwIn[v] {
				add(e)
			}
			for _, e := range rwIn[v] {
				add(e)
			}
		})
		if _, cyc := gi.topo(); cyc != nil {
			rel := map[orderKind]string{oPO: "po", oPPO: "ppo", oLoc: "po-loc"}[ord.kind]
			return &Violation{Model: m, Cycle: g.steps(cyc, rel),
				Msg: fmt.Sprintf("no store order extends the partial store order %s: %s ∪ wr ∪ %s ∪ rw[%s] is cyclic", name, rel, name, name)}
		}
	}
	return nil
}
