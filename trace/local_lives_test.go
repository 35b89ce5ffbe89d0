// This file tests local_lives.go: compactLocal leaves out the same
// events with the shared lives' words in dense arrays as with them in the
// hash tables, on random traces of lives and other memory, including
// lives too spread or too largely accessed to be dense, and accesses that
// run into the lives.

package trace

import (
	"math/rand"
	"slices"
	"testing"
)

func TestLifeWordsSame(t *testing.T) {
	denseSeen := 0
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr := randomLifeTrace(r)
		on, off := cloneForCompaction(tr), cloneForCompaction(tr)
		leftOn, dense := compactWithLives(on, true)
		leftOff, _ := compactWithLives(off, false)
		denseSeen += dense
		if leftOn != leftOff || !slices.Equal(on.Events, off.Events) || !slices.Equal(on.Local, off.Local) {
			t.Fatalf("seed %d: dense lives left out %d events, the hash tables %d (or kept other ones)", seed, leftOn, leftOff)
		}
	}
	if denseSeen == 0 {
		t.Fatal("no trace had a dense life: the test checks nothing")
	}
}

// compactWithLives runs compactLocal with or without dense lives and
// returns how many events it left out and how many lives were dense.
func compactWithLives(tr *Trace, dense bool) (left, lives int) {
	was := denseLives
	denseLives = dense
	defer func() { denseLives = was }()
	scan := newLocalScan(tr.Stacks, tr.Header.GOROOT)
	for i := range tr.Events {
		scan.observe(i, &tr.Events[i])
	}
	left, _ = compactLocal(tr, nil, scan)
	if scan.lives != nil {
		for _, s := range scan.lives.at {
			if s.base != 0 {
				lives++
			}
		}
	}
	return left, lives
}

func cloneForCompaction(tr *Trace) *Trace {
	c := *tr
	c.Events = slices.Clone(tr.Events)
	return &c
}

// randomLifeTrace makes a trace of 3 goroutines' accesses and
// synchronisation on a few lives and on memory below them.
func randomLifeTrace(r *rand.Rand) *Trace {
	const ng = 3
	tr := &Trace{Goroutines: make([]Goroutine, ng+1)}
	for g := range tr.Goroutines {
		tr.Goroutines[g].ID = GoID(g)
	}
	nl := 1 + r.Intn(8)
	n := 20 + r.Intn(200)
	for range n {
		e := Event{G: GoID(1 + r.Intn(ng)), Op: OpRead, Size: uint32(1 << r.Intn(4))}
		switch r.Intn(10) {
		case 0:
			e.Op = OpWrite
		case 1:
			e.Op, e.Size = OpAtomicLoad, 8
		case 2:
			e.Op, e.Size = OpRelease, 0
		case 3:
			e.Op = OpWrite
		}
		off := uint64(r.Intn(96)) // within 12 words: dense, unless spread below
		switch r.Intn(20) {
		case 0:
			off = uint64(r.Intn(1200)) // spread past lifeSpanWords
		case 1:
			if e.Op.IsAccess() {
				e.Size = uint32(512 + r.Intn(5000)) // large: by page
			}
		}
		switch r.Intn(30) {
		case 0:
			e.Addr = 0x1000 + off // memory below the lives
		case 1:
			if r.Intn(4) == 0 {
				e.Addr, e.Size = lifeBase-4, 8 // runs into life 0
			} else {
				e.Addr = 0x1000 + off
			}
		default:
			e.Addr = lifeBase + uint64(r.Intn(nl))<<lifeShift + off
		}
		tr.Events = append(tr.Events, e)
	}
	for g := 1; g <= ng; g++ {
		tr.Events = append(tr.Events, Event{G: GoID(g), Op: OpEnd})
	}
	return tr
}
