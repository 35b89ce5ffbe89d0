// This file implements the indexed form of a history that every check
// works on: one node per operation plus one initial write per key, the
// program order as chains, the write each read reads from, and a rule
// mask that switches off the program order of a process, the value of a
// read or the initial value of a key (explain.go deletes rules this way).
//
// Reachability is kept as vector clocks over the chains of a program
// order, after the paper's causality relations: for po, a node's clock
// holds, per process, the last operation that reaches it; po-loc (po
// restricted to one key) and ppo (po without write→read pairs, TSO's
// preserved program order) are not chains, so their clocks have a
// component per (process, key) and two per process (the last write
// reached, below which everything is reached, and the last read reached,
// below which every read is). Every set of a process's writes to one key
// that reaches a node is then a prefix of that process's writes to the
// key, under all three orders: this is what lets the checks add one
// edge per process where the definitions relate every pair.

package consistency

import "slices"

// Node numbering: the initial write of key k is node k; operation i of
// process p is node K + procOff[p] + i.
type node struct {
	chain, pos int32
	key        int32
	src        int32 // reads: the write read from, or srcNone / srcFree
	write      bool
	val        int64
	proc, idx  int32 // -1, -1 for initial writes
}

const (
	srcNone int32 = -1 // no operation writes the value read (thin air)
	srcFree int32 = -2 // the read's value rule is switched off
)

type chainT struct {
	nodes []int32
	entry int32 // the node that precedes nodes[0] in program order, or -1
	proc  int32 // the process, -1 for the initial writes
}

// keyWrites is one chain's writes to one key, in program order.
type keyWrites struct {
	chain  int32
	writes []int32
}

type hg struct {
	h       *History
	keys    []string
	keyOf   map[string]int32
	procOff []int32
	nodes   []node
	chains  []chainT
	kw      [][]keyWrites // per key
	prevLoc []int32       // per node: previous node of its chain on its key, or -1
	prevW   []int32       // per node: previous write of its chain, or -1
	prevR   []int32       // per node: previous read of its chain, or -1
	locComp []int32       // per node: its (chain, key) component
	nloc    int
}

// Rule ids: the program order of process p is p; the value of operation
// o (a read) is P+o; the initial value of key k is P+N+k.
type ruleSpace struct{ P, N, K int }

func (s ruleSpace) po(p int) int   { return p }
func (s ruleSpace) rv(op int) int  { return s.P + op }
func (s ruleSpace) init(k int) int { return s.P + s.N + k }
func (s ruleSpace) size() int      { return s.P + s.N + s.K }

func (g *hg) rules() ruleSpace {
	return ruleSpace{len(g.h.procs), len(g.nodes) - len(g.keys), len(g.keys)}
}

// build indexes h. off, when not nil, switches rules off (by rule id).
func build(h *History, off []bool) *hg {
	g := &hg{h: h, keyOf: map[string]int32{}}
	n := 0
	for _, p := range h.procs {
		g.procOff = append(g.procOff, int32(n))
		n += len(p.Ops)
		for _, o := range p.Ops {
			if _, ok := g.keyOf[o.Key]; !ok {
				g.keyOf[o.Key] = int32(len(g.keys))
				g.keys = append(g.keys, o.Key)
			}
		}
	}
	K := len(g.keys)
	rs := ruleSpace{len(h.procs), n, K}
	isOff := func(r int) bool { return off != nil && off[r] }
	g.nodes = make([]node, K+n)
	// Chain 0 holds the initial writes whose rule is on; every process's
	// chain is entered from its last node, so that they precede all.
	g.chains = append(g.chains, chainT{entry: -1, proc: -1})
	for k := range K {
		g.nodes[k] = node{key: int32(k), write: true, proc: -1, idx: -1}
		if isOff(rs.init(k)) {
			g.nodes[k].chain = int32(len(g.chains))
			g.chains = append(g.chains, chainT{nodes: []int32{int32(k)}, entry: -1, proc: -1})
			continue
		}
		g.nodes[k].pos = int32(len(g.chains[0].nodes))
		g.chains[0].nodes = append(g.chains[0].nodes, int32(k))
	}
	entry := int32(-1)
	if c0 := g.chains[0].nodes; len(c0) > 0 {
		entry = c0[len(c0)-1]
	}
	type kv struct {
		k int32
		v int64
	}
	writer := map[kv]int32{}
	for p, pr := range h.procs {
		split := isOff(rs.po(p))
		for i, o := range pr.Ops {
			id := int32(K) + g.procOff[p] + int32(i)
			if i == 0 || split {
				g.chains = append(g.chains, chainT{entry: entry, proc: int32(p)})
			}
			c := &g.chains[len(g.chains)-1]
			k := g.keyOf[o.Key]
			g.nodes[id] = node{chain: int32(len(g.chains) - 1), pos: int32(len(c.nodes)), key: k,
				write: o.Kind == Write, val: o.Value, proc: int32(p), idx: int32(i)}
			c.nodes = append(c.nodes, id)
			if o.Kind == Write {
				writer[kv{k, o.Value}] = id
			}
		}
	}
	for id := K; id < len(g.nodes); id++ {
		nd := &g.nodes[id]
		if nd.write {
			continue
		}
		switch {
		case isOff(rs.rv(id - K)):
			nd.src = srcFree
		case nd.val == 0:
			nd.src = nd.key
		default:
			w, ok := writer[kv{nd.key, nd.val}]
			if !ok {
				w = srcNone
			}
			nd.src = w
		}
	}
	g.index()
	return g
}

// index computes the per-chain tables.
func (g *hg) index() {
	N := len(g.nodes)
	g.kw = make([][]keyWrites, len(g.keys))
	g.prevLoc = make([]int32, N)
	g.prevW = make([]int32, N)
	g.prevR = make([]int32, N)
	g.locComp = make([]int32, N)
	for ci, c := range g.chains {
		last := map[int32]int32{}
		comp := map[int32]int32{}
		pw, pr := int32(-1), int32(-1)
		for _, v := range c.nodes {
			nd := &g.nodes[v]
			g.prevW[v], g.prevR[v] = pw, pr
			if l, ok := last[nd.key]; ok {
				g.prevLoc[v] = l
			} else {
				g.prevLoc[v] = -1
			}
			last[nd.key] = v
			cc, ok := comp[nd.key]
			if !ok {
				cc = int32(g.nloc)
				g.nloc++
				comp[nd.key] = cc
			}
			g.locComp[v] = cc
			if nd.write {
				pw = v
				kws := g.kw[nd.key]
				if len(kws) == 0 || kws[len(kws)-1].chain != int32(ci) {
					g.kw[nd.key] = append(kws, keyWrites{chain: int32(ci)})
				}
				kws = g.kw[nd.key]
				kws[len(kws)-1].writes = append(kws[len(kws)-1].writes, v)
			} else {
				pr = v
			}
		}
	}
}

// initAttached reports whether key k's initial write precedes every
// operation (its rule is on).
func (g *hg) initAttached(k int32) bool { return g.nodes[k].chain == 0 }

// Edge kinds.
const (
	ePO  uint8 = iota // program order (po, ppo or po-loc)
	eWR               // write-read: a read and the write it reads from
	eHB               // a process's causal memory order (hb_o rule 2): aux is the read
	eCF               // conflict (cf): aux is the read
	ePWW              // partial store order: aux is the read for cf[hb], -1 for hb
	eRW               // read-write: the read must precede a later write; aux is the write read from
	eWW               // store order chosen by the solver
)

type edge struct {
	from int32
	kind uint8
	aux  int32
}

// order is a program order, the clocks it needs and its generators.
type orderKind uint8

const (
	oPO   orderKind = iota // po
	oPPO                   // ppo = po \ (W × R)
	oLoc                   // po-loc
	oBoth                  // ppo ∪ po-loc
)

type order struct {
	kind  orderKind
	g     *hg
	entry bool // include the edges from the initial writes
}

func (o order) comps() int {
	C := len(o.g.chains)
	switch o.kind {
	case oPO:
		return C
	case oPPO:
		return 2 * C
	case oLoc:
		return o.g.nloc
	}
	return 2*C + o.g.nloc
}

// preds calls f with a generating set of v's immediate predecessors.
func (o order) preds(v int32, f func(u int32)) {
	g := o.g
	nd := &g.nodes[v]
	c := &g.chains[nd.chain]
	entry := int32(-1)
	if o.entry {
		entry = c.entry
	}
	if o.kind == oPO {
		if nd.pos > 0 {
			f(c.nodes[nd.pos-1])
		} else if entry >= 0 {
			f(entry)
		}
		return
	}
	if o.kind == oPPO || o.kind == oBoth {
		if nd.write {
			prev := int32(-1)
			if nd.pos > 0 {
				prev = c.nodes[nd.pos-1]
				f(prev)
			}
			if pw := g.prevW[v]; pw >= 0 {
				if pw != prev {
					f(pw)
				}
			} else if entry >= 0 {
				f(entry)
			}
		} else if pr := g.prevR[v]; pr >= 0 {
			f(pr)
		}
	}
	if o.kind == oLoc || o.kind == oBoth {
		if pl := g.prevLoc[v]; pl >= 0 {
			f(pl)
		} else if entry >= 0 && g.initAttached(nd.key) && nd.chain != 0 {
			f(nd.key)
		}
	}
}

// own adds u itself to the clock row F.
func (o order) own(F []int32, u int32) {
	g := o.g
	nd := &g.nodes[u]
	C := int32(len(g.chains))
	set := func(i, p int32) {
		if F[i] < p {
			F[i] = p
		}
	}
	switch o.kind {
	case oPO:
		set(nd.chain, nd.pos)
		return
	case oPPO, oBoth:
		if nd.write {
			set(2*nd.chain, nd.pos)
		} else {
			set(2*nd.chain+1, nd.pos)
		}
		if o.kind == oPPO {
			return
		}
	}
	base := int32(0)
	if o.kind == oBoth {
		base = 2 * C
	}
	set(base+g.locComp[u], nd.pos)
}

// has reports whether u is in the set the clock row F stands for.
func (o order) has(F []int32, u int32) bool {
	g := o.g
	nd := &g.nodes[u]
	C := int32(len(g.chains))
	switch o.kind {
	case oPO:
		return F[nd.chain] >= nd.pos
	case oLoc:
		return F[g.locComp[u]] >= nd.pos
	}
	if F[2*nd.chain] >= nd.pos || !nd.write && F[2*nd.chain+1] >= nd.pos {
		return true
	}
	return o.kind == oBoth && F[2*C+g.locComp[u]] >= nd.pos
}

// graphIn is a graph as in-edge lists (CSR).
type graphIn struct {
	start []int32
	edges []edge
}

func (gi *graphIn) in(v int32) []edge { return gi.edges[gi.start[v]:gi.start[v+1]] }

// makeGraph collects, for every node, the generators of ord (when ord is
// not nil) and the extra edges.
func (g *hg) makeGraph(ord *order, extra func(v int32, add func(edge))) *graphIn {
	N := len(g.nodes)
	gi := &graphIn{start: make([]int32, N+1), edges: make([]edge, 0, 3*N)}
	add := func(e edge) { gi.edges = append(gi.edges, e) }
	for v := range int32(N) {
		gi.start[v] = int32(len(gi.edges))
		if ord != nil {
			ord.preds(v, func(u int32) { add(edge{from: u, kind: ePO}) })
		}
		if extra != nil {
			extra(v, add)
		}
	}
	gi.start[N] = int32(len(gi.edges))
	return gi
}

// cedge is an edge on a cycle.
type cedge struct {
	from, to int32
	kind     uint8
	aux      int32
}

// topo returns the nodes in an order where every edge goes forward, or a
// cycle.
func (gi *graphIn) topo() ([]int32, []cedge) {
	N := len(gi.start) - 1
	color := make([]uint8, N)
	order := make([]int32, 0, N)
	type frame struct{ v, i int32 }
	var stack []frame
	for root := range int32(N) {
		if color[root] != 0 {
			continue
		}
		stack = append(stack[:0], frame{root, gi.start[root]})
		color[root] = 1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i == gi.start[f.v+1] {
				color[f.v] = 2
				order = append(order, f.v)
				stack = stack[:len(stack)-1]
				continue
			}
			e := gi.edges[f.i]
			f.i++
			switch color[e.from] {
			case 0:
				color[e.from] = 1
				stack = append(stack, frame{e.from, gi.start[e.from]})
			case 1:
				// e.from is on the stack: the stack from it up is a
				// path of successors back to it.
				var cyc []cedge
				cyc = append(cyc, cedge{e.from, f.v, e.kind, e.aux})
				for j := len(stack) - 1; stack[j].v != e.from; j-- {
					pe := gi.edges[stack[j-1].i-1]
					cyc = append(cyc, cedge{stack[j].v, stack[j-1].v, pe.kind, pe.aux})
				}
				return nil, cyc
			}
		}
	}
	return order, nil
}

// clocks computes, in topological order, each node's clock under ord over
// the graph gi: the set of its strict ancestors. It returns a cycle
// instead when there is one.
func (g *hg) clocks(ord order, gi *graphIn) ([]int32, []cedge) {
	topo, cyc := gi.topo()
	if cyc != nil {
		return nil, cyc
	}
	nc := ord.comps()
	vc := make([]int32, len(g.nodes)*nc)
	for i := range vc {
		vc[i] = -1
	}
	for _, v := range topo {
		row := vc[int(v)*nc : int(v+1)*nc]
		for _, e := range gi.in(v) {
			src := vc[int(e.from)*nc : int(e.from+1)*nc]
			for i, x := range src {
				if x > row[i] {
					row[i] = x
				}
			}
			ord.own(row, e.from)
		}
	}
	return vc, nil
}

// lastWrite returns the last of kw's writes in the set row stands for,
// or -1. The writes in the set are a prefix of kw.writes.
func (ord order) lastWrite(row []int32, kw *keyWrites) int32 {
	ws := kw.writes
	i, _ := slices.BinarySearchFunc(ws, true, func(w int32, _ bool) int {
		if ord.has(row, w) {
			return -1
		}
		return 1
	})
	if i == 0 {
		return -1
	}
	return ws[i-1]
}

// row returns node v's clock row.
func row(vc []int32, nc int, v int32) []int32 { return vc[int(v)*nc : int(v+1)*nc] }
