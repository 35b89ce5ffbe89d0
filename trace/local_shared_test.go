// This file tests local_shared.go: the owners sharedLives finds with its
// passes split over two cores are those it finds in one pass each, on
// random traces of lives and other memory.

package trace

import (
	"maps"
	"math"
	"math/rand"
	"slices"
	"testing"
)

func TestSharedLivesSame(t *testing.T) {
	was, wasBits := minParallelDrops, loadBits
	defer func() { minParallelDrops, loadBits = was, wasBits }()
	loadBits = 0
	split := 0
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr := randomLifeTrace(r)
		minParallelDrops = 1
		on := sharedLivesOf(tr)
		minParallelDrops = math.MaxInt
		off := sharedLivesOf(tr)
		if on.lives != nil && on.lives.middle() < uint64(len(on.lives.at)) {
			split++ // dense lives on both sides of the split
		}
		if (on.lives == nil) != (off.lives == nil) {
			t.Fatalf("seed %d: dense lives on two cores: %v; in one pass: %v", seed, on.lives != nil, off.lives != nil)
		}
		if on.lives != nil && (!slices.Equal(on.lives.at, off.lives.at) || !slices.Equal(on.lives.own, off.lives.own)) {
			t.Fatalf("seed %d: dense lives on two cores %v %v; in one pass %v %v", seed, on.lives.at, on.lives.own, off.lives.at, off.lives.own)
		}
		for _, tab := range []struct {
			name    string
			on, off *addrTable
		}{{"words", on.o.words, off.o.words}, {"all", on.o.all, off.o.all}, {"large", on.o.large, off.o.large}} {
			if a, b := tableMap(tab.on), tableMap(tab.off); !maps.Equal(a, b) {
				t.Fatalf("seed %d: owners of %s on two cores %v; in one pass %v", seed, tab.name, a, b)
			}
		}
	}
	if split == 0 {
		t.Fatal("no trace had dense lives on both sides of the split: the test checks nothing")
	}
}

// sharedLivesOf returns the scan of tr once sharedLives has run.
func sharedLivesOf(tr *Trace) *localScan {
	scan := newLocalScan(tr.Stacks, tr.Header.GOROOT)
	for i := range tr.Events {
		scan.observe(i, &tr.Events[i])
	}
	scan.sharedLives(tr)
	return scan
}

// tableMap returns t's entries.
func tableMap(t *addrTable) map[uint64]uint32 {
	m := make(map[uint64]uint32)
	for i, k := range t.keys {
		if k != 0 {
			m[k-1] = t.vals[i]
		}
	}
	return m
}
