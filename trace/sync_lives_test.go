// This file tests syncLives (sync_lives.go) against the map it stands in
// front of: syncObj gives the object that a map of every address would.

package trace

import (
	"math/rand"
	"testing"
)

// TestSyncLivesSameObjects asks syncObj for objects at random addresses,
// a channel's slots and words past them, the middle of words, lives never
// converted and globals, and checks each answer against a map by address
// made alongside: the same object for the same address, a new one for a
// new address, and the kind the first asking gave, or the first specific
// one after ObjSync.
func TestSyncLivesSameObjects(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const lives = 300
	c := &converter{b: NewBuilder(Header{}), syncObjs: make(map[uint64]ObjID), lives: lives}
	want := map[uint64]ObjID{}
	kinds := []ObjKind{ObjSync, ObjChan, ObjMutex, ObjWaitGroup}
	dense := 0
	for range 20000 {
		var addr uint64
		switch rng.Intn(6) {
		case 0: // a global
			addr = 0x500000 + uint64(rng.Intn(64))*8
		case 1: // past the words a block holds, or inside a word
			addr = lifeBase + uint64(1+rng.Intn(lives))<<lifeShift + uint64(8*syncBlockWords+rng.Intn(64))
		case 2:
			addr = lifeBase + uint64(1+rng.Intn(lives))<<lifeShift + uint64(1+rng.Intn(7))
		case 3: // a life not converted (never asked for by the converter)
			addr = lifeBase + uint64(lives+1+rng.Intn(50))<<lifeShift
		default: // a word a block holds
			addr = lifeBase + uint64(1+rng.Intn(lives))<<lifeShift + uint64(8*rng.Intn(syncBlockWords))
		}
		if c.syncLives.at(addr, c.lives) != nil {
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
