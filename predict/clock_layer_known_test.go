// This file tests the memory of the layers a receiver has joined whole
// (clock_layer_known.go): with it, a pass must give the history, rises
// and clocks at visited events that it gives without it.

package predict

import (
	"context"
	"reflect"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
)

// On the history tests' traces and on traces of many goroutines that all
// talk to all, with layers made after a few entries (midDelta 2), joined
// sparsely and densely, in every mode, a pass that leaves known layers
// out of its joins gives the same history, rises at release-acquire
// events and clocks at visited events as one that reads them.
func TestKnownLayersSameHistory(t *testing.T) {
	defer func(on bool, md int, sk bool) { midLayers, midDelta, skipKnownLayers = on, md, sk }(midLayers, midDelta, skipKnownLayers)
	midLayers, midDelta = true, 2
	trs := historyTraces(t, 53, 30) // clock_rises_mixed_test.go
	for _, p := range []synthParams{
		{goroutines: 120, locks: 4, vars: 32, events: 20_000, racy: 0.001, seed: 11},
		{goroutines: 300, locks: 8, vars: 64, events: 20_000, racy: 0.001, seed: 12, pool: true},
	} {
		trs = append(trs, synth(p))
	}
	for _, shape := range [][2]int{{30, 6}, {200, 4}} {
		tr, err := synthtrace.Ring(shape[0], shape[1])
		if err != nil {
			t.Fatal(err)
		}
		trs = append(trs, tr)
	}
	modes := []clockMode{{}, {locks: true, rf: true, rfCheck: true}, {rf: true, acqRises: true},
		{locks: true, serial: true, rf: true, want: map[int32][]int32{}}}
	skipped := layersSkipped.Load()
	for n, tr := range trs {
		c := newCTP(tr)
		m := newMemory(c)
		for _, mode := range modes {
			var vs [2][][]centry
			for _, dense := range []bool{false, true} {
				var hs [2]*clocks
				for i := range hs {
					skipKnownLayers = i == 1
					if mode.want != nil {
						vs[i] = recordVisits(c, &mode) // clock_mirror_test.go
					}
					withJoins(dense, true, func() { // dense_test.go
						if dense {
							denseMin = 4
						}
						var err error
						if hs[i], err = newClocks(context.Background(), c, m, mode); err != nil {
							t.Fatal(err)
						}
					})
				}
				if !reflect.DeepEqual(hs[0].h, hs[1].h) || !reflect.DeepEqual(hs[0].acq, hs[1].acq) || hs[0].rfImplied != hs[1].rfImplied {
					t.Fatalf("trace %d, mode %+v, dense %v: the history differs when known layers are skipped", n, mode, dense)
				}
				if !reflect.DeepEqual(vs[0], vs[1]) {
					t.Fatalf("trace %d, mode %+v, dense %v: the clocks events are judged by differ when known layers are skipped", n, mode, dense)
				}
			}
		}
	}
	skipped = layersSkipped.Load() - skipped
	if skipped == 0 {
		t.Fatal("no join skipped a layer: the test compares a pass with itself")
	}
	t.Logf("%d layers skipped", skipped)
}
