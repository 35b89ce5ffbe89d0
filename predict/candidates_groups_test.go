// This file tests candidates_groups.go against the pair-by-pair lockset
// stage (conflictPairs and raceLockset).

package predict

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sharedSiteTrace is a random run of goroutines that all execute the same
// few lines, as goroutines started from one function do: locked
// increments of n under mu, increments of m under mu or under l2, reads
// and writes of n without a lock, atomics on a and plain reads and
// writes of it (so that every kind of access meets every other), and
// reads of a's neighbour under either lock. So a location has many classes that differ
// only by goroutine, with pairs the lockset filter drops and pairs it
// lets through.
func sharedSiteTrace(r *rand.Rand, goroutines, steps int) string {
	var b strings.Builder
	for g := 2; g <= goroutines; g++ {
		fmt.Fprintf(&b, "T1|fork(T%d)|1\n", g)
	}
	steps0 := []string{
		"acq(mu)|10 r(n)|11 w(n)|12 rel(mu)|13",
		"acq(mu)|20 r(m)|21 w(m)|22 rel(mu)|23",
		"acq(l2)|30 r(m)|31 w(m)|32 rel(l2)|33",
		"r(n)|40",
		"w(n)|41",
		"ast(a)|50",
		"ald(a)|51",
		"r(a)|52",
		"w(a)|53",
		"acq(mu)|60 r(b)|61 rel(mu)|62",
		"acq(l2)|70 w(b)|71 rel(l2)|72",
	}
	left := make([]int, goroutines+1)
	for g := 1; g <= goroutines; g++ {
		left[g] = r.Intn(steps + 1)
	}
	for {
		var ready []int
		for g := 1; g <= goroutines; g++ {
			if left[g] > 0 {
				ready = append(ready, g)
			}
		}
		if len(ready) == 0 {
			break
		}
		g := ready[r.Intn(len(ready))]
		left[g]--
		for _, ev := range strings.Fields(steps0[r.Intn(len(steps0))]) {
			fmt.Fprintf(&b, "T%d|%s\n", g, ev)
		}
	}
	return b.String()
}

func TestLocksetGroupsSame(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	var traces []string
	for i := 0; i < 200; i++ {
		traces = append(traces, sharedSiteTrace(r, 2+r.Intn(40), 1+r.Intn(8)))
	}
	grouped, dropped, passed := 0, 0, 0
	for n, text := range traces {
		tr := parseTrace(t, text)
		c := newCTP(tr)
		m := newMemory(c)
		cl, byLoc := accessClasses(c, m)
		locs := slices.Sorted(maps.Keys(byLoc))
		for _, noLockset := range []bool{false, true} {
			want, got := &candidates{}, &candidates{}
			var wantPairs, gotPairs, buf [][2]int32
			for _, l := range locs {
				ids := byLoc[l]
				buf = conflictPairs(buf[:0], cl, ids)
				for _, p := range buf {
					if raceLockset(c, want, &cl[p[0]], &cl[p[1]], noLockset) {
						wantPairs = append(wantPairs, p)
					}
				}
				gotPairs = locksetByGroups(c, got, cl, ids, noLockset, gotPairs)
			}
			if !slices.Equal(gotPairs, wantPairs) {
				t.Fatalf("trace %d (noLockset %v): pairs past lockset %v, want %v\n%s", n, noLockset, gotPairs, wantPairs, text)
			}
			if !reflect.DeepEqual(got.f, want.f) {
				t.Fatalf("trace %d (noLockset %v): funnel %+v, want %+v\n%s", n, noLockset, got.f, want.f, text)
			}
			if !noLockset {
				passed += len(wantPairs)
				dropped += int(want.f.total[0] - want.f.lockset[0])
			}
		}
		for _, ids := range byLoc {
			sites := map[classGroupKey]int{}
			for _, id := range ids {
				a := &cl[id]
				sites[classGroupKey{site: a.site, ls: a.ls, write: a.write, atomic: a.atomic, addr: a.addr, size: a.size}]++
			}
			for _, k := range sites {
				if k > 1 {
					grouped++
				}
			}
		}
	}
	if grouped == 0 || dropped == 0 || passed == 0 {
		t.Fatalf("groups of several classes %d, pairs dropped by lockset %d, passed %d: the test says nothing", grouped, dropped, passed)
	}
}

// The whole analysis with every location's lockset stage by groups, and
// with none: the same findings.
func TestLocksetGroupsSameFindings(t *testing.T) {
	r := rand.New(rand.NewSource(32))
	defer func(v int) { groupClassesAbove = v }(groupClassesAbove)
	for i := 0; i < 60; i++ {
		tr := parseTrace(t, sharedSiteTrace(r, 2+r.Intn(20), 1+r.Intn(6)))
		groupClassesAbove = 0
		a := describe(tr, analyze(t, tr, Options{}).Findings)
		groupClassesAbove = 1 << 30
		b := describe(tr, analyze(t, tr, Options{}).Findings)
		if a != b {
			t.Fatalf("trace %d: findings by groups %q, pair by pair %q", i, a, b)
		}
	}
}

// The atomicity patterns' lockset stage by groups against class by class,
// with critical sections as transactions: the same triples, funnel and
// race pairs.
func TestAtomicityGroupsSame(t *testing.T) {
	r := rand.New(rand.NewSource(33))
	defer func(v int) { groupClassesAbove = v }(groupClassesAbove)
	atoms, grouped := 0, 0
	for i := 0; i < 150; i++ {
		text := sharedSiteTrace(r, 2+r.Intn(30), 1+r.Intn(8))
		tr := parseTrace(t, text)
		opts := &Options{CriticalSectionsAsTransactions: true}
		run := func(above int) *candidates {
			groupClassesAbove = above
			c := newCTP(tr)
			cs, err := candidateClasses(context.Background(), c, newMemory(c), opts, false)
			if err != nil {
				t.Fatal(err)
			}
			return cs
		}
		got, want := run(0), run(1<<30)
		if !reflect.DeepEqual(got.atoms, want.atoms) || !reflect.DeepEqual(got.racePairs, want.racePairs) || !reflect.DeepEqual(got.f, want.f) {
			t.Fatalf("trace %d: by groups %v %v %+v, class by class %v %v %+v\n%s", i, got.atoms, got.racePairs, got.f, want.atoms, want.racePairs, want.f, text)
		}
		atoms += len(want.atoms)
		grouped += int(want.f.total[1] - want.f.lockset[1])
	}
	if atoms == 0 || grouped == 0 {
		t.Fatalf("triples past lockset %d, dropped %d: the test says nothing", atoms, grouped)
	}
}
