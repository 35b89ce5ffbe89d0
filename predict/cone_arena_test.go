// This file tests that the causal cone's history is made in an arena of
// its own (Options.coneArena, clock_rises_file.go), not in the heap nor
// in the must-happen-before history's arena, and answers every reader as
// the cone made in the heap does.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
)

func TestConeHistoryInArena(t *testing.T) {
	traces := historyTraces(t, 43, 40)
	rng := rand.New(rand.NewSource(43))
	passes := 0 // traces whose cone ran its own pass
	for it, tr := range traces {
		what := fmt.Sprintf("trace %d", it)
		cone := func(o Options) *engine {
			c := newCTP(tr)
			e, err := relevance(context.Background(), tr, c, newMemory(c), o)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.buildMHB(); err != nil {
				t.Fatal(err)
			}
			if err := e.needCone(); err != nil {
				t.Fatal(err)
			}
			return e
		}
		heap := cone(Options{})
		if heap.mhb.rfImplied {
			continue // the cone's clocks are must-happen-before's
		}
		passes++
		o := Options{arena: new(riseArena), coneArena: new(riseArena)}
		file := cone(o)
		mhbBytes := o.arena.size
		if o.coneArena.size == 0 {
			t.Errorf("%s: the cone's history took nothing of its arena (made in the heap?)", what)
		}
		o.coneArena.drop()
		ng := int32(len(file.c.byG))
		for g := range ng {
			sameReaders(t, what, heap.cone.h, file.cone.h, g, int32(len(file.c.byG[g])), ng, rng)
		}
		if o.arena.size != mhbBytes {
			t.Errorf("%s: the cone's pass took %d bytes of the must-happen-before arena", what, o.arena.size-mhbBytes)
		}
		o.freeArenas()
	}
	if passes == 0 {
		t.Fatal("no trace's cone ran a pass of its own: the test compares nothing")
	}
}
