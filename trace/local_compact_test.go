// This file tests local_compact.go: compactBySet, given dropSet's answers,
// and objNames.renameAll, given dropSet's count of the objects, make the
// trace compactEvents and then Builder.compactObjects make asking event
// by event (the events kept, the receives' sends, the
// values, the replay positions, the counts left out, the objects and
// their names), on random tables with runs of events kept and left out.

package trace

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
)

func TestCompactBySetSame(t *testing.T) {
	was := minFaultIn
	defer func() { minFaultIn = was }()
	minFaultIn = 1 // the objects' pages faulted in on another goroutine (objNames.faultIn)
	blocks := 0    // words of 64 events all kept past the first left out
	for seed := int64(0); seed < 400; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr, lives, rp, drop := randomCompaction(r)
		a, b := cloneForCompaction(tr), cloneForCompaction(tr)
		a.Values, b.Values = slices.Clone(tr.Values), slices.Clone(tr.Values)
		rpA, rpB := slices.Clone(rp), slices.Clone(rp)
		leftA, rpA, _ := compactEvents(a, rpA, drop, nil)
		(&Builder{t: a, lives: lives}).compactObjects()
		names := newObjNames(&Builder{t: b, lives: lives})
		set, left, perG := dropSet(b.Events, drop, names)
		leftB, rpB := compactBySet(b, rpB, set, left, perG)
		names.renameAll()
		if !slices.Equal(a.Objects, b.Objects) || cap(a.Objects) != cap(b.Objects) || !maps.Equal(a.Names, b.Names) { // made at their size
			t.Fatalf("seed %d: by set objects %v names %v; one by one %v %v", seed, b.Objects, b.Names, a.Objects, a.Names)
		}
		if leftA != leftB || !slices.Equal(a.Events, b.Events) || !slices.Equal(a.Local, b.Local) ||
			!slices.Equal(a.Values, b.Values) || !slices.Equal(rpA, rpB) || (rpA == nil) != (rpB == nil) {
			t.Fatalf("seed %d: by set left out %d, Local %v, values %v, rp %v\nevents %v\none by one: %d, %v, %v, %v\nevents %v",
				seed, leftB, b.Local, b.Values, rpB, b.Events, leftA, a.Local, a.Values, rpA, a.Events)
		}
		first := -1
		for w, s := range set {
			if first < 0 && s != 0 {
				first = w
			} else if first >= 0 && s == 0 && 64*w+64 <= len(tr.Events) {
				blocks++
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no table had a whole word of events kept after one left out: the test checks nothing")
	}
}

// randomCompaction makes a table of 3 goroutines' events, with receives
// naming sends before them, anywhere in the table, past it, or none,
// values on some events, objects (some named) and heap lives named by
// some, replay positions for all or a prefix of the events (or none), and
// a drop function that leaves out runs of accesses, or none.
func randomCompaction(r *rand.Rand) (*Trace, lifeTable, []uint32, func(int, *Event) bool) {
	const ng, nobj = 3, 12
	tr := &Trace{Goroutines: make([]Goroutine, ng+1), Objects: make([]Object, nobj)}
	for k := 1; k < nobj; k++ {
		tr.Objects[k] = Object{ID: ObjID(k), Kind: ObjKind(1 + k%3), Addr: uint64(0x100 * k), Size: 8}
		if k%3 == 0 {
			if tr.Names == nil {
				tr.Names = map[ObjID]string{}
			}
			tr.Names[ObjID(k)] = fmt.Sprint("V", k)
		}
	}
	var lives lifeTable
	nl := 1 + r.Intn(20)
	for k := range nl {
		lives.add(heapLife{addr: uint64(0x10000 + 0x100*k), size: uint64(8 + k)})
	}
	n := r.Intn(600)
	for i := range n {
		e := Event{G: GoID(1 + r.Intn(ng)), Op: OpRead, Addr: uint64(8 * i)}
		switch r.Intn(3) {
		case 1:
			e.Obj = ObjID(1 + r.Intn(nobj-1))
		case 2:
			e.Obj = lifeObj | ObjID(r.Intn(nl))
		}
		switch r.Intn(6) {
		case 0:
			e.Op = OpSend
		case 1:
			e.Op, e.Peer = OpRecv, -1
			switch k := r.Intn(8); {
			case k < 4 && i > 0:
				e.Peer = int32(r.Intn(i)) // its send, before it
			case k < 6:
				e.Peer = int32(r.Intn(n)) // anywhere in the table, as compactEvents allows
			case k < 7:
				e.Peer = int32(n + r.Intn(3)) // past the table: left as it is
			}
		case 2:
			e.Op = OpWrite
		}
		tr.Events = append(tr.Events, e)
		if r.Intn(5) == 0 {
			tr.Values = append(tr.Values, EventValue{Event: i, Value: uint64(i)})
		}
	}
	var rp []uint32
	switch r.Intn(3) {
	case 0:
		rp = make([]uint32, n)
	case 1:
		rp = make([]uint32, r.Intn(n+1))
	}
	for i := range rp {
		rp[i] = uint32(1000 + i)
	}
	// Runs: kept or left out, each of a random length, so that words
	// wholly kept, wholly left out and mixed all come.
	out := make([]bool, n)
	none := r.Intn(8) == 0
	for i := 0; i < n && !none; {
		k, leave := 1+r.Intn(150), r.Intn(2) == 0
		for ; k > 0 && i < n; k, i = k-1, i+1 {
			out[i] = leave && r.Intn(5) > 0
		}
	}
	drop := func(i int, e *Event) bool { return e.Op.IsAccess() && out[i] }
	return tr, lives, rp, drop
}
