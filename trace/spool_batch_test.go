// This file tests the walk's batches (spool_batch.go) and cursor.decode's
// writes into a reused slot.

package trace

import (
	"encoding/binary"
	"reflect"
	"slices"
	"testing"
)

// TestDecodeReusedSlot decodes each kind of record into a slot a record
// of another kind filled before (as a batch given back is reused) and into
// a zeroed one, and wants what the converter reads of each kind the same.
// For a plain access, decode sets only some fields (see there): aid,
// behalf and the access's own must not keep the old record's.
func TestDecodeReusedSlot(t *testing.T) {
	words := func(ws ...uint64) []byte {
		b := make([]byte, 8*len(ws))
		for i, w := range ws {
			binary.LittleEndian.PutUint64(b[8*i:], w)
		}
		return b
	}
	const seq, addr, pc = 77, 0xc000012340, 0x4a1234
	dirty := rawEvent{seq: 1, addr: 2, size: 3, pc: 4, astart: 5, aend: 6, aid: 7, gid: 8, kind: rAtomic,
		behalf: true, step: true, aop: aCAS, aflags: afFailed, peer: 9, pcs: []uint64{10}, parked: []uint64{11}, value: 12, old: 13}
	for _, tc := range []struct {
		name string
		rec  []byte
		want rawEvent // what is read of the record: for an access, but astart and aend
	}{
		{"read", words(seq<<8|rRead, addr, pc<<8|4), rawEvent{seq: seq, addr: addr, size: 4, pc: pc, gid: 3, kind: rRead}},
		{"write", words(seq<<8|rWrite, addr, pc<<8|8), rawEvent{seq: seq, addr: addr, size: 8, pc: pc, gid: 3, kind: rWrite}},
		{"read in two words", words(seq<<seq2Shift|(pc&0xffff)<<8|rRead2, addr|pc>>16<<addr2Bits), rawEvent{seq: seq, addr: addr, size: 1, pc: pc, gid: 3, kind: rRead}},
		{"write in two words", words(seq<<seq2Shift|(pc&0xffff)<<8|rWrite2, addr|pc>>16<<addr2Bits), rawEvent{seq: seq, addr: addr, size: 1, pc: pc, gid: 3, kind: rWrite}},
		{"range", words(seq<<8|rWriteRange, addr, 100, pc), rawEvent{seq: seq, addr: addr, size: 100, pc: pc, gid: 3, kind: rWriteRange}},
		{"go", words(seq<<8|rGo, 5, pc), rawEvent{seq: seq, peer: 5, pc: pc, gid: 3, kind: rGo}},
		{"end", words(seq<<8 | rEnd), rawEvent{seq: seq, gid: 3, kind: rEnd}},
	} {
		c := &cursor{gid: 3, recs: tc.rec, off: uint64(len(tc.rec))}
		var arena pcArena
		for _, start := range []rawEvent{{}, dirty} {
			e := start
			c.decode(&e, &arena)
			got := e
			if got.kind == rRead || got.kind == rWrite {
				// astart and aend are read only with an aid the
				// allocation stage sets; step, emit sets; the rest
				// is not read of an access.
				got.astart, got.aend, got.step = 0, 0, false
				got.aop, got.aflags, got.peer, got.pcs, got.parked, got.value, got.old = 0, 0, 0, nil, nil, 0, 0
			}
			got.step = false // emit sets it
			if !equalRaw(got, tc.want) {
				t.Errorf("%s, into %+v: got %+v, want %+v", tc.name, start, got, tc.want)
			}
		}
	}
}

func equalRaw(a, b rawEvent) bool {
	if len(a.pcs) != len(b.pcs) || len(a.parked) != len(b.parked) {
		return false
	}
	a.pcs, a.parked, b.pcs, b.parked = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

// TestBatcher: the records written come out in order in full batches and
// a last partial one, empty batches given back are used again, and once
// merge quits nothing more is handed on however many records the walk
// still writes.
func TestBatcher(t *testing.T) {
	items := make(chan []rawEvent, 8)
	free := make(chan []rawEvent, 8)
	quit := make(chan struct{})
	b := newBatcher(items, free, quit)
	const n = 2*batchSize + 452
	var lens []int
	next := uint64(0)
	take := func() {
		for {
			select {
			case batch := <-items:
				lens = append(lens, len(batch))
				for _, r := range batch {
					if r.seq != next {
						t.Fatalf("record %d came as %d", next, r.seq)
					}
					next++
				}
				free <- batch
			default:
				return
			}
		}
	}
	for i := range n {
		b.slot().seq = uint64(i)
		if i == batchSize+10 {
			take() // the first batch comes back for the third
		}
	}
	b.flush()
	b.flush() // nothing more: no empty batch
	take()
	if !slices.Equal(lens, []int{batchSize, batchSize, 452}) || next != n {
		t.Fatalf("batches of %v, %d records; want %d, %d, 452", lens, next, batchSize, batchSize)
	}
	close(quit)
	blocked := newBatcher(make(chan []rawEvent), free, quit) // never read
	for i := range 5 * batchSize {
		blocked.slot().seq = uint64(i)
	}
	blocked.flush()
	if !blocked.quitting {
		t.Fatal("not quitting after quit was closed")
	}
}
