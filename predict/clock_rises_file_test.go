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
	"reflect"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
)

func TestRiseArenaSameAsHeap(t *testing.T) {
	traces := randomTraces(41, 60, func(r *rand.Rand, i int) genParams {
		p := syncParams(r)
		p.goroutines += r.Intn(8)
		return p
	}, true)
	ring, err := synthtrace.Ring(30, 4)
	if err != nil {
		t.Fatal(err)
	}
	traces = append(traces, ring)
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
				curH, curF := make([]riseCursor, ng), make([]riseCursor, ng)
				for k := range ng {
					curH[k], curF[k] = heap.h.cursor(g, k), file.h.cursor(g, k)
				}
				for p := int32(0); p <= n; p++ {
					sameClockAt(t, what, heap.h, file.h, g, p, ng)
					for k := range ng {
						if a, b := curH[k].valueAt(p), curF[k].valueAt(p); a != b {
							t.Fatalf("%s: g%d's cursor at %d over g%d: heap %d, file %d", what, g, p, k, a, b)
						}
					}
					floor := make([]int32, ng)
					for k := range floor {
						floor[k] = int32(rng.Intn(4))
					}
					var a, b []centry
					heap.h.eachAbove(g, p, floor, func(k, v int32) { a = append(a, centry{k, v}) })
					file.h.eachAbove(g, p, floor, func(k, v int32) { b = append(b, centry{k, v}) })
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("%s: g%d after %d above %v: heap %v, file %v", what, g, p, floor, a, b)
					}
				}
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
