// This file implements a checker written from the definitions, for small
// histories only, and tests that the real checks agree with it on
// thousands of random histories under every model.
//
// SC and TSO are decided operationally, by enumerating executions: every
// interleaving (SC) and every interleaving of operations and store-buffer
// flushes (TSO). The causal criteria are decided by the paper's
// definitions taken literally, over boolean matrices of all pairs: every
// hb_o for every o (no monotonicity), every pair of cf and pww, closures
// by Warshall. The checks share none of this code.

package consistency

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

type oop struct {
	proc, idx int // proc -1: initial write
	write     bool
	key       string
	val       int64
}

type oracle struct {
	ops []oop
	n   int
	po  rel // strict program order, initial writes first
	wr  rel
	src []int // per read: its writer, -1 if none
	bad bool  // thin-air read
}

type rel [][]bool

func newRel(n int) rel {
	r := make(rel, n)
	for i := range r {
		r[i] = make([]bool, n)
	}
	return r
}

func (r rel) clone() rel {
	c := newRel(len(r))
	for i := range r {
		copy(c[i], r[i])
	}
	return c
}

func (r rel) union(others ...rel) rel {
	c := r.clone()
	for _, o := range others {
		for i := range o {
			for j := range o[i] {
				c[i][j] = c[i][j] || o[i][j]
			}
		}
	}
	return c
}

func (r rel) closure() rel {
	c := r.clone()
	n := len(c)
	for k := range n {
		for i := range n {
			if c[i][k] {
				for j := range n {
					if c[k][j] {
						c[i][j] = true
					}
				}
			}
		}
	}
	return c
}

func (r rel) acyclic() bool {
	c := r.closure()
	for i := range c {
		if c[i][i] {
			return false
		}
	}
	return true
}

func newOracle(h *History) *oracle {
	o := &oracle{}
	keys := map[string]bool{}
	var keyList []string
	for _, p := range h.procs {
		for _, op := range p.Ops {
			if !keys[op.Key] {
				keys[op.Key] = true
				keyList = append(keyList, op.Key)
			}
		}
	}
	for _, k := range keyList {
		o.ops = append(o.ops, oop{proc: -1, idx: -1, write: true, key: k})
	}
	for pi, p := range h.procs {
		for i, op := range p.Ops {
			o.ops = append(o.ops, oop{proc: pi, idx: i, write: op.Kind == Write, key: op.Key, val: op.Value})
		}
	}
	o.n = len(o.ops)
	o.po, o.wr = newRel(o.n), newRel(o.n)
	o.src = make([]int, o.n)
	for i, a := range o.ops {
		o.src[i] = -1
		for j, b := range o.ops {
			if a.proc < 0 && b.proc >= 0 || a.proc >= 0 && a.proc == b.proc && a.idx < b.idx {
				o.po[i][j] = true
			}
		}
		if !a.write {
			for j, b := range o.ops {
				if b.write && b.key == a.key && b.val == a.val {
					o.src[i] = j
					o.wr[j][i] = true
				}
			}
			if o.src[i] < 0 {
				o.bad = true
			}
		}
	}
	return o
}

func (o *oracle) isW(i int) bool { return o.ops[i].write }

// rwOf is rw[R] = wr⁻¹ ∘ R_ww.
func (o *oracle) rwOf(R rel) rel {
	rw := newRel(o.n)
	for r := range o.n {
		if w := o.src[r]; !o.isW(r) && w >= 0 {
			for w2 := range o.n {
				if w2 != w && o.isW(w2) && o.ops[w2].key == o.ops[r].key && R[w][w2] {
					rw[r][w2] = true
				}
			}
		}
	}
	return rw
}

// cfOf is cf[R] = R_WR ∘ wr⁻¹ restricted to the write-read pairs in wrs,
// without self-pairs.
func (o *oracle) cfOf(R rel, wrs rel) rel {
	cf := newRel(o.n)
	for r := range o.n {
		for w2 := range o.n {
			if !wrs[w2][r] {
				continue
			}
			for w1 := range o.n {
				if w1 != w2 && o.isW(w1) && o.ops[w1].key == o.ops[r].key && R[w1][r] {
					cf[w1][w2] = true
				}
			}
		}
	}
	return cf
}

func (o *oracle) wwPart(R rel) rel {
	c := newRel(o.n)
	for i := range o.n {
		for j := range o.n {
			if R[i][j] && o.isW(i) && o.isW(j) && o.ops[i].key == o.ops[j].key {
				c[i][j] = true
			}
		}
	}
	return c
}

// hbO is hb_o for causality co, write-read wr and program order pi.
func (o *oracle) hbO(x int, co, wr, pi rel) rel {
	hb := newRel(o.n)
	for a := range o.n {
		for b := range o.n {
			if co[a][b] && co[a][x] && (b == x || co[b][x]) {
				hb[a][b] = true
			}
		}
	}
	for {
		hb = hb.closure()
		changed := false
		for r := range o.n {
			if o.isW(r) || !(r == x || pi[r][x]) {
				continue
			}
			for w2 := range o.n {
				if !wr[w2][r] {
					continue
				}
				for w := range o.n {
					if w != w2 && o.isW(w) && o.ops[w].key == o.ops[r].key && hb[w][r] && !hb[w][w2] {
						hb[w][w2] = true
						changed = true
					}
				}
			}
		}
		if !changed {
			return hb
		}
	}
}

func (o *oracle) cc() bool {
	if o.bad {
		return false
	}
	co := o.po.union(o.wr).closure()
	for i := range o.n {
		if co[i][i] {
			return false
		}
	}
	for r := range o.n {
		w := o.src[r]
		if o.isW(r) {
			continue
		}
		for w2 := range o.n {
			if w2 != w && o.isW(w2) && o.ops[w2].key == o.ops[r].key && co[w][w2] && co[w2][r] {
				return false
			}
		}
	}
	return true
}

func (o *oracle) ccv() bool {
	if !o.cc() {
		return false
	}
	co := o.po.union(o.wr).closure()
	return o.po.union(o.wr, o.cfOf(co, o.wr)).acyclic()
}

func (o *oracle) hb() (rel, bool) {
	co := o.po.union(o.wr).closure()
	all := newRel(o.n)
	for x := range o.n {
		hx := o.hbO(x, co, o.wr, o.po)
		if !hx.acyclic() {
			return nil, false
		}
		all = all.union(hx)
	}
	return all.closure(), true
}

func (o *oracle) cm() bool {
	if !o.cc() {
		return false
	}
	_, ok := o.hb()
	return ok
}

func (o *oracle) ccm() bool {
	if o.bad {
		return false
	}
	hb, _ := o.hb()
	if hb == nil {
		// some hb_o is cyclic; hb (the closure of all) is cyclic too
		co := o.po.union(o.wr).closure()
		hb = newRel(o.n)
		for x := range o.n {
			hb = hb.union(o.hbO(x, co, o.wr, o.po))
		}
		hb = hb.closure()
	}
	pww := o.wwPart(hb).union(o.cfOf(hb, o.wr)).closure()
	return o.po.union(o.wr, pww, o.rwOf(pww)).acyclic()
}

// ownFuture reports a read of a value its own process writes later.
func (o *oracle) ownFuture() bool {
	for r := range o.n {
		if w := o.src[r]; !o.isW(r) && w >= 0 && o.po[r][w] {
			return true
		}
	}
	return false
}

func (o *oracle) wccm() bool {
	if o.bad || o.ownFuture() {
		return false
	}
	ppo, loc, wre := newRel(o.n), newRel(o.n), newRel(o.n)
	for i := range o.n {
		for j := range o.n {
			if o.po[i][j] && !(o.isW(i) && !o.isW(j)) {
				ppo[i][j] = true
			}
			if o.po[i][j] && o.ops[i].key == o.ops[j].key {
				loc[i][j] = true
			}
			if o.wr[i][j] && !o.po[i][j] && !o.po[j][i] {
				wre[i][j] = true
			}
		}
	}
	hbPi := func(pi rel) rel {
		co := pi.union(wre).closure()
		all := newRel(o.n)
		for x := range o.n {
			all = all.union(o.hbO(x, co, o.wr, pi))
		}
		return all.closure()
	}
	hbP, hbL := hbPi(ppo), hbPi(loc)
	whb := hbP.union(hbL).closure()
	wpww := o.wwPart(whb).union(o.cfOf(hbL, wre), o.cfOf(hbP, wre)).closure()
	rw := o.rwOf(wpww)
	return ppo.union(wre, wpww, rw).acyclic() && loc.union(wre, wpww, rw).acyclic()
}

// run enumerates executions: with tso, writes go to a FIFO buffer per
// process and reach memory later; reads see their own latest buffered
// write first.
func runOps(h *History, tso bool) bool {
	type state struct {
		pc  []int
		buf [][]Op
		mem map[string]int64
	}
	seen := map[string]bool{}
	var dfs func(s state) bool
	key := func(s state) string {
		var b strings.Builder
		fmt.Fprint(&b, s.pc, s.buf)
		for _, p := range h.procs {
			for _, op := range p.Ops {
				fmt.Fprint(&b, op.Key, "=", s.mem[op.Key], ";")
			}
		}
		return b.String()
	}
	dfs = func(s state) bool {
		done := true
		for i, p := range h.procs {
			if s.pc[i] < len(p.Ops) {
				done = false
			}
		}
		if done {
			return true
		}
		k := key(s)
		if seen[k] {
			return false
		}
		seen[k] = true
		copyState := func() state {
			t := state{pc: append([]int(nil), s.pc...), buf: make([][]Op, len(s.buf)), mem: map[string]int64{}}
			for i := range s.buf {
				t.buf[i] = append([]Op(nil), s.buf[i]...)
			}
			for k, v := range s.mem {
				t.mem[k] = v
			}
			return t
		}
		for i, p := range h.procs {
			if len(s.buf[i]) > 0 {
				t := copyState()
				t.mem[t.buf[i][0].Key] = t.buf[i][0].Value
				t.buf[i] = t.buf[i][1:]
				if dfs(t) {
					return true
				}
			}
			if s.pc[i] == len(p.Ops) {
				continue
			}
			op := p.Ops[s.pc[i]]
			t := copyState()
			t.pc[i]++
			if op.Kind == Write {
				if tso {
					t.buf[i] = append(t.buf[i], op)
				} else {
					t.mem[op.Key] = op.Value
				}
			} else {
				v, found := int64(0), false
				for j := len(s.buf[i]) - 1; j >= 0 && !found; j-- {
					if s.buf[i][j].Key == op.Key {
						v, found = s.buf[i][j].Value, true
					}
				}
				if !found {
					v = s.mem[op.Key]
				}
				if v != op.Value {
					continue
				}
			}
			if dfs(t) {
				return true
			}
		}
		return false
	}
	return dfs(state{pc: make([]int, len(h.procs)), buf: make([][]Op, len(h.procs)), mem: map[string]int64{}})
}

func oracleCheck(h *History, m Model) bool {
	o := newOracle(h)
	switch m {
	case SC:
		return runOps(h, false)
	case TSO:
		return runOps(h, true)
	case CC:
		return o.cc()
	case CCv:
		return o.ccv()
	case CM:
		return o.cm()
	case CCM:
		return o.ccm()
	case WCCM:
		return o.wccm()
	}
	panic("model")
}

// randomHistory makes a small differentiated history: each write stores
// a fresh value, each read one of the values written to its key (or 0),
// rarely one nobody writes.
func randomHistory(rng *rand.Rand, procs, maxOps, keys int) *History {
	h := New()
	next := map[string]int64{}
	type w struct {
		key string
		v   int64
	}
	var plan [][]w
	var reads [][]bool
	for p := range procs {
		n := 1 + rng.Intn(maxOps)
		plan = append(plan, nil)
		reads = append(reads, nil)
		for range n {
			k := string(rune('x' + rng.Intn(keys)))
			if rng.Intn(2) == 0 {
				next[k]++
				plan[p] = append(plan[p], w{k, next[k]})
				reads[p] = append(reads[p], false)
			} else {
				plan[p] = append(plan[p], w{k, -1})
				reads[p] = append(reads[p], true)
			}
		}
	}
	for p := range plan {
		name := fmt.Sprintf("P%d", p)
		h.AddProcess(name)
		for i, op := range plan[p] {
			if !reads[p][i] {
				h.Write(name, op.key, op.v)
				continue
			}
			v := rng.Int63n(next[op.key] + 1)
			if rng.Intn(50) == 0 {
				v = next[op.key] + 1
			}
			h.Read(name, op.key, v)
		}
	}
	return h
}

// The size of TestOracle's run; go test -args can make it larger.
var (
	oracleSeed  int64 = 1
	oracleN           = 3000
	oracleProcs       = 3
	oracleOps         = 3
	oracleMax         = 9
)

func init() {
	flag.Int64Var(&oracleSeed, "oracle.seed", oracleSeed, "TestOracle: random seed")
	flag.IntVar(&oracleN, "oracle.n", oracleN, "TestOracle: number of histories")
	flag.IntVar(&oracleProcs, "oracle.procs", oracleProcs, "TestOracle: most processes")
	flag.IntVar(&oracleOps, "oracle.ops", oracleOps, "TestOracle: most operations a process")
	flag.IntVar(&oracleMax, "oracle.max", oracleMax, "TestOracle: most operations in all")
}

func TestOracle(t *testing.T) {
	rng := rand.New(rand.NewSource(oracleSeed))
	n := oracleN
	if testing.Short() {
		n = 500
	}
	counts := map[Model][2]int{}
	for i := range n {
		h := randomHistory(rng, 2+rng.Intn(oracleProcs-1), oracleOps, 1+rng.Intn(2))
		if h.Len() > oracleMax {
			continue
		}
		for _, m := range modelOrder {
			res, err := Check(h, m)
			if err != nil {
				t.Fatal(err)
			}
			want := oracleCheck(h, m)
			if res.Consistent != want {
				t.Fatalf("history %d under %s: consistent=%v, the definitions say %v\n%s%v", i, m, res.Consistent, want, h, res.Violation)
			}
			c := counts[m]
			if want {
				c[0]++
			} else {
				c[1]++
			}
			counts[m] = c
		}
	}
	for _, m := range modelOrder {
		t.Logf("%s: %d consistent, %d not", m, counts[m][0], counts[m][1])
	}
}

func TestLitmusOracle(t *testing.T) {
	for _, tc := range litmus {
		h := mustParse(t, tc.name, tc.text)
		for i, m := range modelOrder {
			if i < len(tc.want) {
				if got := oracleCheck(h, m); got != (tc.want[i] == 'y') {
					t.Errorf("%s under %s: the definitions say %v, the table %c", tc.name, m, got, tc.want[i])
				}
			}
		}
	}
}
