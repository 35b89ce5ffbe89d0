// This file tests the passes split over two cores (local_parallel.go,
// local_shared.go, local_compact.go): compactLocal with them leaves out
// the events it leaves out in one pass each, asking event by event.

package trace

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

func TestParallelDropsSame(t *testing.T) {
	was := minParallelDrops
	defer func() { minParallelDrops = was }()
	split := 0
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr := randomLifeTrace(r)
		on, off := cloneForCompaction(tr), cloneForCompaction(tr)
		minParallelDrops = 1
		leftOn, _ := compactWithLives(on, true)
		minParallelDrops = math.MaxInt
		leftOff, _ := compactWithLives(off, true)
		if len(tr.Events) >= 2*64 {
			split++ // both halves answered some
		}
		if leftOn != leftOff || !slices.Equal(on.Events, off.Events) || !slices.Equal(on.Local, off.Local) {
			t.Fatalf("seed %d: answered on two cores, %d events left out; one by one, %d (or other ones kept)", seed, leftOn, leftOff)
		}
	}
	if split == 0 {
		t.Fatal("no trace was long enough to split: the test checks nothing")
	}
}
