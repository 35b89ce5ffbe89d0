// This file tests the dense mirrors of a pass (clock_mirror.go): made
// from a clock's base, layer and delta in turn, in arrays kept from
// goroutines that ended, a pass's clocks must be those of a pass with no
// mirror at all.

package predict

import (
	"context"
	"reflect"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

// Every pass gives the same history, rises at release-acquire events and
// clocks at visited events with mirrors as with none, whether the
// mirrors are made at once (denseMin 0), from clocks of a few entries
// with middle layers (midDelta 2), or under a budget of a few mirrors, so
// that goroutines that end hand their arrays on.
func TestMirrorsSameHistory(t *testing.T) {
	defer func(on bool, md int) { midLayers, midDelta = on, md }(midLayers, midDelta)
	midLayers, midDelta = true, 2
	trs := historyTraces(t, 47, 30) // clock_rises_mixed_test.go
	trs = append(trs,
		synth(synthParams{goroutines: 120, locks: 4, vars: 32, events: 20_000, racy: 0.001, seed: 8}),
		synth(synthParams{goroutines: 300, locks: 8, vars: 64, events: 20_000, racy: 0.001, seed: 9, pool: true}))
	for _, shape := range [][2]int{{30, 6}, {200, 4}} {
		tr, err := synthtrace.Ring(shape[0], shape[1])
		if err != nil {
			t.Fatal(err)
		}
		trs = append(trs, tr)
	}
	// How a pass mirrors: from how many entries (denseMin), and how many
	// mirrors its budget holds at once.
	configs := []struct{ min, mirrors int }{{0, 1 << 20}, {2, 1 << 20}, {2, 2}, {6, 1}}
	run := func(tr *trace.Trace, c *ctp, m *memory, mode clockMode, dense bool, min, mirrors int) (*clocks, [][]centry) {
		var vs [][]centry
		if mode.want != nil {
			vs = recordVisits(c, &mode)
		}
		var out *clocks
		withJoins(dense, true, func() { // dense_test.go
			if dense {
				denseMin, denseBudget = min, mirrors*len(c.byG)
			}
			var err error
			if out, err = newClocks(context.Background(), c, m, mode); err != nil {
				t.Fatal(err)
			}
		})
		return out, vs
	}
	modes := []clockMode{{}, {locks: true, rf: true}, {rf: true, acqRises: true},
		{locks: true, serial: true, rf: true, want: map[int32][]int32{}}}
	layered, reused := mirrorsLayered.Load(), mirrorsReused.Load()
	for n, tr := range trs {
		c := newCTP(tr)
		m := newMemory(c)
		for _, mode := range modes {
			ref, refv := run(tr, c, m, mode, false, 0, 0)
			for _, cf := range configs {
				got, gotv := run(tr, c, m, mode, true, cf.min, cf.mirrors)
				if !reflect.DeepEqual(ref.h, got.h) || !reflect.DeepEqual(ref.acq, got.acq) {
					t.Fatalf("trace %d, mode %+v, mirrors from %d entries, %d at once: the history differs from the pass without mirrors", n, mode, cf.min, cf.mirrors)
				}
				if !reflect.DeepEqual(refv, gotv) {
					t.Fatalf("trace %d, mode %+v, mirrors from %d entries, %d at once: the clocks events are judged by differ", n, mode, cf.min, cf.mirrors)
				}
			}
		}
	}
	layered, reused = mirrorsLayered.Load()-layered, mirrorsReused.Load()-reused
	if layered == 0 || reused == 0 {
		t.Fatalf("%d mirrors of a clock with a layer, %d in a spare array: the test does not reach them", layered, reused)
	}
	t.Logf("%d mirrors of a clock with a layer, %d in a spare array", layered, reused)
}

// recordVisits makes mode keep the states of every third position of
// each of c's goroutines, and record at every event the clock it is
// judged by (clockMode.visit) in the list it returns, from the dense
// mirror when the pass has one.
func recordVisits(c *ctp, mode *clockMode) [][]centry {
	mode.want = map[int32][]int32{}
	for g := range c.byG {
		for p := int32(0); p <= int32(len(c.byG[g])); p += 3 {
			mode.want[int32(g)] = append(mode.want[int32(g)], p)
		}
	}
	vs := make([][]centry, len(c.ev))
	mode.visit = func(i int32, cur vclock, d []int32) {
		if d != nil {
			for k, v := range d {
				if v > 0 {
					vs[i] = append(vs[i], centry{int32(k), v})
				}
			}
			return
		}
		cur.each(func(k, v int32) { vs[i] = append(vs[i], centry{k, v}) })
	}
	return vs
}
