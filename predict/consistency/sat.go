// This file implements the SC and TSO checks' last step: completing the
// partial store order with the gini SAT solver (Algorithms 1 and 2 of
// "Gradual Consistency Checking", with SAT in place of enumeration as in
// the paper's X-CCM+SAT), in the style of Yang, Gopalakrishnan and
// Lindstrom's constraint encoding (Appendix A): an order variable per
// pair of writes to one key, totality by construction (one literal for
// both directions), and transitivity and acyclicity as needed.
//
// Transitivity and acyclicity are lazy, since eager transitivity is cubic:
// solve, read the store order off the model (a 3-cycle of the tournament
// adds its transitivity clause), build po ∪ wr ∪ ww ∪ rw (for TSO, its two
// graphs) with one ww edge per consecutive pair and one rw edge per read,
// and if there is a cycle add the clause that forbids the choices on it;
// repeat until the graphs are acyclic (consistent) or the clauses are
// unsatisfiable.
//
// Every clause a cycle adds is guarded by the activation literals of the
// rules its fixed edges come from (the program order of a process, the
// value of a read, the model's axiom; the initial value of a key is its
// own clauses), so that, solving under all of them as assumptions, gini's
// failed assumptions (Why) are an unsatisfiable core of rules, which
// explain.go shrinks to a minimal one by deletion. The pairs that the
// partial store order fixes are unit clauses in a plain check; an
// explaining check leaves them to the solver, as they are consequences of
// rules that the core must name.

package consistency

import (
	"cmp"
	"slices"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

type satEnc struct {
	g      *hg
	c      *checker
	m      Model
	s      *gini.Gini
	rs     ruleSpace
	act    []z.Lit // per rule id, then per axiom
	actOf  map[z.Lit]int
	writes [][]int32 // per key, its writes (the initial write first)
	index  []int32   // per write node, its index in writes[key]
	base   []z.Var   // per key: the variable of pair (0,1)
	// scratch
	active []bool
	// undecided is set when the last solve ran out of time or was
	// cancelled (bound.go): its answer is then neither.
	undecided bool
}

// axioms: SC has one; TSO has one per graph: po-loc, then ppo.
func axiomCount(m Model) int {
	if m == TSO {
		return 2
	}
	return 1
}

func newSatEnc(c *checker, m Model) *satEnc {
	g := c.g
	e := &satEnc{g: g, c: c, m: m, s: gini.New(), rs: g.rules(), actOf: map[z.Lit]int{}}
	e.writes = make([][]int32, len(g.keys))
	e.index = make([]int32, len(g.nodes))
	for v := range int32(len(g.nodes)) {
		if nd := &g.nodes[v]; nd.write {
			e.index[v] = int32(len(e.writes[nd.key]))
			e.writes[nd.key] = append(e.writes[nd.key], v)
		}
	}
	e.base = make([]z.Var, len(g.keys))
	for k, ws := range e.writes {
		n := len(ws)
		for i := 0; i < n*(n-1)/2; i++ {
			l := e.s.Lit()
			if i == 0 {
				e.base[k] = l.Var()
			}
		}
	}
	nr := e.rs.size() + axiomCount(m)
	e.act = make([]z.Lit, nr)
	for r := range nr {
		if r >= e.rs.P && r < e.rs.P+e.rs.N && g.nodes[len(g.keys)+r-e.rs.P].write {
			continue // no value rule for a write
		}
		e.act[r] = e.s.Lit()
		e.actOf[e.act[r]] = r
	}
	// A read of a value that nothing writes contradicts its own rule.
	for v := len(g.keys); v < len(g.nodes); v++ {
		if nd := &g.nodes[v]; !nd.write && nd.src == srcNone {
			e.clause(e.act[e.rs.rv(v-len(g.keys))].Not())
		}
	}
	// The initial value of key k: its initial write precedes every write.
	for k, ws := range e.writes {
		for _, w := range ws[1:] {
			e.clause(e.act[e.rs.init(k)].Not(), e.ord(ws[0], w))
		}
	}
	return e
}

func (e *satEnc) clause(ls ...z.Lit) {
	for _, l := range ls {
		e.s.Add(l)
	}
	e.s.Add(0)
}

// ord is the literal "a before b" for two writes to one key.
func (e *satEnc) ord(a, b int32) z.Lit {
	i, j := e.index[a], e.index[b]
	neg := false
	if i > j {
		i, j, neg = j, i, true
	}
	n := int32(len(e.writes[e.g.nodes[a].key]))
	// pairs (i, j), i < j, numbered row by row
	k := i*n - i*(i+1)/2 + (j - i - 1)
	l := (e.base[e.g.nodes[a].key] + z.Var(k)).Pos()
	if neg {
		return l.Not()
	}
	return l
}

// fix adds the pairs of a partial store order, after (per key, its
// transitive closure as storeClosure makes it), as unit clauses and
// returns how many pairs it leaves free and how many there are.
func (e *satEnc) fix(after [][]uint64) (free, pairs int) {
	for k, ws := range e.writes {
		n := len(ws)
		pairs += n * (n - 1) / 2
		words := (n + 63) / 64
		reach := after[k]
		for i := range n {
			for j := range n {
				if i != j && reach[i*words+j/64]>>(j%64)&1 == 1 {
					e.clause(e.ord(ws[i], ws[j]))
				}
			}
		}
		fixed := 0
		for _, w := range reach {
			fixed += popcount(w)
		}
		free += n*(n-1)/2 - fixed
	}
	return free, pairs
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// solve decides whether some store order makes the history consistent
// when only the rules in active hold (nil: all). It returns the failed
// assumptions (rule ids) when not. When the solver runs out of time or
// is cancelled (bound.go), it returns false with no core and sets
// e.undecided.
func (e *satEnc) solve(active []int) (bool, []int) {
	if active == nil {
		for r, l := range e.act {
			if l != 0 {
				active = append(active, r)
			}
		}
	}
	e.active = make([]bool, len(e.act))
	for _, r := range active {
		e.active[r] = true
	}
	e.undecided = false
	deadline := e.c.bound.deadline()
	for {
		r := e.c.bound.try(e.s, deadline, func() {
			for _, r := range active {
				e.s.Assume(e.act[r])
			}
		})
		if r == 0 {
			e.undecided = true
			return false, nil
		}
		if r != 1 {
			var core []int
			for _, l := range e.s.Why(nil) {
				core = append(core, e.actOf[l])
			}
			slices.Sort(core)
			return false, core
		}
		if e.transitivity() {
			continue
		}
		succ := e.storeOrder()
		if !e.cycles(succ) {
			return true, nil
		}
	}
}

// transitivity adds a clause for each key whose chosen order is not
// transitive and reports whether it added any.
func (e *satEnc) transitivity() bool {
	added := false
	for _, ws := range e.writes {
		n := len(ws)
		if n < 3 {
			continue
		}
		wins := make([]int, n)
		for i := range n {
			for j := i + 1; j < n; j++ {
				if e.s.Value(e.ord(ws[i], ws[j])) {
					wins[i]++
				} else {
					wins[j]++
				}
			}
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(wins[b], wins[a]) })
	scan:
		for x := range n {
			for y := x + 1; y < n; y++ {
				a, b := ws[idx[x]], ws[idx[y]]
				if !e.s.Value(e.ord(b, a)) {
					continue
				}
				// b beats a though a wins at least as often: some c
				// has a → c → b.
				for _, c := range ws {
					if c != a && c != b && e.s.Value(e.ord(a, c)) && e.s.Value(e.ord(c, b)) {
						e.clause(e.ord(b, a).Not(), e.ord(a, c).Not(), e.ord(c, b).Not())
						added = true
						break scan
					}
				}
			}
		}
	}
	return added
}

// storeOrder reads the (transitive) store order off the model: each
// write's successor, or -1.
func (e *satEnc) storeOrder() []int32 {
	succ := make([]int32, len(e.g.nodes))
	for i := range succ {
		succ[i] = -1
	}
	for _, ws := range e.writes {
		s := slices.Clone(ws)
		slices.SortFunc(s, func(a, b int32) int {
			if a == b {
				return 0
			}
			if e.s.Value(e.ord(a, b)) {
				return -1
			}
			return 1
		})
		for i := 0; i+1 < len(s); i++ {
			succ[s[i]] = s[i+1]
		}
	}
	return succ
}

// cycles builds the model's graphs and, for each cycle found, adds the
// clause that forbids it. It reports whether there was one.
func (e *satEnc) cycles(succ []int32) bool {
	g := e.g
	ords := []order{{kind: oPO, g: g}}
	wrs := []func(int32) bool{func(int32) bool { return true }}
	if e.m == TSO {
		ords = []order{{kind: oLoc, g: g}, {kind: oPPO, g: g}}
		wrs = []func(int32) bool{func(int32) bool { return true }, e.c.external}
	}
	rwIn := make([][]edge, len(g.nodes))
	for r := range int32(len(g.nodes)) {
		nd := &g.nodes[r]
		if nd.write || nd.src < 0 || !e.active[e.rs.rv(int(r)-len(g.keys))] {
			continue
		}
		if m := succ[nd.src]; m >= 0 {
			rwIn[m] = append(rwIn[m], edge{from: r, kind: eRW, aux: nd.src})
		}
	}
	found := false
	for i, ord := range ords {
		if !e.active[e.rs.size()+i] {
			continue // the axiom is off: this graph may be cyclic
		}
		gi := g.makeGraph(nil, func(v int32, add func(edge)) {
			nd := &g.nodes[v]
			if nd.proc >= 0 && e.active[e.rs.po(int(nd.proc))] {
				ord.preds(v, func(u int32) { add(edge{from: u, kind: ePO}) })
			}
			if !nd.write && nd.src >= 0 && e.active[e.rs.rv(int(v)-len(g.keys))] && wrs[i](v) {
				add(edge{from: nd.src, kind: eWR})
			}
			if nd.write {
				for _, w := range e.writes[nd.key] {
					if succ[w] == v {
						add(edge{from: w, kind: eWW})
					}
				}
			}
			for _, ed := range rwIn[v] {
				add(ed)
			}
		})
		_, cyc := gi.topo()
		if cyc == nil {
			continue
		}
		found = true
		var cl []z.Lit
		cl = append(cl, e.act[e.rs.size()+i].Not())
		for _, ed := range cyc {
			switch ed.kind {
			case ePO:
				cl = append(cl, e.act[e.rs.po(int(g.nodes[ed.to].proc))].Not())
			case eWR:
				cl = append(cl, e.act[e.rs.rv(int(ed.to)-len(g.keys))].Not())
			case eWW:
				cl = append(cl, e.ord(ed.from, ed.to).Not())
			case eRW:
				cl = append(cl, e.act[e.rs.rv(int(ed.from)-len(g.keys))].Not(), e.ord(ed.aux, ed.to).Not())
			}
		}
		e.clause(cl...)
	}
	return found
}

// solve is the checker's last step for SC and TSO: complete the partial
// store order left by ccm (pww) or wccm (wpww), by saturation and a
// schedule (extend.go), and by the solver when the schedule is stuck.
func (c *checker) solve(m Model, res *Result) *Violation {
	name := "pww"
	if m == TSO {
		name = "wpww"
	}
	x := newExtender(c, m)
	res.Unordered, res.Pairs = x.free()
	if cyc, gi := x.saturate(); cyc != nil {
		return x.violation(cyc, gi, name)
	}
	unsat := &Violation{Model: m, Msg: "no store order of the writes to each key explains every read (the " + name + " extensions are unsatisfiable); see the rules (-explain)"}
	trace, exhausted := x.schedule()
	switch {
	case trace != nil:
		if w := x.refs(trace); VerifyWitness(c.g.h, m, w) == nil {
			res.Witness = w
			return nil
		}
		// Not a witness: a bug in the search. The solver decides.
	case !exhausted:
		return unsat
	}
	e := newSatEnc(c, m)
	e.fix(x.after)
	if ok, _ := e.solve(nil); ok {
		res.Witness = x.witnessOf(e)
		return nil
	}
	if e.undecided {
		res.Undecided = true
		return nil
	}
	return unsat
}
