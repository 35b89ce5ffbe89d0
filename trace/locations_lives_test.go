// This file tests GroupAccesses's dense lives (locations_lives.go): on
// random traces of accesses to heap lives and to memory below them, the
// locations are the same with the dense lives as with the hash table
// alone, and both are brute force's.

package trace

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

func TestGroupLivesSame(t *testing.T) {
	denseSeen, spreadSeen := 0, 0
	for seed := int64(0); seed < 400; seed++ {
		r := rand.New(rand.NewSource(seed))
		ev := randomGroupLives(r)
		locOn, spansOn := groupWithLives(ev, true)
		locOff, spansOff := groupWithLives(ev, false)
		if !slices.Equal(locOn, locOff) || !slices.Equal(spansOn, spansOff) {
			t.Fatalf("seed %d: dense lives grouped\n%v\n%v\nthe hash table\n%v\n%v", seed, locOn, spansOn, locOff, spansOff)
		}
		checkGroups(t, ev, locOn, spansOn)
		if gl := newGroupLives(ev); gl != nil {
			for _, s := range gl.at {
				if s.base != 0 {
					denseSeen++
				}
			}
			if len(gl.bytes) < gl.starts() {
				t.Fatalf("seed %d: %d start bytes in %d bytes", seed, gl.starts(), len(gl.bytes))
			}
			for i := range ev {
				if ev[i].IsMem() && ev[i].Addr >= lifeBase {
					if _, ok := gl.byteOf(ev[i].Addr); !ok {
						spreadSeen++
					}
				}
			}
		}
	}
	if denseSeen == 0 || spreadSeen == 0 {
		t.Fatalf("%d dense lives, %d accesses of lives left to the hash table: the test checks too little", denseSeen, spreadSeen)
	}
}

// groupWithLives runs GroupAccesses with or without dense lives.
func groupWithLives(ev []Event, dense bool) ([]int32, []Span) {
	was := denseGroups
	denseGroups = dense
	defer func() { denseGroups = was }()
	return GroupAccesses(ev)
}

// randomGroupLives makes accesses to a few lives, mostly within a few
// words of their start, some spread past groupLifeBytes, past 2^32 bytes
// into the life or of a life numbered past the lives' table, and to
// memory below the lives; rarely one that runs into the lives or from one
// life into the next (no life is dense then).
func randomGroupLives(r *rand.Rand) []Event {
	nl := 1 + r.Intn(6)
	n := 1 + r.Intn(80)
	ev := make([]Event, 0, n)
	for range n {
		// Reads and writes of 1 to 8 bytes, atomics, a lock (not an
		// access), and odd sizes that overlap.
		ops := [...]Op{OpRead, OpRead, OpRead, OpRead, OpWrite, OpAtomicLoad, OpLock}
		e := Event{Op: ops[r.Intn(len(ops))], Size: uint32(1 << r.Intn(4))}
		if r.Intn(6) == 0 {
			e.Size = uint32(1 + r.Intn(40))
		}
		off := uint64(r.Intn(64))
		switch r.Intn(25) {
		case 0:
			off = uint64(r.Intn(600)) // spread past groupLifeBytes
		case 1:
			off = 1<<32 - uint64(r.Intn(64)) // near 2^32 bytes in
		case 2:
			e.Size = uint32(200 + r.Intn(100)) // large
		}
		life := uint64(r.Intn(nl))
		if r.Intn(40) == 0 {
			life = uint64(n) + groupLivesSlack + uint64(r.Intn(3)) // past the table
		}
		e.Addr = lifeBase + life<<lifeShift + off
		switch r.Intn(30) {
		case 0:
			e.Addr = 0x1000 + off // memory below the lives
		case 1:
			if r.Intn(5) == 0 {
				e.Addr = lifeBase - uint64(r.Intn(4)) // runs into life 0
			}
		case 2:
			if r.Intn(5) == 0 {
				e.Addr = lifeBase + (life+1)<<lifeShift - uint64(r.Intn(4)) // into the next life
			}
		case 3:
			if r.Intn(3) == 0 {
				e.Addr = math.MaxUint64 - uint64(r.Intn(4)) // wraps: not an access
			}
		}
		ev = append(ev, e)
	}
	return ev
}
