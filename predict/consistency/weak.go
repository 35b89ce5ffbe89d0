// This file implements weak convergent causal memory (wCCM, "Gradual
// Consistency Checking" §4.1), the polynomial criterion that TSO checks
// first and whose weak partial store order wpww the solver completes.
//
// For π ∈ {ppo, po-loc}, co^π = (π ∪ wr_e)+ and hb^π_o follows hb_o with
// π, co^π and wr_e in rule 1 and the reads π*-before o in rule 2. hb^π_o
// grows along π (π is transitive), so it is computed for the π-maximal
// operations of each process only: its last operation and, under ppo,
// its last write when only reads follow; under po-loc its last operation
// on each key. Then whb = (hb^ppo ∪ hb^po-loc)+, and wpww is generated
// per key by whb's writes and cf_e[hb^po-loc] ∪ cf_e[hb^ppo], one edge per
// process each, as in causal.go. Algorithm 2's first line, as printed,
// uses pww in its second relation; it should be wpww (pww is stronger
// than TSO allows).
//
// The definition of TSO (and so of wCCM) takes internal write-read pairs
// out of every relation, which accepts a process reading a value that it
// writes only later. Such a history is not well formed; both checks here
// reject it by putting the full write-read relation, not wr_e, in the
// po-loc relation: an internal pair that follows po-loc adds nothing, one
// that goes against it is a cycle.

package consistency

import "fmt"

// wccm decides wCCM (after thinAir) and leaves wpww's generators in
// c.pwwOut.
func (c *checker) wccm() *Violation {
	g := c.g
	ppo := order{kind: oPPO, g: g, entry: true}
	loc := order{kind: oLoc, g: g, entry: true}
	both := order{kind: oBoth, g: g, entry: true}
	wrE := func(v int32, add func(edge)) {
		if nd := &g.nodes[v]; !nd.write && nd.src >= 0 && c.external(v) {
			add(edge{from: nd.src, kind: eWR})
		}
	}
	fail := func(cyc []cedge, rel, what string) *Violation {
		return &Violation{Model: WCCM, Cycle: g.steps(cyc, rel), Msg: what}
	}
	var hbIn [2][][]edge
	var vcs [2][]int32
	for k, ord := range []order{ppo, loc} {
		rel := [...]string{"ppo", "po-loc"}[k]
		hbIn[k] = make([][]edge, len(g.nodes))
		for _, ch := range g.chains {
			if ch.proc < 0 {
				continue
			}
			F := make([]int32, ord.comps())
			for _, o := range maximal(ord, ch.nodes, F) {
				for i := range F {
					F[i] = -1
				}
				ord.own(F, o)
				var reads []int32
				for _, r := range ch.nodes {
					if !g.nodes[r].write && (r == o || ord.has(F, r)) {
						reads = append(reads, r)
					}
				}
				if len(reads) == 0 {
					continue
				}
				E, cyc := c.memoryFixpoint(ord, wrE, reads)
				if cyc != nil {
					return fail(cyc, rel, fmt.Sprintf("under %s, %s cannot see the writes in one order (hb^%s is cyclic)", rel, g.ref(o), rel))
				}
				for v, es := range E {
					hbIn[k][v] = append(hbIn[k][v], es...)
				}
			}
		}
		gi := g.makeGraph(&ord, func(v int32, add func(edge)) {
			wrE(v, add)
			for _, e := range hbIn[k][v] {
				add(e)
			}
		})
		vc, cyc := g.clocks(ord, gi)
		if cyc != nil {
			return fail(cyc, rel, fmt.Sprintf("hb^%s is cyclic", rel))
		}
		vcs[k] = vc
	}
	gi := g.makeGraph(&both, func(v int32, add func(edge)) {
		wrE(v, add)
		for k := range hbIn {
			for _, e := range hbIn[k][v] {
				add(e)
			}
		}
	})
	vc, cyc := g.clocks(both, gi)
	if cyc != nil {
		return fail(cyc, "po", "whb (hb^ppo ∪ hb^po-loc) is cyclic")
	}
	// wpww: whb's writes, then cf_e of each hb^π.
	pwwIn := c.storeOrder(both, vc, loc, vcs[1], c.external)
	out := c.pwwOut
	pwwIn2 := c.storeOrder(both, vc, ppo, vcs[0], c.external)
	for v := range pwwIn {
		for _, e := range pwwIn2[v] {
			if e.aux >= 0 {
				pwwIn[v] = append(pwwIn[v], e)
				out[e.from] = append(out[e.from], int32(v))
			}
		}
	}
	c.pwwOut = out
	wrAll := c.wrEdges
	return c.storeOrderCycle(WCCM, pwwIn, []order{ppo, loc}, []func(int32, func(edge)){wrE, wrAll}, "wpww")
}

// maximal returns the nodes of a chain that nothing later in the chain
// follows in ord. F is scratch of ord.comps() entries.
func maximal(ord order, nodes []int32, F []int32) []int32 {
	for i := range F {
		F[i] = -1
	}
	var max []int32
	for i := len(nodes) - 1; i >= 0; i-- {
		v := nodes[i]
		if !ord.has(F, v) {
			max = append(max, v)
		}
		ord.own(F, v)
	}
	return max
}
