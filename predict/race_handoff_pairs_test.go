// This file tests pairTable (race_handoff_pairs.go) against a Go map:
// the same entries found, made and kept across its growth.

package predict

import (
	"fmt"
	"math/rand"
	"testing"
)

// Random gets and finds, of keys drawn from few goroutines (many hits)
// and from many (growth past several doublings), find and get the
// entry a map says, with the slot and tail given when it was made.
func TestPairTableLikeMap(t *testing.T) {
	for _, tc := range []struct{ ng, ops, hint int }{
		{2, 100, 0}, {30, 5000, 0}, {5000, 40000, 0}, {5000, 40000, 30000},
	} {
		for seed := range int64(4) {
			name := fmt.Sprintf("ng %d ops %d hint %d seed %d", tc.ng, tc.ops, tc.hint, seed)
			rng := rand.New(rand.NewSource(seed))
			tab, ref := newPairTable(tc.hint), map[uint64]int32{}
			key := func() uint64 { return handoffKey(int32(rng.Intn(tc.ng)), int32(rng.Intn(tc.ng))) }
			for range tc.ops {
				k := key()
				want, had := ref[k]
				if rng.Intn(2) == 0 {
					e := tab.find(k)
					if (e != nil) != had || had && (e.slot != want || e.src != want) {
						t.Fatalf("%s: find %x: %+v, want slot %d (%v)", name, k, e, want, had)
					}
					continue
				}
				e, made := tab.get(k, int32(len(ref)))
				if made == had {
					t.Fatalf("%s: get %x made %v, the map had it %v", name, k, made, had)
				}
				if made {
					want = int32(len(ref))
					ref[k] = want
					e.src = want // the tail the test gives it
				}
				if e.key != k || e.slot != want || e.src != want {
					t.Fatalf("%s: get %x: %+v, want slot %d", name, k, e, want)
				}
			}
			if tab.n != len(ref) || tab.n*4 > len(tab.ents)*3 {
				t.Fatalf("%s: %d entries in %d, the map has %d", name, tab.n, len(tab.ents), len(ref))
			}
			for k, want := range ref {
				if e := tab.find(k); e == nil || e.slot != want || e.src != want {
					t.Fatalf("%s: at the end find %x: %+v, want slot %d", name, k, e, want)
				}
			}
		}
	}
}
