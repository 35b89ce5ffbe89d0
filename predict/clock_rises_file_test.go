// This file tests the file-backed history (clock_rises_file.go): a
// must-happen-before history made in a riseArena whose pages were given
// back answers every reader (get, each, cursors, eachAbove) as the same
// history made in the heap does, in each of its forms (packed, split,
// wide; with and without chains).

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
)

func TestRiseArenaSameAsHeap(t *testing.T) {
	defer func(n int) { dropEvery = n }(dropEvery)
	dropEvery = 4096 // pages given back while the log is written and indexed
	traces := historyTraces(t, 41, 60)
	rng := rand.New(rand.NewSource(41))
	mapped := 0
	for it, tr := range traces {
		c := newCTP(tr)
		m := newMemory(c)
		for _, form := range []struct {
			name   string
			pack   int32
			narrow int
			chains bool
		}{
			{"packed", 1 << 16, 1 << 16, false},
			{"split", 6, 1 << 16, false},
			{"wide", 1 << 16, 0, false},
			{"chains", 1 << 16, 1 << 16, true},
		} {
			what := fmt.Sprintf("trace %d, %s", it, form.name)
			var heap, file *clocks
			ar := new(riseArena)
			func() {
				defer func(p int32, n int) { packMax, narrowMax = p, n }(packMax, narrowMax)
				packMax, narrowMax = form.pack, form.narrow
				mode := clockMode{rfCheck: true}
				if form.chains {
					mode.chains = newChainMap(c)
				}
				var err error
				if heap, err = newClocks(context.Background(), c, m, mode); err != nil {
					t.Fatal(err)
				}
				if form.chains {
					mode.chains = newChainMap(c)
				}
				mode.arena = ar
				if file, err = newClocks(context.Background(), c, m, mode); err != nil {
					t.Fatal(err)
				}
			}()
			if len(ar.maps) > 0 {
				mapped++
			}
			ar.drop()
			ng := int32(len(c.byG))
			for g := range ng {
				n := int32(len(c.byG[g]))
				sameReaders(t, what, heap.h, file.h, g, n, ng, rng)
				if p := n / 2; g%3 == 0 {
					ar.drop() // given back while it is read
					sameClockAt(t, what+", dropped again", heap.h, file.h, g, p, ng)
				}
			}
			ar.free()
		}
	}
	if mapped < len(traces) {
		t.Fatalf("%d of %d histories were made in the file: the test compares the heap with itself", mapped, 4*len(traces))
	}
}
