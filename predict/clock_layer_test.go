// This file tests the middle layer of the vector clocks (clock_layer.go):
// every clock a join makes with layers must be the clock it makes without
// them (and a plain array's), with the same rises, while the clocks it
// shared (released, snapshotted) keep their values; and a whole pass must
// give the same history and the SHB layer the same findings.

package predict

import (
	"context"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"
)

// layerWorld is one side of TestMidLayerSameClocks: goroutines' clocks with
// their ownership flags and dense mirrors, and the clocks stored
// elsewhere (variables, snapshots), each with the array it must equal.
type layerWorld struct {
	cur   []vclock
	own   []bool
	dn    [][]int32 // a mirror, or nil
	vars  []vclock
	snaps []vclock
}

// held is a stored clock and its value when it was stored.
type heldClock struct {
	c    vclock
	want []int32
}

func dense(c vclock, ng int) []int32 {
	d := make([]int32, ng)
	c.each(func(g, v int32) { d[g] = v })
	return d
}

// Random joins among goroutines that release, snapshot and acquire, as a
// pass does (clock_pass.go): with layers on, every clock, rise, change
// flag and mirror equals the one without layers and the plain arrays'
// maximum, and every clock stored before is unchanged (nobody updated a
// shared delta or layer in place).
func TestMidLayerSameClocks(t *testing.T) {
	defer func(on bool, md, fd int) { midLayers, midDelta, flattenDelta = on, md, fd }(midLayers, midDelta, flattenDelta)
	const ng = 160
	made := layersMade.Load()
	for _, cfg := range []struct{ midDelta, flattenDelta int }{{2, 0}, {4, 32}, {8, 512}, {32, 32}} {
		midDelta, flattenDelta = cfg.midDelta, cfg.flattenDelta
		r := rand.New(rand.NewSource(int64(23 + cfg.midDelta)))
		var ws [2]layerWorld                    // 0: without layers, 1: with
		var refCur, refVars, refSnaps [][]int32 // the plain arrays' clocks
		for i := range ws {
			ws[i] = layerWorld{cur: make([]vclock, ng), own: make([]bool, ng), dn: make([][]int32, ng)}
		}
		for g := 0; g < ng; g++ {
			refCur = append(refCur, make([]int32, ng))
			if g%5 == 0 { // a fifth of the goroutines join densely
				for i := range ws {
					ws[i].dn[g] = make([]int32, ng)
				}
			}
		}
		var stored []heldClock // every clock stored on the layered side
		for step := 0; step < 30000; step++ {
			g := r.Intn(ng)
			switch op := r.Intn(10); {
			case op < 4: // acquire: join a variable's, a snapshot's or a goroutine's clock
				var src [2]vclock
				var want []int32
				switch k := r.Intn(3); {
				case k == 0 && len(refVars) > 0:
					j := r.Intn(len(refVars))
					src, want = [2]vclock{ws[0].vars[j], ws[1].vars[j]}, refVars[j]
				case k == 1 && len(refSnaps) > 0:
					j := r.Intn(len(refSnaps))
					src, want = [2]vclock{ws[0].snaps[j], ws[1].snaps[j]}, refSnaps[j]
				default:
					h := r.Intn(ng)
					src, want = [2]vclock{ws[0].cur[h], ws[1].cur[h]}, refCur[h]
					for i := range ws {
						ws[i].own[h] = false // the result may share h's delta
					}
				}
				var extras []centry
				for k := r.Intn(3); k > 0; k-- {
					extras = append(extras, centry{int32(r.Intn(ng)), int32(1 + r.Intn(step+2))})
				}
				var rises [2][]centry
				var changed [2]bool
				for i := range ws {
					midLayers = i == 1
					w := &ws[i]
					sc := &joinScratch{wantRises: true}
					if w.dn[g] != nil {
						w.cur[g], changed[i], w.own[g] = joinDense(sc, w.cur[g], w.own[g], w.dn[g], src[i], extras...)
					} else {
						w.cur[g], changed[i], w.own[g] = joinOwn(sc, w.cur[g], w.own[g], src[i], extras...)
					}
					rises[i] = slices.Clone(sc.rises)
				}
				var wantRises []centry
				next := slices.Clone(refCur[g])
				for k := range next {
					next[k] = max(next[k], want[k])
				}
				for _, e := range extras {
					next[e.g] = max(next[e.g], e.v)
				}
				for k := range next {
					if next[k] > refCur[g][k] {
						wantRises = append(wantRises, centry{int32(k), next[k]})
					}
				}
				refCur[g] = next
				if !slices.Equal(rises[0], wantRises) || !slices.Equal(rises[1], wantRises) {
					t.Fatalf("%+v step %d: rises with layers %v, without %v, want %v", cfg, step, rises[1], rises[0], wantRises)
				}
				if changed[0] != changed[1] && ws[0].dn[g] != nil {
					t.Fatalf("%+v step %d: a dense join changed %v with layers, %v without", cfg, step, changed[1], changed[0])
				}
			case op < 6: // the goroutine's own event: its component rises
				v := refCur[g][g] + 1
				refCur[g][g] = v
				for i := range ws {
					midLayers = i == 1
					w := &ws[i]
					sc := &joinScratch{}
					if w.dn[g] != nil {
						w.cur[g], _, w.own[g] = joinDense(sc, w.cur[g], w.own[g], w.dn[g], vclock{}, centry{int32(g), v})
					} else {
						w.cur[g], _, w.own[g] = joinOwn(sc, w.cur[g], w.own[g], vclock{}, centry{int32(g), v})
					}
				}
			case op < 8: // release: a variable takes the clock, or joins it
				j := len(refVars)
				if j > 0 && r.Intn(3) > 0 {
					j = r.Intn(j)
				} else {
					refVars = append(refVars, make([]int32, ng))
					for i := range ws {
						ws[i].vars = append(ws[i].vars, vclock{})
					}
				}
				merge := r.Intn(2) == 0
				for i := range ws {
					midLayers = i == 1
					w := &ws[i]
					if merge {
						w.vars[j], _, _ = joinOwn(&joinScratch{}, w.vars[j], false, w.cur[g])
					} else {
						w.vars[j] = w.cur[g]
					}
					w.own[g] = false
				}
				if merge {
					for k := range refVars[j] {
						refVars[j][k] = max(refVars[j][k], refCur[g][k])
					}
				} else {
					refVars[j] = slices.Clone(refCur[g])
				}
				stored = append(stored, heldClock{ws[1].vars[j], slices.Clone(refVars[j])})
			default: // a snapshot (a write's, for read-from)
				refSnaps = append(refSnaps, slices.Clone(refCur[g]))
				for i := range ws {
					ws[i].snaps = append(ws[i].snaps, ws[i].cur[g])
					ws[i].own[g] = false
				}
				stored = append(stored, heldClock{ws[1].cur[g], slices.Clone(refCur[g])})
			}
			for i := range ws {
				if got := dense(ws[i].cur[g], ng); !slices.Equal(got, refCur[g]) {
					t.Fatalf("%+v step %d: goroutine %d's clock (layers %v) is %v, want %v", cfg, step, g, i == 1, got, refCur[g])
				}
				if d := ws[i].dn[g]; d != nil && !slices.Equal(d, refCur[g]) {
					t.Fatalf("%+v step %d: goroutine %d's mirror (layers %v) is %v, want %v", cfg, step, g, i == 1, d, refCur[g])
				}
				for k := int32(0); k < ng; k += 7 {
					if v := ws[i].cur[g].get(k); v != refCur[g][k] {
						t.Fatalf("%+v step %d: goroutine %d's component %d (layers %v) is %d, want %d", cfg, step, g, k, i == 1, v, refCur[g][k])
					}
				}
			}
			if step%1000 == 999 {
				for k, h := range stored {
					if got := dense(h.c, ng); !slices.Equal(got, h.want) {
						t.Fatalf("%+v step %d: stored clock %d changed: %v, was %v", cfg, step, k, got, h.want)
					}
				}
				stored = stored[len(stored)/2:]
			}
		}
	}
	if layersMade.Load() == made {
		t.Fatal("no join made a layer: the test compares the clocks of one delta with themselves")
	}
	t.Logf("%d layers made", layersMade.Load()-made)
}

// A pass makes the same history with layers as without, on the traces
// the history tests use and on traces of many goroutines that all talk
// to all, joined sparsely and densely, in every mode.
func TestMidLayerSameHistories(t *testing.T) {
	defer func(on bool, md int) { midLayers, midDelta = on, md }(midLayers, midDelta)
	trs := historyTraces(t, 43, 20) // clock_rises_mixed_test.go
	for _, p := range []synthParams{
		{goroutines: 120, locks: 4, vars: 32, events: 30_000, racy: 0.001, seed: 5},
		{goroutines: 300, locks: 8, vars: 64, events: 30_000, racy: 0.001, seed: 6, pool: true},
	} {
		trs = append(trs, synth(p))
	}
	made := layersMade.Load()
	for n, tr := range trs {
		c := newCTP(tr)
		m := newMemory(c)
		every := make(map[int32][]int32)
		for g := range c.byG {
			for p := 0; p <= len(c.byG[g]); p += 3 {
				every[int32(g)] = append(every[int32(g)], int32(p))
			}
		}
		for _, dense := range []bool{false, true} {
			for _, mode := range []clockMode{{}, {rf: true, rfCheck: true}, {locks: true, rf: true}, {want: every}} {
				run := func(on bool) *riseLog {
					midLayers = on
					var h *clocks
					withJoins(dense, true, func() { // dense_test.go
						var err error
						if h, err = newClocks(context.Background(), c, m, mode); err != nil {
							t.Fatal(err)
						}
					})
					return h.h
				}
				midDelta = 2
				if want, got := run(false), run(true); !reflect.DeepEqual(got, want) {
					t.Fatalf("trace %d, dense %v, mode %+v: histories differ with layers", n, dense, mode)
				}
			}
		}
	}
	if layersMade.Load() == made {
		t.Fatal("no pass made a layer: the test compares the clocks of one delta with themselves")
	}
}

// The SHB layer reports the same findings and stage counts with layers as
// without, under its memory budget too (clock_spill_snap.go spills
// snapshots whose clocks hold layers).
func TestMidLayerSameSHB(t *testing.T) {
	defer func(on bool, md int) { midLayers, midDelta = on, md }(midLayers, midDelta)
	traces := randomTraces(37, 12, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 6 + r.Intn(14), vars: 2 + r.Intn(6), locks: r.Intn(3), sigs: 1 + r.Intn(4),
			ops: 80 + r.Intn(150), atomics: r.Intn(2) == 0, cut: 0.01}
	}, true)
	made := layersMade.Load()
	var races int
	for k, tr := range traces {
		for _, budget := range []bool{false, true} {
			o := Options{NoAtomicity: true, SolveTimeout: time.Hour}
			var res [2]*Result
			for i := range res {
				midLayers, midDelta = i == 1, 2
				restore := func() {}
				if budget {
					o.SHBBudget, restore = tinySHBBudget() // clock_spill_test.go
				}
				res[i] = analyze(t, tr, o)
				restore()
			}
			shb := func(r *Result) Stage {
				s := r.Stats.Stages[slices.IndexFunc(r.Stats.Stages, func(s Stage) bool { return s.Name == "shb" })]
				s.Time = 0
				return s
			}
			if a, b := shb(res[0]), shb(res[1]); a != b {
				t.Fatalf("trace %d, budget %v: shb stage %+v without layers, %+v with", k, budget, a, b)
			}
			if !reflect.DeepEqual(res[0].Findings, res[1].Findings) {
				t.Fatalf("trace %d, budget %v: findings differ with layers", k, budget)
			}
			races += len(res[1].Findings)
		}
	}
	if layersMade.Load() == made || races == 0 {
		t.Fatalf("%d layers made, %d findings: the test says nothing", layersMade.Load()-made, races)
	}
}
