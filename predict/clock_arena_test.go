package predict

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// Sweeping the arena after every event computes the same histories as
// never sweeping: no base a clock still holds is ever taken back.
func TestArenaSweepKeepsHistories(t *testing.T) {
	defer func(n int) { sweepEntries = n }(sweepEntries)
	var trs []*trace.Trace
	for _, p := range []synthParams{
		{goroutines: 120, locks: 4, vars: 32, events: 40_000, racy: 0.001, seed: 7},             // all talk to all
		{goroutines: 300, locks: 8, vars: 64, events: 40_000, racy: 0.001, seed: 8, pool: true}, // a counter
	} {
		trs = append(trs, synth(p))
	}
	// Release-merges, release-acquires and atomics among enough
	// goroutines for their clocks to be re-based.
	r := rand.New(rand.NewSource(9))
	for k := 0; k < 20; k++ {
		trs = append(trs, parseTrace(t, genText(r, genParams{goroutines: 80, vars: 6, locks: 2, sigs: 3, ops: 30, atomics: true})))
	}
	trs = append(trs, parseTrace(t, heldOnlyThere()))
	for n, tr := range trs {
		c := newCTP(tr)
		m := newMemory(c)
		every := make(map[int32][]int32) // a pass that keeps chosen states
		for g := range c.byG {
			for p := 0; p <= len(c.byG[g]); p += 2 {
				every[int32(g)] = append(every[int32(g)], int32(p))
			}
		}
		for _, mode := range []clockMode{{}, {rf: true}, {locks: true}, {locks: true, rf: true}, {want: every}} {
			run := func(every int) *riseLog {
				sweepEntries = every
				h, err := newClocks(context.Background(), c, m, mode)
				if err != nil {
					t.Fatal(err)
				}
				return h.h
			}
			if want, got := run(1<<62), run(1); !reflect.DeepEqual(got, want) {
				t.Errorf("trace %d, mode %+v: histories differ when the arena is swept after every event", n, mode)
			}
		}
	}
}

// heldOnlyThere returns a trace in which a base is held only by a pending
// release-merge, and another only by a go statement, when the goroutine
// that made them has moved to a newer base: 80 goroutines meet at a
// counter C, so that their clocks are re-based again and again.
func heldOnlyThere() string {
	var b strings.Builder
	const n = 80
	for k := 2; k <= n+1; k++ {
		fmt.Fprintf(&b, "T1|fork(T%d)\n", k)
	}
	round := func() {
		for k := 2; k <= n+1; k++ {
			fmt.Fprintf(&b, "T%d|wait(C)\nT%d|sig(C)\n", k, k)
		}
	}
	round()
	fmt.Fprintf(&b, "T%d|merge(M)\n", n+1) // pending until T1 waits
	round()
	fmt.Fprintf(&b, "T%d|fork(T%d)\n", n, n+2) // T82 starts at the end
	for k := 0; k < 6; k++ {
		round()
	}
	fmt.Fprintf(&b, "T1|wait(M)\nT%d|w(x)\nT1|r(x)\n", n+2)
	return b.String()
}

func TestSizeClass(t *testing.T) {
	prev := 0
	for n := 1; n < 100_000; n++ {
		c := sizeClass(n)
		if c < n || c < prev || c > n+n/4+8 {
			t.Fatalf("sizeClass(%d) = %d (sizeClass(%d) = %d)", n, c, n-1, prev)
		}
		if sizeClass(c) != c {
			t.Fatalf("sizeClass(%d) = %d, but sizeClass(%d) = %d", n, c, c, sizeClass(c))
		}
		prev = c
	}
}

// A base made from a dense mirror takes storage for the mirror's
// non-zero components, not for the bound its caller passes (the sum of
// the clock's lists, or every goroutine): on a channel stress trace a
// quarter of the bases' storage was that slack. The arena serves it
// from a swept base of its size class or of the class above, no other.
func TestFlattenDenseStorage(t *testing.T) {
	for _, tc := range []struct {
		goroutines, nonzero, bound int
		dense                      bool // over half the goroutines: a copy of the mirror (clock_base_dense.go)
	}{
		{1113, 830, 1113, true},
		{1113, 1113, 2000, true},
		{1113, 557, 1113, true},
		{1113, 556, 1113, false},
		{1113, 830, 556, false}, // the bound says no more than half: not counted
		{4000, 100, 4000, false},
		{64, 0, 64, false},
	} {
		d := make([]int32, tc.goroutines)
		for k := 0; k < tc.nonzero; k++ {
			d[k*tc.goroutines/max(tc.nonzero, 1)] = int32(k + 1)
		}
		sc := &joinScratch{arena: new(baseArena)}
		c := flattenDense(sc, nil, tc.bound, d)
		if got := c.base.n > 0; got != tc.dense {
			t.Fatalf("%+v: the base is dense: %v", tc, got)
		}
		if c.base.len() != tc.nonzero {
			t.Fatalf("%+v: the base holds %d components, want %d", tc, c.base.len(), tc.nonzero)
		}
		for g := range d {
			if got := c.get(int32(g)); got != d[g] {
				t.Fatalf("%+v: component %d is %d, the mirror's %d", tc, g, got, d[g])
			}
		}
		if tc.dense {
			half := (tc.goroutines + 1) / 2 // entries of storage, two int32s each
			if limit := half + half/16 + 1; len(c.base.ents) != half || cap(c.base.ents) > limit {
				t.Errorf("%+v: the dense base's storage is %d entries of %d, want %d of at most %d", tc, len(c.base.ents), cap(c.base.ents), half, limit)
			}
			continue
		}
		got := c.base.ents
		if len(got) != tc.nonzero {
			t.Fatalf("%+v: the base holds %d entries, want %d", tc, len(got), tc.nonzero)
		}
		if limit := tc.nonzero + tc.nonzero/16 + 1; cap(got) > limit {
			t.Errorf("%+v: the base's storage holds %d entries, more than %d", tc, cap(got), limit)
		}
	}
	a := new(baseArena)
	a.free = map[int][][]centry{
		sizeClass(900): {make([]centry, 0, sizeClass(900))},
		sizeClass(600): {make([]centry, 0, sizeClass(600))},
	}
	if b := a.alloc(sizeClass(900) - 60); cap(b) != sizeClass(900) {
		t.Errorf("a request of the class below a free one took storage of %d entries, want the free %d", cap(b), sizeClass(900))
	}
	if b := a.alloc(500); cap(b) != sizeClass(500) {
		t.Errorf("a request far below a free class took storage of %d entries, want new storage of %d", cap(b), sizeClass(500))
	}
}

// Storage a sweep freed and no base took stays for the next window as
// far as its class was asked for in the last one (full clocks' bases are
// made in bursts); a class nobody asked for goes.
func TestArenaKeepsAskedStorage(t *testing.T) {
	a := new(baseArena)
	id := func(b []centry) *centry { return &b[:1][0] }
	made := map[*centry]bool{}
	var held []*frozen
	mk := func(n int) *frozen {
		b := a.alloc(n)
		made[id(b)] = true
		f := &frozen{ents: append(b, centry{1, 1})}
		a.add(f)
		return f
	}
	sweep := func() {
		a.sweep(func(hold func(*frozen)) {
			for _, f := range held {
				hold(f)
			}
		})
	}
	mk(1000)
	mk(1000)
	mk(300)
	sweep() // all three freed
	held = append(held, mk(1000))
	sweep() // one of class 1000 asked for: one kept; class 300 not asked for
	if b := a.alloc(1000); !made[id(b)] {
		t.Errorf("the storage freed two sweeps ago, of a class asked for since, was dropped")
	}
	if got := len(a.free[sizeClass(300)]); got != 0 {
		t.Errorf("%d blocks of a class nobody asked for were kept", got)
	}
}
