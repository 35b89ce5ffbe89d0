// This file tests the history's mixed form (clock_rises.go's wide: a
// goroutine whose rises mostly fit 16 bits keeps the few components that
// do not apart) against the wide form: with packMax lowered so that
// small traces split, every reader (get, each, cursors, eachAbove,
// eachRisesMarked, firstAbove) answers the same.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

func TestRiseLogMixedSameAsWide(t *testing.T) {
	mixedG, wholeG := 0, 0 // goroutines split between p16 and wide; wholly wide beside them
	traces := historyTraces(t, 37, 100)
	rng := rand.New(rand.NewSource(37))
	for it, tr := range traces {
		c := newCTP(tr)
		m := newMemory(c)
		for _, pm := range []int32{3, 6, 12} {
			var wide, mixed *clocks
			func() {
				defer func(n int) { narrowMax = n }(narrowMax)
				narrowMax = 0
				wide, _ = newClocks(context.Background(), c, m, clockMode{})
			}()
			func() {
				defer func(n int32) { packMax = n }(packMax)
				packMax = pm
				mixed, _ = newClocks(context.Background(), c, m, clockMode{})
			}()
			ng := int32(len(c.byG))
			for g := range ng {
				if mixed.h.wide[g] != nil {
					mixedG++
				} else if mixed.h.ents[g] != nil {
					wholeG++
				}
				if wide.h.wide[g] != nil {
					t.Fatalf("trace %d: goroutine %d's wide history is split", it, g)
				}
				what := fmt.Sprintf("trace %d, packMax %d", it, pm)
				sameReaders(t, what, wide.h, mixed.h, g, int32(len(c.byG[g])), ng, rng)
				mark := make([]bool, ng)
				for k := range mark {
					mark[k] = rng.Intn(2) == 0
				}
				type firsts struct {
					k     int32
					first []int32
				}
				read := func(h *riseLog) (out []firsts) {
					h.eachRisesMarked(g, mark, func(k int32, rs knowsList) {
						f := firsts{k: k}
						for v := int32(0); v <= rs.last()+1; v++ {
							f.first = append(f.first, rs.firstAbove(v))
						}
						out = append(out, f)
					})
					return out
				}
				if a, b := read(wide.h), read(mixed.h); !reflect.DeepEqual(a, b) {
					t.Fatalf("trace %d, packMax %d: g%d's marked rises: wide %v, mixed %v", it, pm, g, a, b)
				}
			}
		}
	}
	if mixedG == 0 || wholeG == 0 {
		t.Fatalf("%d goroutines' histories split, %d wholly wide: the forms went untested", mixedG, wholeG)
	}
}

// sameClockAt fails t unless histories a (wide) and b read the same
// clock of goroutine g after its first p events, component by component
// and whole.
func sameClockAt(t *testing.T, what string, a, b *riseLog, g, p, ng int32) {
	t.Helper()
	for k := range ng {
		if x, y := a.get(g, p, k), b.get(g, p, k); x != y {
			t.Fatalf("%s: g%d after %d knows g%d: wide %d, other %d", what, g, p, k, x, y)
		}
	}
	var x, y []centry
	a.each(g, p, func(k, v int32) { x = append(x, centry{k, v}) })
	b.each(g, p, func(k, v int32) { y = append(y, centry{k, v}) })
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("%s: g%d after %d: wide clock %v, other %v", what, g, p, x, y)
	}
}

// sameReaders fails t unless histories a (the reference) and b answer
// every reader of goroutine g's clock the same at each of its n+1
// positions: get and each (sameClockAt), a cursor over each component,
// and eachAbove over a random floor.
func sameReaders(t *testing.T, what string, a, b *riseLog, g, n, ng int32, rng *rand.Rand) {
	t.Helper()
	curA, curB := make([]riseCursor, ng), make([]riseCursor, ng)
	for k := range ng {
		curA[k], curB[k] = a.cursor(g, k), b.cursor(g, k)
	}
	for p := int32(0); p <= n; p++ {
		sameClockAt(t, what, a, b, g, p, ng)
		for k := range ng {
			if x, y := curA[k].valueAt(p), curB[k].valueAt(p); x != y {
				t.Fatalf("%s: g%d's cursor at %d over g%d: reference %d, other %d", what, g, p, k, x, y)
			}
		}
		floor := make([]int32, ng)
		for k := range floor {
			floor[k] = int32(rng.Intn(4))
		}
		var x, y []centry
		a.eachAbove(g, p, floor, func(k, v int32) { x = append(x, centry{k, v}) })
		b.eachAbove(g, p, floor, func(k, v int32) { y = append(y, centry{k, v}) })
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("%s: g%d after %d above %v: reference %v, other %v", what, g, p, floor, x, y)
		}
	}
}

// historyTraces returns n random traces of up to a dozen goroutines that
// synchronise, from seed, and a ring of 30 goroutines: histories of every
// form.
func historyTraces(t *testing.T, seed int64, n int) []*trace.Trace {
	t.Helper()
	traces := randomTraces(seed, n, func(r *rand.Rand, i int) genParams {
		p := syncParams(r)
		p.goroutines += r.Intn(8)
		return p
	}, true)
	ring, err := synthtrace.Ring(30, 4)
	if err != nil {
		t.Fatal(err)
	}
	return append(traces, ring)
}
