// This file tests what the closures ask of the critical sections.

package predict

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// openSections looks only at the goroutines with critical sections
// (ctp.lockG): on random traces and cuts it finds what a look at every
// goroutine finds.
func TestOpenSectionsLockGoroutines(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	seen := 0
	for it := 0; it < 300; it++ {
		p := syncParams(r)
		p.locks = 1 + r.Intn(3)
		p.goroutines += r.Intn(4)
		tr, _ := genTrace(r, p)
		c := newCTP(tr)
		e := &engine{c: c}
		for try := 0; try < 10; try++ {
			cut := make([]int32, len(c.byG))
			for g := range cut {
				cut[g] = int32(r.Intn(len(c.byG[g]) + 1))
			}
			ga, gb := int32(r.Intn(len(c.byG))), int32(r.Intn(len(c.byG)))
			var want []openSect
			for g := range cut {
				if cut[g] <= 0 {
					continue
				}
				c.heldAt(int32(g), cut[g], func(l trace.ObjID, s csect) {
					if s.rel != 0 && s.rel <= cut[g] {
						return
					}
					want = append(want, openSect{g: int32(g), l: l, s: s, acq: c.at(int32(g), s.acq), pinned: int32(g) == ga || int32(g) == gb})
				})
			}
			got := e.openSections(cut, ga, gb)
			if !slices.Equal(got, want) {
				t.Fatalf("it %d: cut %v: open sections %v, want %v", it, cut, got, want)
			}
			seen += len(want)
		}
	}
	if seen == 0 {
		t.Fatal("no cut left a section open: the test says nothing")
	}
}
