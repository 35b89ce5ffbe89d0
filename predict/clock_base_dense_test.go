// This file tests the dense form of clock bases (clock_base_dense.go):
// every reader gives what it gives for the same base kept sparse, and a
// pass gives the same history with dense bases as without.

package predict

import (
	"context"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

// sortedEntries returns up to n entries of distinct goroutines below ng,
// sorted, with values in [1, top].
func sortedEntries(r *rand.Rand, ng, n int, top int32) []centry {
	var es []centry
	for _, g := range r.Perm(ng)[:min(n, ng)] {
		es = append(es, centry{int32(g), 1 + r.Int31n(top)})
	}
	slices.SortFunc(es, func(a, b centry) int { return int(a.g - b.g) })
	return es
}

// A dense base and a sparse base made from the same mirror read the
// same through every reader: len, get, keepAbove, raiseInto, maxInto
// and a clock's allTo and each over it with a layer and a delta
// (including goroutines past the mirror's, which a delta may hold in a
// test's clocks).
func TestDenseBaseReaders(t *testing.T) {
	defer func(on bool) { denseBases = on }(denseBases)
	r := rand.New(rand.NewSource(31))
	for it := 0; it < 3000; it++ {
		ng := 1 + r.Intn(70)
		d := make([]int32, ng)
		for g := range d {
			if r.Intn(10) < 8 {
				d[g] = 1 + r.Int31n(50)
			}
		}
		base := func(dense bool) *frozen {
			denseBases = dense
			sc := &joinScratch{arena: new(baseArena)}
			return flattenDense(sc, nil, ng, slices.Clone(d)).base
		}
		sp, dn := base(false), base(true)
		if sp.n > 0 || (dn.n == 0) != (2*nonZero(d) <= ng) {
			t.Fatalf("it %d: %d of %d non-zero: sparse form dense %v, dense form dense %v", it, nonZero(d), ng, sp.n > 0, dn.n > 0)
		}
		if sp.len() != dn.len() {
			t.Fatalf("it %d: len %d sparse, %d dense", it, sp.len(), dn.len())
		}
		for g := int32(-1); g <= int32(ng)+2; g++ {
			if g >= 0 && sp.get(g) != dn.get(g) {
				t.Fatalf("it %d: component %d: %d sparse, %d dense", it, g, sp.get(g), dn.get(g))
			}
		}
		cand := sortedEntries(r, ng+3, r.Intn(ng+3), 60)
		if a, b := sp.keepAbove(nil, cand), dn.keepAbove(nil, cand); !slices.Equal(a, b) {
			t.Fatalf("it %d: keepAbove %v: %v sparse, %v dense", it, cand, a, b)
		}
		// raiseInto and maxInto, from the same random receiver.
		m := make([]int32, ng+r.Intn(3))
		for g := range m {
			m[g] = r.Int31n(60)
		}
		m1, m2 := slices.Clone(m), slices.Clone(m)
		if a, b := sp.raiseInto(nil, m1), dn.raiseInto(nil, m2); !slices.Equal(a, b) || !slices.Equal(m1, m2) {
			t.Fatalf("it %d: raiseInto: rose %v sparse, %v dense; mirrors %v, %v", it, a, b, m1, m2)
		}
		m1, m2 = slices.Clone(m), slices.Clone(m)
		sp.maxInto(m1)
		dn.maxInto(m2)
		if !slices.Equal(m1, m2) {
			t.Fatalf("it %d: maxInto: %v sparse, %v dense", it, m1, m2)
		}
		// Clocks over either base, with a layer and a delta, each of
		// whose entries exceeds the lists' below it (vclock's invariant).
		var mid *layer
		if r.Intn(2) == 0 {
			mid = &layer{ents: sortedEntries(r, ng+3, r.Intn(8), 20)}
			for j, e := range mid.ents {
				mid.ents[j].v += sp.get(e.g)
			}
		}
		delta := sortedEntries(r, ng+3, r.Intn(8), 20)
		for j, e := range delta {
			delta[j].v += vclock{base: sp, mid: mid}.get(e.g)
		}
		cs, cd := vclock{base: sp, mid: mid, delta: delta}, vclock{base: dn, mid: mid, delta: delta}
		if a, b := cs.allTo(nil), cd.allTo(nil); !slices.Equal(a, b) {
			t.Fatalf("it %d: allTo: %v sparse, %v dense", it, a, b)
		}
		var es, ed []centry
		cs.each(func(g, v int32) { es = append(es, centry{g, v}) })
		cd.each(func(g, v int32) { ed = append(ed, centry{g, v}) })
		if !slices.Equal(es, ed) || cs.size() != cd.size() {
			t.Fatalf("it %d: each: %v sparse, %v dense; size %d, %d", it, es, ed, cs.size(), cd.size())
		}
	}
}

// A pass gives the same history with dense bases as without, mirrors
// made at once or late and the arena swept often (so that dense bases'
// storage is reused); and it makes dense bases.
func TestDenseBasesSameHistory(t *testing.T) {
	defer func(on bool, sw int) { denseBases, sweepEntries = on, sw }(denseBases, sweepEntries)
	sweepEntries = 64
	trs := historyTraces(t, 53, 20) // clock_rises_mixed_test.go
	trs = append(trs,
		synth(synthParams{goroutines: 120, locks: 4, vars: 32, events: 20_000, racy: 0.001, seed: 8}),
		synth(synthParams{goroutines: 300, locks: 8, vars: 64, events: 20_000, racy: 0.001, seed: 9, pool: true}))
	ring, err := synthtrace.Ring(200, 4)
	if err != nil {
		t.Fatal(err)
	}
	trs = append(trs, ring)
	run := func(tr *trace.Trace, c *ctp, m *memory, mode clockMode, dense bool, min int) *clocks {
		var out *clocks
		withJoins(true, true, func() { // dense_test.go
			denseMin, denseBases = min, dense
			var err error
			if out, err = newClocks(context.Background(), c, m, mode); err != nil {
				t.Fatal(err)
			}
		})
		return out
	}
	modes := []clockMode{{}, {locks: true, rf: true}, {rf: true, acqRises: true}}
	made := denseBasesMade.Load()
	for n, tr := range trs {
		c := newCTP(tr)
		m := newMemory(c)
		for _, mode := range modes {
			for _, min := range []int{0, 6} {
				ref := run(tr, c, m, mode, false, min)
				got := run(tr, c, m, mode, true, min)
				if !reflect.DeepEqual(ref.h, got.h) || !reflect.DeepEqual(ref.acq, got.acq) {
					t.Fatalf("trace %d, mode %+v, mirrors from %d entries: the history differs with dense bases", n, mode, min)
				}
			}
		}
	}
	if made = denseBasesMade.Load() - made; made == 0 {
		t.Fatal("no dense base was made: the test does not reach them")
	}
	t.Logf("%d dense bases made", made)
}

// A dense base of an odd number of goroutines has an int32 of padding in
// its storage, which may be a swept base's: it must read as zero, so that
// no clock over the base holds a goroutine the pass does not have.
func TestDenseBasePadding(t *testing.T) {
	const ng = 9
	half := (ng + 1) / 2
	junk := make([]centry, sizeClass(half))
	for j := range junk {
		junk[j] = centry{77, 77}
	}
	a := &baseArena{free: map[int][][]centry{sizeClass(half): {junk[:0]}}}
	d := make([]int32, ng)
	for g := range d {
		d[g] = int32(g + 1)
	}
	c := flattenDense(&joinScratch{arena: a}, nil, ng, d)
	if c.base.n == 0 || &c.base.ents[0] != &junk[0] {
		t.Fatal("the base is not dense in the swept storage: the test does not reach the padding")
	}
	if v := c.get(ng); v != 0 {
		t.Errorf("goroutine %d, past the mirror's, reads %d", ng, v)
	}
	if got := c.allTo(nil); len(got) != ng || got[ng-1] != (centry{ng - 1, ng}) {
		t.Errorf("the base's entries are %v, want goroutines 0 to %d", got, ng-1)
	}
}

// BenchmarkRaiseBase raises a mirror to bases shaped like the channel
// stress trace's (bench/RESULTS.md): 1,114 goroutines, 78% of them in a
// base, a sixth of them above the mirror, either a run of them (in the
// trace's pass the blocks of eight with a rise are few) or scattered;
// the same bases sorted and dense, 512 of them in turn (9-12 MB: out of
// the caches, as a pass's). Each op also copies the mirror back.
func BenchmarkRaiseBase(b *testing.B) {
	defer func(on bool) { denseBases = on }(denseBases)
	const ng, nb = 1114, 512
	for _, shape := range []string{"run", "scattered"} {
		r := rand.New(rand.NewSource(3))
		var ds, mirrors [][]int32
		for range nb {
			d, m := make([]int32, ng), make([]int32, ng)
			lo := r.Intn(ng - ng/6)
			for g := range d {
				if r.Intn(100) < 78 {
					d[g] = 1 + r.Int31n(100000)
					m[g] = d[g]
					if rise := g >= lo && g < lo+ng/6; shape == "scattered" && r.Intn(6) == 0 || shape == "run" && rise {
						m[g] -= 1 + r.Int31n(d[g])
					}
				}
			}
			ds, mirrors = append(ds, d), append(mirrors, m)
		}
		for _, dense := range []bool{false, true} {
			denseBases = dense
			bases := make([]*frozen, nb)
			for i, d := range ds {
				bases[i] = flattenDense(&joinScratch{}, nil, ng, d).base
			}
			name := shape + "/sorted"
			if dense {
				name = shape + "/dense"
			}
			b.Run(name, func(b *testing.B) {
				d := make([]int32, ng)
				var out []centry
				for i := range b.N {
					copy(d, mirrors[i%nb])
					out = bases[i%nb].raiseInto(out[:0], d)
				}
			})
		}
	}
}
