// This file tests the history's index (clock_rises.go's
// riseRecorder.index): its counting sort's count (tally) and its choice
// of form at packMax's bound, whose per-component tops it works out only
// for a goroutine with a rise past it.

package predict

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// tally counts the rises by component, lists the components in order of
// their first rise, and returns the largest position or value.
func TestTally(t *testing.T) {
	cases := []struct {
		name string
		xs   []kpv
		keys []int32
		top  int32
	}{
		{"none", nil, nil, 0},
		{"one, its position the top", []kpv{{3, 5, 2}}, []int32{3}, 5},
		{"one, its value the top", []kpv{{3, 1, 9}}, []int32{3}, 9},
		{"repeats, in order of first", []kpv{{4, 1, 1}, {2, 1, 1}, {4, 2, 2}, {0, 3, 1}, {2, 3, 2}}, []int32{4, 2, 0}, 3},
		{"every component", []kpv{{5, 0, 1}, {4, 0, 1}, {3, 0, 1}, {2, 0, 1}, {1, 0, 1}, {0, 7, 1}}, []int32{5, 4, 3, 2, 1, 0}, 7},
		{"top early", []kpv{{1, 2, 1 << 20}, {0, 3, 1}}, []int32{1, 0}, 1 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const ng = 6
			cnt, keys := make([]int32, ng), make([]int32, ng)
			nk, top := tally(tc.xs, cnt, keys)
			if !slices.Equal(keys[:nk], tc.keys) {
				t.Errorf("keys %v, want %v", keys[:nk], tc.keys)
			}
			if top != tc.top {
				t.Errorf("top %d, want %d", top, tc.top)
			}
			want := make([]int32, ng)
			for _, x := range tc.xs {
				want[x.k]++
			}
			if !slices.Equal(cnt, want) {
				t.Errorf("counts %v, want %v", cnt, want)
			}
		})
	}
}

// A goroutine whose largest position or value is just below packMax is
// packed whole; one at packMax keeps the component that reaches it apart
// (wide), by its position or by its value; and every component reads
// back the rises logged, in both the production bound and a lowered one.
func TestIndexPackBound(t *testing.T) {
	for _, pm := range []int32{1 << 16, 6} {
		for _, tc := range []struct {
			name      string
			pos, v    int32 // component 2's rise, after the others
			wantSplit bool
		}{
			{"value below", 4, pm - 1, false},
			{"position below", pm - 1, 3, false},
			{"value at", 4, pm, true},
			{"position at", pm, 3, true},
		} {
			t.Run(fmt.Sprintf("packMax %d, %s", pm, tc.name), func(t *testing.T) {
				defer func(p int32) { packMax = p }(packMax)
				packMax = pm
				const ng = 4
				rec := newRiseRecorder(ng)
				want := make([][]pv, ng) // goroutine 1's rises, by component
				log := func(pos int32, rs ...centry) {
					rec.logRises(1, pos, rs)
					for _, r := range rs {
						want[r.g] = append(want[r.g], pv{pos, r.v})
					}
				}
				// Components 0, 1 and 3 rise at positions 1 to 3, below
				// the bound; component 2 once, last, at the case's
				// position and value: one rise in ten, kept apart when
				// it reaches the bound.
				for p := int32(1); p <= 3; p++ {
					log(p, centry{0, p}, centry{1, p}, centry{3, p})
				}
				log(tc.pos, centry{2, tc.v})
				// Goroutine 2, indexed after it, has component 0 reach
				// the bound and component 2 stay below: only 0 is kept
				// apart, whatever goroutine 1's component 2 did.
				for p := int32(1); p <= 3; p++ {
					rec.logRises(2, p, []centry{{1, p}, {2, p}, {3, p}})
				}
				rec.logRises(2, 4, []centry{{0, pm}})
				h, err := rec.index(context.Background(), nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if split := h.wide[1] != nil || h.ents[1] != nil; split != tc.wantSplit {
					t.Fatalf("goroutine 1 kept apart (wide %v, unpacked %v), want %v", h.wide[1] != nil, h.ents[1] != nil, tc.wantSplit)
				}
				if !tc.wantSplit && h.p16[1] == nil {
					t.Fatalf("goroutine 1 not packed")
				}
				if w := h.wide[2]; w == nil || !slices.Equal(w.at, []int32{0, 1}) {
					t.Fatalf("goroutine 2's wide components %v, want component 0 alone", w)
				}
				for k := range int32(ng) {
					r := h.componentRises(1, k)
					var got []pv
					for q := range r.len() {
						got = append(got, r.at(q))
					}
					if !slices.Equal(got, want[k]) {
						t.Errorf("component %d: rises %v, logged %v", k, got, want[k])
					}
				}
			})
		}
	}
}
