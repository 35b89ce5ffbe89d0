// This file tests merge3To (clock_layer.go) and keepAbove (clock_vc.go),
// their run-copying paths for short lists beside a long one (merge3Few,
// keepAboveFew) among them, against maps.

package predict

import (
	"math/rand"
	"slices"
	"testing"
)

// sortedList returns n entries of distinct goroutines below span, sorted.
func sortedList(r *rand.Rand, n, span int) []centry {
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

func TestKeepAbove(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	// Sizes of cand and ents: ents a few (keepAboveFew), about as long
	// (a merge walk), much longer (galloping).
	for _, sz := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {300, 0}, {300, 1}, {300, 9}, {300, 37}, {100, 100}, {40, 300}, {3, 300}} {
		for it := 0; it < 50; it++ {
			cand, ents := sortedList(r, sz[0], 400), sortedList(r, sz[1], 400)
			had := map[int32]int32{}
			for _, e := range ents {
				had[e.g] = e.v
			}
			var want []centry
			for _, e := range cand {
				if e.v > had[e.g] {
					want = append(want, e)
				}
			}
			got := keepAbove([]centry{{-1, 9}}, cand, ents) // appends to out
			if !slices.Equal(got, append([]centry{{-1, 9}}, want...)) {
				t.Fatalf("sizes %v: got %v, want %v", sz, got[1:], want)
			}
			// out may be cand[:0].
			in := slices.Clone(cand)
			if got := keepAbove(in[:0], in, ents); !slices.Equal(got, want) {
				t.Fatalf("sizes %v, in place: got %v, want %v", sz, got, want)
			}
		}
	}
}

func TestMerge3To(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	list := func(n, span int) []centry { return sortedList(r, n, span) }
	// Sizes of a, b, c: each of the three the long one, beside two
	// short ones (merge3Few) and beside lists of its own size.
	for _, sz := range [][3]int{
		{0, 3, 4}, {3, 0, 4}, {3, 4, 0},
		{300, 5, 7}, {5, 300, 7}, {5, 7, 300}, {300, 0, 1}, {300, 1, 1}, {300, 20, 17},
		{300, 30, 30}, {40, 40, 40}, {100, 1, 60},
	} {
		for it := 0; it < 50; it++ {
			a, b, c := list(sz[0], 400), list(sz[1], 400), list(sz[2], 400)
			checkMerged(t, sz, merge3To([]centry{{-1, 9}}, a, b, c), a, b, c) // appends to out
		}
	}
}

// checkMerged fails t unless got is out's entry {-1, 9} followed by the
// merge of lists: sorted, one entry a goroutine, the largest value.
func checkMerged(t *testing.T, sz any, got []centry, lists ...[]centry) {
	t.Helper()
	want := map[int32]int32{}
	for _, l := range lists {
		for _, e := range l {
			want[e.g] = max(want[e.g], e.v)
		}
	}
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
