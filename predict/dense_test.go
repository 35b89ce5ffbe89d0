// This file tests the dense mirrors and base tags of the vector-clock
// passes (clock_vc.go's joinDense and knowsBase) and the closure's use of
// the rises kept at release-acquire events (solve_plan.go's closeInto) against
// the plain ways: each must give the same clocks and cuts.

package predict

import (
	"context"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"
)

// joinDense gives joinOwn's clock and rises, and keeps its mirror exact.
func TestJoinDense(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const ng = 300
	pool := []vclock{{}}
	for step := 0; step < 20000; step++ {
		a, b, extras := randomJoin(r, pool, ng)
		ref := &joinScratch{wantRises: true}
		want, _, _ := joinOwn(ref, a, false, b, extras...)
		d := make([]int32, ng)
		a.each(func(k, v int32) { d[k] = v })
		sc := &joinScratch{wantRises: true}
		got, changed, _ := joinDense(sc, a, false, d, b, extras...)
		for g := int32(0); g < ng; g++ {
			if got.get(g) != want.get(g) || d[g] != want.get(g) {
				t.Fatalf("step %d: component %d: dense join %d, mirror %d, joinOwn %d", step, g, got.get(g), d[g], want.get(g))
			}
		}
		if len(sc.rises) != len(ref.rises) {
			t.Fatalf("step %d: rises %v, joinOwn's %v", step, sc.rises, ref.rises)
		}
		for i := range sc.rises {
			if sc.rises[i] != ref.rises[i] {
				t.Fatalf("step %d: rises %v, joinOwn's %v", step, sc.rises, ref.rises)
			}
		}
		if changed != (len(sc.rises) > 0) {
			t.Fatalf("step %d: changed %v with %d rises", step, changed, len(sc.rises))
		}
		pool = append(pool, got)
		if len(pool) > 64 {
			pool = pool[len(pool)-64:]
		}
	}
}

// randomJoin picks a receiver and a source from pool and up to three
// epochs of goroutines below ng to join besides.
func randomJoin(r *rand.Rand, pool []vclock, ng int) (a, b vclock, extras []centry) {
	a, b = pool[r.Intn(len(pool))], pool[r.Intn(len(pool))]
	for k := r.Intn(4); k > 0; k-- {
		extras = append(extras, centry{int32(r.Intn(ng)), int32(1 + r.Intn(1000))})
	}
	return a, b, extras
}

// withJoins runs f with the passes joining every clock densely (or never)
// and tagging bases (or not).
func withJoins(dense, tags bool, f func()) {
	b, m, tg, fd := denseBudget, denseMin, tagBases, flattenDelta
	defer func() { denseBudget, denseMin, tagBases, flattenDelta = b, m, tg, fd }()
	// Small traces' clocks would never make a base: make one at every
	// join that changes a clock, so that tags are used.
	denseBudget, denseMin, tagBases, flattenDelta = 0, m, tags, 0
	if dense {
		denseBudget, denseMin = 1<<30, 0
	}
	f()
}

// A pass gives the same history whether its clocks are joined densely or
// sparsely, with bases judged by their tags or only by their ancestry;
// and a closure over the cone gives the same cut whether it reads what
// rose at a release-acquire event or the goroutine's whole clock there.
func TestClocksDenseTagged(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	modes := []clockMode{{}, {locks: true}, {locks: true, serial: true, rf: true}, {rf: true, acqRises: true}}
	for it := 0; it < 200; it++ {
		p := syncParams(r)
		p.goroutines += r.Intn(6)
		tr, _ := genTrace(r, p)
		c := newCTP(tr)
		m := newMemory(c)
		for _, mode := range modes {
			var ref, got *clocks
			withJoins(false, false, func() { ref, _ = newClocks(context.Background(), c, m, mode) })
			withJoins(true, true, func() { got, _ = newClocks(context.Background(), c, m, mode) })
			for g := range c.byG {
				for q := int32(0); q <= int32(len(c.byG[g])); q++ {
					for k := int32(0); k < int32(len(c.byG)); k++ {
						if a, b := ref.knows(int32(g), q, k), got.knows(int32(g), q, k); a != b {
							t.Fatalf("it %d mode %+v: g%d after %d knows g%d: sparse %d, dense and tagged %d", it, mode, g, q, k, a, b)
						}
					}
				}
			}
			if got.acq == nil {
				continue
			}
			e := &engine{c: c}
			full := &clocks{c: c, h: got.h}
			for try := 0; try < 20; try++ {
				a, b := make([]int32, len(c.byG)), make([]int32, len(c.byG))
				for n := 1 + r.Intn(3); n > 0; n-- {
					g := int32(r.Intn(len(c.byG)))
					q := int32(r.Intn(len(c.byG[g]) + 1))
					e.closeInto(full, a, g, q)
					e.closeInto(got, b, g, q)
					for k := range a {
						if a[k] != b[k] {
							t.Fatalf("it %d: closure after g%d:%d: cut %v reading whole clocks, %v reading rises", it, g, q, a, b)
						}
					}
				}
			}
		}
	}
}

// When the must-happen-before pass finds every kept read's writer known
// (clockMode.rfCheck), the cone's pass gives the same clocks and rises, so
// that the engine can use the one for the other.
func TestConeImpliedByMHB(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	implied := 0
	for it := 0; it < 400; it++ {
		p := syncParams(r)
		if it%2 == 0 {
			p.vars = 1 + r.Intn(2) // few variables: reads of others' writes
		}
		tr, _ := genTrace(r, p)
		c := newCTP(tr)
		m := newMemory(c)
		o := Options{}
		e, err := relevance(context.Background(), tr, c, m, o.defaults())
		if err != nil {
			t.Fatal(err)
		}
		mhb, _ := newClocks(context.Background(), c, m, clockMode{rfCheck: true, relaxed: e.relaxed})
		cone, _ := newClocks(context.Background(), c, m, clockMode{rf: true, relaxed: e.relaxed, acqRises: true})
		same := true
		for g := range c.byG {
			for q := int32(0); q <= int32(len(c.byG[g])); q++ {
				for k := int32(0); k < int32(len(c.byG)); k++ {
					same = same && mhb.knows(int32(g), q, k) == cone.knows(int32(g), q, k)
				}
			}
		}
		if mhb.acq != nil {
			t.Fatalf("it %d: the must-happen-before pass kept the rises at release-acquire events", it)
		}
		if !mhb.rfImplied {
			continue
		}
		implied++
		if !same {
			t.Fatalf("it %d: read-from implied, yet the cone's clocks differ from must-happen-before's", it)
		}
		// The rises the cone takes from must-happen-before's history are
		// those its own pass keeps (in order of goroutine: the pass's log
		// keeps an event's in the order its joins found them).
		macq := risesFromLog(c, mhb.h)
		byG := func(a, b centry) int { return int(a.g - b.g) }
		cev, mev := cone.acq.events(), macq.events()
		for j, i := range cev {
			a, b := cone.acq.at(nil, i), macq.at(nil, mev[j])
			slices.SortFunc(a, byG)
			if mev[j] != i || !slices.Equal(a, b) {
				t.Fatalf("it %d: rises at event %d: cone %v, must-happen-before %v", it, i, a, b)
			}
		}
		if len(cev) != len(mev) {
			t.Fatalf("it %d: rises at %d events, must-happen-before's at %d", it, len(cev), len(mev))
		}
	}
	if implied == 0 || implied == 400 {
		t.Fatalf("read-from implied in %d of 400 traces: the test says nothing", implied)
	}
	t.Logf("read-from implied in %d of 400 traces", implied)
}

// The SHB layer's race check and the read-from joins read a goroutine's
// clock from its dense mirror when it has one: the layer proves the same
// pairs, and the analysis finds the same, with mirrors everywhere or
// nowhere.
func TestSHBReadsDenseMirror(t *testing.T) {
	r := rand.New(rand.NewSource(37))
	checked := 0
	for it := 0; it < 60; it++ {
		p := syncParams(r)
		p.goroutines += r.Intn(6)
		p.ops += r.Intn(20)
		tr, _ := genTrace(r, p)
		var res [2]*Result
		for j, dense := range []bool{false, true} {
			withJoins(dense, true, func() {
				res[j] = analyze(t, tr, Options{NoAtomicity: true, SolveTimeout: time.Hour})
			})
		}
		for k := range res[0].Stats.Stages {
			a, b := res[0].Stats.Stages[k], res[1].Stats.Stages[k]
			a.Time, b.Time = 0, 0
			if a != b {
				t.Fatalf("it %d: stage %s sparse %+v, dense %+v", it, a.Name, a, b)
			}
		}
		if !reflect.DeepEqual(res[0].Findings, res[1].Findings) {
			t.Fatalf("it %d: findings differ, sparse and dense", it)
		}
		checked += len(res[0].Findings)
	}
	if checked == 0 {
		t.Fatal("no findings: the test says nothing")
	}
}
