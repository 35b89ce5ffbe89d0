// This file tests handoffs, the handoff check's store of hops
// (race_handoff_hops.go), against a slice of hops per pair, the store it
// replaced.

package predict

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// sliceHops is the reference: a pair's hops in one slice, appended as
// handoffs.add appends them.
type sliceHops map[uint64][]hop

func (r sliceHops) add(to, from, recv, src int32) {
	if to == from {
		return
	}
	k := handoffKey(to, from)
	hs := r[k]
	if n := len(hs); n > 0 {
		if hs[n-1].src >= src {
			return
		}
		if hs[n-1].recv == recv {
			hs[n-1].src = src
			return
		}
	}
	r[k] = append(hs, hop{recv, src})
}

func (r sliceHops) knows(to, p, from int32) int32 {
	var n int32
	for _, x := range r[handoffKey(to, from)] {
		if x.recv <= p {
			n = x.src
		}
	}
	return n
}

// Random adds (several at one receiving event, sources that go back as
// well as forward) give the same answers to knows as the reference
// while the hops are made (the probe's lookups, back through the log)
// and once sealed (the check's), the same hops per pair (pairs) and the
// same count, by the dense table and by the map.
func TestHandoffHopsLikeSlices(t *testing.T) {
	defer func(n int) { denseHopPairs = n }(denseHopPairs)
	for _, tc := range []struct {
		ng, adds int
		dense    bool
	}{
		{1, 10, true}, {2, 50, true}, {5, 400, true}, {5, 400, false}, {40, 5000, true}, {40, 5000, false},
	} {
		for seed := range int64(8) {
			name := fmt.Sprintf("ng %d adds %d dense %v seed %d", tc.ng, tc.adds, tc.dense, seed)
			denseHopPairs = 0
			if tc.dense {
				denseHopPairs = 1 << 22
			}
			rng := rand.New(rand.NewSource(seed))
			h, ref := newHandoffs(tc.ng, int(seed%2)*tc.adds), sliceHops{}
			if h.dense != tc.dense {
				t.Fatalf("%s: dense %v", name, h.dense)
			}
			pos := make([]int32, tc.ng)
			check := func(when string, to, from, p int32) {
				if got, want := h.knows(to, p, from), ref.knows(to, p, from); got != want {
					t.Fatalf("%s, %s: g%d after %d knows %d of g%d, want %d", name, when, to, p, got, from, want)
				}
			}
			for range tc.adds {
				to, from := int32(rng.Intn(tc.ng)), int32(rng.Intn(tc.ng))
				if rng.Intn(2) == 0 {
					pos[to]++
				}
				src := int32(rng.Intn(60))
				h.add(to, from, pos[to], src)
				ref.add(to, from, pos[to], src)
				q := int32(rng.Intn(tc.ng))
				check("made", q, int32(rng.Intn(tc.ng)), int32(rng.Intn(int(pos[q])+2))-1)
			}
			made := h.count()
			h.seal()
			if h.count() != made {
				t.Fatalf("%s: %d hops made, %d sealed", name, made, h.count())
			}
			got, n := sliceHops{}, 0
			h.pairs(func(to, from int32, hs []hop) {
				got[handoffKey(to, from)] = slices.Clone(hs)
				n += len(hs)
			})
			if fmt.Sprint(got) != fmt.Sprint(ref) || n != made {
				t.Fatalf("%s: sealed %v (%d), want %v", name, got, made, ref)
			}
			for to := range int32(tc.ng) {
				for from := range int32(tc.ng) {
					for p := int32(-1); p <= pos[to]+1; p++ {
						check("sealed", to, from, p)
					}
				}
			}
		}
	}
}
