// This file tests the persistent sparse vector clocks (clock_vc.go) against
// plain maps.

package predict

import (
	"context"
	"math/rand"
	"testing"
)

func TestClockJoin(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	type pair struct {
		c vclock
		m map[int32]int32
	}
	check := func(p pair) {
		t.Helper()
		for g := int32(0); g < 300; g++ {
			if got, want := p.c.get(g), p.m[g]; got != want {
				t.Fatalf("component %d = %d, want %d", g, got, want)
			}
		}
		n := 0
		prev := int32(-1)
		p.c.each(func(g, v int32) {
			if g <= prev || v != p.m[g] {
				t.Fatalf("each: (%d,%d) after %d; want %d", g, v, prev, p.m[g])
			}
			prev = g
			n++
		})
		want := 0
		for _, v := range p.m {
			if v > 0 {
				want++
			}
		}
		if n != want {
			t.Fatalf("each visited %d components, want %d", n, want)
		}
	}
	pool := []pair{{vclock{}, map[int32]int32{}}}
	for step := 0; step < 20000; step++ {
		a := pool[r.Intn(len(pool))]
		b := pool[r.Intn(len(pool))]
		var extras []centry
		for k := r.Intn(4); k > 0; k-- {
			extras = append(extras, centry{int32(r.Intn(300)), int32(1 + r.Intn(1000))})
		}
		sc := &joinScratch{wantRises: true}
		c, changed, _ := joinOwn(sc, a.c, false, b.c, extras...)
		m := map[int32]int32{}
		for g, v := range a.m {
			m[g] = v
		}
		for g, v := range b.m {
			m[g] = max(m[g], v)
		}
		for _, e := range extras {
			m[e.g] = max(m[e.g], e.v)
		}
		differs := len(m) != len(a.m)
		for g, v := range m {
			if a.m[g] != v {
				differs = true
			}
		}
		if differs && !changed {
			t.Fatalf("step %d: join changed the clock but reported no change", step)
		}
		rose := 0
		for i, e := range sc.rises {
			if e.v != m[e.g] || e.v <= a.m[e.g] || i > 0 && sc.rises[i-1].g >= e.g {
				t.Fatalf("step %d: rise %v: component is %d, was %d", step, e, m[e.g], a.m[e.g])
			}
			rose++
		}
		for g, v := range m {
			if v > a.m[g] {
				rose--
			}
		}
		if rose != 0 {
			t.Fatalf("step %d: join reported %d rises too many", step, rose)
		}
		p := pair{c, m}
		check(p)
		check(a) // persistence: a is unchanged
		pool = append(pool, p)
		if len(pool) > 64 {
			pool = pool[len(pool)-64:]
		}
	}
}

// A pass that keeps only the wanted states answers as the full history.
func TestClocksWanted(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for it := 0; it < 300; it++ {
		tr, _ := genTrace(r, syncParams(r))
		c := newCTP(tr)
		m := newMemory(c)
		full, _ := newClocks(context.Background(), c, m, clockMode{locks: true})
		want := map[int32][]int32{}
		for g := range c.byG {
			for q := int32(0); q <= int32(len(c.byG[g])); q++ {
				if r.Intn(3) == 0 {
					want[int32(g)] = append(want[int32(g)], q)
				}
			}
		}
		some, _ := newClocks(context.Background(), c, m, clockMode{locks: true, want: want})
		for g, qs := range want {
			for _, q := range qs {
				for k := int32(1); k < int32(len(c.byG)); k++ {
					if a, b := full.knows(g, q, k), some.knows(g, q, k); a != b {
						t.Fatalf("g%d after %d knows g%d: full %d, wanted %d", g, q, k, a, b)
					}
				}
			}
		}
	}
}

// mergeMaxTo gives the sorted pointwise maximum whichever way it takes:
// the merge walk for lists of like lengths, mergeFewTo's searches and
// copied runs for a short one against a long one (either side).
func TestMergeMaxTo(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	list := func(n, span int) []centry { return sortedList(r, n, span) } // clock_merge_test.go
	for _, sz := range [][2]int{{0, 0}, {0, 5}, {3, 3}, {1, 100}, {100, 1}, {5, 200}, {200, 5}, {12, 90}, {90, 12}, {40, 40}} {
		for it := 0; it < 50; it++ {
			a, b := list(sz[0], 400), list(sz[1], 400)
			checkMerged(t, sz, mergeMaxTo([]centry{{-1, 9}}, a, b), a, b) // appends to out; clock_merge_test.go
		}
	}
}
