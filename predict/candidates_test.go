// This file tests candidates.go.

package predict

import (
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestAtomicityPairsPerVariable: a write of a whole struct joins its fields
// into one location, but the access pairs of the atomicity patterns are
// consecutive accesses to one variable. Here the transaction reads bal,
// then mu (as Lock's compare-and-swap does), then writes bal; the pair is
// (read bal, write bal), and the remote write of bal falls between.
func TestAtomicityPairsPerVariable(t *testing.T) {
	tr := parseTrace(t, `
T0|w(mu)|1
T0|w(bal)|2
T0|fork(T1)|3
T0|fork(T2)|4
T1|begin|10
T1|r(bal)|11
T1|r(mu)|12
T1|w(bal)|13
T1|end|14
T2|w(bal)|20
`)
	// The first write becomes the struct's: mu and bal are adjacent.
	w := &tr.Events[0]
	if b := tr.Events[1].Addr; b != w.Addr+8 {
		t.Fatalf("bal at %#x, mu at %#x: want adjacent", b, w.Addr)
	}
	w.Size = 16
	res := analyze(t, tr, Options{NoRaces: true})
	if got := describe(tr, res.Findings); !strings.Contains(got, "atomicity 11-20-13") {
		t.Errorf("want the atomicity violation 11-20-13, got %q", got)
	}
}

// accessClassesByTable is the grouping accessClasses replaced, kept as the
// reference: one table of all classes, numbered as they are first seen.
func accessClassesByTable(c *ctp, m *memory) ([]aclass, map[int32][]int32) {
	classes := make(map[classKey]int32)
	var cl []aclass
	byLoc := make(map[int32][]int32)
	for i := range c.ev {
		if !m.shared(int32(i)) {
			continue
		}
		e := &c.ev[i]
		k := classKey{loc: m.loc[i], g: int32(e.G), site: c.site(int32(i)), ls: c.lsOf(int32(i)), op: e.Op, addr: e.Addr, size: e.Size}
		id, ok := classes[k]
		if !ok {
			id = int32(len(cl))
			cl = append(cl, aclass{loc: k.loc, g: k.g, site: k.site, write: isWrite(e.Op), atomic: e.Op.IsAtomic(), addr: e.Addr, size: e.Size, ls: k.ls})
			classes[k] = id
			byLoc[k.loc] = append(byLoc[k.loc], id)
		}
		cl[id].evs = append(cl[id].evs, int32(i))
	}
	return cl, byLoc
}

// accessClasses, which finds each location's classes among its own (by
// a scan while they are few, then a table), numbers and fills them as
// one table of all of them does: on random traces, on traces whose
// locations have many classes each (a table per location), and on
// synthetic runs with thousands of locations.
func TestAccessClassesLikeOneTable(t *testing.T) {
	traces := randomTraces(3, 200, func(r *rand.Rand, it int) genParams {
		p := genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(4), sigs: r.Intn(3),
			ops: 2 + r.Intn(12), atomics: r.Intn(2) == 0, cut: 0.01}
		if it%10 == 0 { // many classes per location: goroutines and sites
			p.goroutines, p.vars, p.ops = 8+r.Intn(8), 1, 30+r.Intn(60)
		}
		return p
	}, true)
	many := 0
	for n, tr := range traces {
		c := newCTP(tr)
		m := newMemory(c)
		want, wantLoc := accessClassesByTable(c, m)
		got, gotLoc := accessClasses(c, m)
		if len(got) != len(want) {
			t.Fatalf("trace %d: %d classes, want %d", n, len(got), len(want))
		}
		for id := range want {
			w, g := want[id], got[id]
			if !slices.Equal(w.evs, g.evs) {
				t.Fatalf("trace %d: class %d's accesses %v, want %v", n, id, g.evs, w.evs)
			}
			w.evs, g.evs = nil, nil
			if !reflect.DeepEqual(w, g) {
				t.Fatalf("trace %d: class %d is %+v, want %+v", n, id, g, w)
			}
		}
		if len(gotLoc) != len(wantLoc) {
			t.Fatalf("trace %d: classes at %d locations, want %d", n, len(gotLoc), len(wantLoc))
		}
		for l, ids := range wantLoc {
			if !slices.Equal(gotLoc[l], ids) {
				t.Fatalf("trace %d: location %d's classes %v, want %v", n, l, gotLoc[l], ids)
			}
			if len(ids) > 17 {
				many++
			}
		}
	}
	if many == 0 {
		t.Fatal("no location with more classes than a scan looks through: the test says nothing of the tables")
	}
}

// conflictPairs, which looks only at pairs with a write, lets the lockset
// filter see the pairs, and count them, in the order of the loop over
// every pair of a location's classes.
func TestConflictPairsLikeEveryPair(t *testing.T) {
	traces := randomTraces(29, 300, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(4), sigs: r.Intn(3),
			ops: 2 + r.Intn(20), atomics: r.Intn(2) == 0, cut: 0.01}
	}, true)
	seen := 0
	for n, tr := range traces {
		c := newCTP(tr)
		m := newMemory(c)
		cl, byLoc := accessClasses(c, m)
		locs := slices.Sorted(maps.Keys(byLoc))
		want, got := &candidates{}, &candidates{}
		var wantPairs, gotPairs, buf [][2]int32
		for _, l := range locs {
			ids := byLoc[l]
			for x := 0; x < len(ids); x++ {
				for y := x + 1; y < len(ids); y++ {
					if raceLockset(c, want, &cl[ids[x]], &cl[ids[y]], false) {
						wantPairs = append(wantPairs, [2]int32{ids[x], ids[y]})
					}
				}
			}
			buf = conflictPairs(buf[:0], cl, ids)
			for _, p := range buf {
				if raceLockset(c, got, &cl[p[0]], &cl[p[1]], false) {
					gotPairs = append(gotPairs, p)
				}
			}
		}
		if !slices.Equal(gotPairs, wantPairs) {
			t.Fatalf("trace %d: pairs past lockset %v, want %v", n, gotPairs, wantPairs)
		}
		if !reflect.DeepEqual(got.f, want.f) {
			t.Fatalf("trace %d: funnel %+v, want %+v", n, got.f, want.f)
		}
		seen += len(wantPairs)
	}
	if seen == 0 {
		t.Fatal("no pair past lockset: the test says nothing")
	}
}
