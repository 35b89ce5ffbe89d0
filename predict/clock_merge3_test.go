// This file tests merge3To (clock_layer.go), its run-copying path for two
// short lists beside a long one (merge3Few) among them, against a map.

package predict

import (
	"math/rand"
	"testing"
)

func TestMerge3To(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	list := func(n, span int) []centry {
		m := map[int32]int32{}
		for len(m) < n {
			m[int32(r.Intn(span))] = int32(1 + r.Intn(50))
		}
		var out []centry
		for g := int32(0); g < int32(span); g++ {
			if v, ok := m[g]; ok {
				out = append(out, centry{g, v})
			}
		}
		return out
	}
	// Sizes of a, b, c: each of the three the long one, beside two
	// short ones (merge3Few) and beside lists of its own size.
	for _, sz := range [][3]int{
		{0, 3, 4}, {3, 0, 4}, {3, 4, 0},
		{300, 5, 7}, {5, 300, 7}, {5, 7, 300}, {300, 0, 1}, {300, 1, 1}, {300, 20, 17},
		{300, 30, 30}, {40, 40, 40}, {100, 1, 60},
	} {
		for it := 0; it < 50; it++ {
			a, b, c := list(sz[0], 400), list(sz[1], 400), list(sz[2], 400)
			want := map[int32]int32{}
			for _, l := range [][]centry{a, b, c} {
				for _, e := range l {
					want[e.g] = max(want[e.g], e.v)
				}
			}
			got := merge3To([]centry{{-1, 9}}, a, b, c) // appends to out
			if got[0] != (centry{-1, 9}) {
				t.Fatalf("sizes %v: the entries already in out were overwritten", sz)
			}
			got = got[1:]
			if len(got) != len(want) {
				t.Fatalf("sizes %v: %d entries, want %d", sz, len(got), len(want))
			}
			for k, e := range got {
				if (k > 0 && got[k-1].g >= e.g) || want[e.g] != e.v {
					t.Fatalf("sizes %v: entry %d is %v (want %d, sorted)", sz, k, e, want[e.g])
				}
			}
		}
	}
}
