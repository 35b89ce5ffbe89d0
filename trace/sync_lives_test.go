// This file tests syncLives (sync_lives.go) against the maps it stands in
// for: syncObj gives the object, and lastRelease the release, that maps of
// every address would.

package trace

import (
	"math/rand"
	"testing"
)

// syncAddr returns a random trace address of the kinds syncLives must
// tell apart: a word a life's block holds, words past them, the middle of
// a word, a life not converted, a global.
func syncAddr(rng *rand.Rand, lives int) uint64 {
	switch rng.Intn(6) {
	case 0:
		return 0x500000 + uint64(rng.Intn(64))*8
	case 1:
		return lifeBase + uint64(1+rng.Intn(lives))<<lifeShift + uint64(8*syncBlockWords+rng.Intn(64))
	case 2:
		return lifeBase + uint64(1+rng.Intn(lives))<<lifeShift + uint64(1+rng.Intn(7))
	case 3:
		return lifeBase + uint64(lives+1+rng.Intn(50))<<lifeShift
	}
	return lifeBase + uint64(1+rng.Intn(lives))<<lifeShift + uint64(8*rng.Intn(syncBlockWords))
}

// TestSyncLivesSameObjects asks syncObj for objects at random addresses
// and checks each answer against a map by address made alongside: the
// same object for the same address, a new one for a new address.
func TestSyncLivesSameObjects(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const lives = 300
	c := &converter{b: NewBuilder(Header{}), syncObjs: make(map[uint64]ObjID), lives: lives}
	want := map[uint64]ObjID{}
	kinds := []ObjKind{ObjSync, ObjChan, ObjMutex, ObjWaitGroup}
	dense := 0
	for range 20000 {
		addr := syncAddr(rng, lives)
		if c.syncLives.slot(addr, c.lives) >= 0 {
			dense++
		}
		kind := kinds[rng.Intn(len(kinds))]
		got := c.syncObj(kind, addr)
		id, ok := want[addr]
		if !ok {
			id = ObjID(len(want) + 1)
			want[addr] = id
		}
		if got != id {
			t.Fatalf("syncObj(%v, %#x) = %d, want %d (%d addresses so far)", kind, addr, got, id, len(want))
		}
		if o := c.b.t.Objects[got]; o.Addr != addr {
			t.Fatalf("object %d is at %#x, want %#x", got, o.Addr, addr)
		}
	}
	if dense == 0 || dense == 20000 {
		t.Errorf("%d of the addresses were syncLives's: the test wants both kinds", dense)
	}
}

// TestSyncLivesSameReleases sets and asks for the latest releases at
// random addresses, asks syncObj for objects at others (which makes
// blocks, into which releases noted before move), and renumbers them now
// and then as settle does, and checks each answer against a map by
// address.
func TestSyncLivesSameReleases(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const lives = 300
	c := &converter{b: NewBuilder(Header{}), syncObjs: make(map[uint64]ObjID), lastRel: make(map[uint64]int), lives: lives}
	want := map[uint64]int{}
	n := 0 // events so far
	inBlocks := 0
	for step := range 20000 {
		addr := syncAddr(rng, lives)
		switch r := rng.Intn(8); {
		case r == 0:
			c.syncObj(ObjChan, addr)
		case r < 4:
			if c.syncLives.slot(addr, c.lives) >= 0 {
				inBlocks++
			}
			c.setLastRelease(addr, n)
			want[addr] = n
			n++
		case step%1000 == 999:
			// Renumber: every event moves down by a random amount, as if
			// settle left out some before it (releases are kept).
			idx := make([]int32, n)
			k := 0
			for i := range idx {
				k += rng.Intn(2)
				idx[i] = int32(min(k, i))
			}
			c.renumberReleases(func(i int) int { return int(idx[i]) })
			for a, i := range want {
				want[a] = int(idx[i])
			}
		default:
			got, ok := c.lastRelease(addr)
			w, wok := want[addr]
			if got != w && wok || ok != wok {
				t.Fatalf("lastRelease(%#x) = %d, %v; want %d, %v", addr, got, ok, w, wok)
			}
		}
	}
	if inBlocks == 0 || len(c.lastRel) == 0 {
		t.Errorf("%d releases noted in blocks, %d in the map: the test wants both", inBlocks, len(c.lastRel))
	}
}
