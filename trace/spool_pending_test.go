// This file tests reading what a test process left unfinished when it
// ended (recorder.c's "Reading while recording"): an atomic that took
// effect but whose record was not committed is read, a record merely
// begun is not, and neither holds back the records numbered after it.

package trace

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// A testSpool is a spool file laid out as recorder.c lays it out, mapped
// writable, for tests to write as the recorder would (testG).
type testSpool struct {
	path                                  string
	data                                  []byte
	chunksOff, tableOff, ringOff, ringLen uint64
	reused                                atomic.Int64 // chunks written to a slot given back
}

// newTestSpool creates a spool of maxChunks chunks and a free ring of
// ringSlots slots, its header written but for the magic (start).
func newTestSpool(t *testing.T, maxChunks, ringSlots uint64) *testSpool {
	const mallocBytes = 1 << 20
	ts := &testSpool{path: filepath.Join(t.TempDir(), "spool"), tableOff: 4096 + mallocBytes, ringLen: ringSlots}
	ts.ringOff = ts.tableOff + maxChunks*4
	ts.chunksOff = ts.ringOff + ringSlots*4
	size := int(ts.chunksOff + maxChunks*spoolChunkBytes)
	f, err := os.Create(ts.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(int64(size)); err != nil {
		t.Fatal(err)
	}
	if ts.data, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(ts.data) })
	*ts.u32(8), *ts.u32(12) = spoolVersion, spoolChunkBytes
	*ts.u64(16), *ts.u64(24), *ts.u64(hdrMaxChunks) = ts.chunksOff, mallocBytes, maxChunks
	*ts.u64(hdrTableOff), *ts.u64(hdrRingOff), *ts.u64(hdrRingSlots) = ts.tableOff, ts.ringOff, ringSlots
	return ts
}

func (ts *testSpool) u64(off uint64) *uint64 { return (*uint64)(unsafe.Pointer(&ts.data[off])) }
func (ts *testSpool) u32(off uint64) *uint32 { return (*uint32)(unsafe.Pointer(&ts.data[off])) }

// start writes the magic: the recorder is open.
func (ts *testSpool) start() { atomic.StoreUint64(ts.u64(0), spoolMagic) }

// takeSlot is recorder.c's take_slot: 1 + a slot given back, or 0.
func (ts *testSpool) takeSlot() uint64 {
	for h := atomic.LoadUint64(ts.u64(hdrRingHead)); h < atomic.LoadUint64(ts.u64(hdrRingTail)); h = atomic.LoadUint64(ts.u64(hdrRingHead)) {
		v := atomic.LoadUint32(ts.u32(ts.ringOff + h%ts.ringLen*4))
		if atomic.CompareAndSwapUint64(ts.u64(hdrRingHead), h, h+1) {
			return uint64(v)
		}
	}
	return 0
}

// A testG writes one goroutine's records, as recorder.c's reserve and
// commit do, each chunk in a slot given back if there is one, else in a
// fresh one (new_chunk).
type testG struct {
	ts   *testSpool
	gid  uint32
	off  uint64 // the chunk's place in the spool, if have
	used uint64
	have bool
}

func (ts *testSpool) goroutine(gid uint32) *testG { return &testG{ts: ts, gid: gid} }

// room makes room for n bytes of records, in a new chunk if need be.
func (g *testG) room(n uint64) {
	ts := g.ts
	if g.have && g.used+n <= spoolChunkBytes-chunkHdr {
		return
	}
	i := atomic.AddUint64(ts.u64(hdrNextChunk), 1) - 1
	slot := ts.takeSlot()
	if slot != 0 {
		slot--
		ts.reused.Add(1)
	} else {
		slot = atomic.AddUint64(ts.u64(hdrNextSlot), 1) - 1
	}
	g.off, g.used, g.have = ts.chunksOff+slot*spoolChunkBytes, 0, true
	atomic.StoreUint32(ts.u32(g.off+4), 0)
	atomic.StoreUint32(ts.u32(g.off), g.gid)
	atomic.StoreUint32(ts.u32(ts.tableOff+4*i), uint32(slot+1))
}

// begin reserves room for a record, busy, takes its sequence number and
// writes it, the kind and words after them; it returns the number.
func (g *testG) begin(kind uint8, words ...uint64) uint64 {
	ts := g.ts
	g.room(8 * uint64(1+len(words)))
	atomic.StoreUint32(ts.u32(g.off+4), uint32(g.used)|usedBusy)
	seq := atomic.AddUint64(ts.u64(hdrSeq), 1)
	rec := g.off + chunkHdr + g.used
	*ts.u64(rec) = seq<<8 | uint64(kind)
	for k, w := range words {
		*ts.u64(rec + 8 + 8*uint64(k)) = w
	}
	return seq
}

// commit publishes the record begun, of words after its first.
func (g *testG) commit(words int) {
	g.used += 8 * uint64(1+words)
	atomic.StoreUint32(g.ts.u32(g.off+4), uint32(g.used))
}

// write begins and commits a record, and returns its number.
func (g *testG) write(kind uint8, words ...uint64) uint64 {
	seq := g.begin(kind, words...)
	g.commit(len(words))
	return seq
}

// pend marks the record begun pending: an atomic that took effect
// (recorder.c's atomic_pending).
func (g *testG) pend() {
	atomic.StoreUint32(g.ts.u32(g.off+4), uint32(g.used)|usedBusy|usedPend)
}

// atomicWords are an atomic record's words after its first: address,
// op<<16|flags<<8|size, value, old, and one frame.
func atomicWords(addr uint64, op uint8, value, old uint64) []uint64 {
	return []uint64{addr, uint64(op)<<16 | 4, value, old, 1, 0x1234}
}

// TestSpoolPendingAtEnd checks what the reader makes of records the test
// process left unfinished when it ended. Goroutine 1 stored to x with a
// compare-and-swap and ended (its thread descheduled, then killed by the
// exit) before committing the record; goroutine 2 then loaded the value
// it stored. The reader must pass the compare-and-swap on, in its place:
// without it the load reads a value no store wrote, and a goroutine's
// write before the compare-and-swap races with goroutine 2's after the
// load. Goroutine 3 ended before committing a plain write, which never
// took place: it is dropped, and the records numbered after it, of
// goroutine 4, are passed on. Live, the reader passes nothing numbered
// from the first unfinished record on while the process runs.
func TestSpoolPendingAtEnd(t *testing.T) {
	const x, y = 0x1000, 0x2000
	for _, live := range []bool{false, true} {
		name := "after"
		if live {
			name = "live"
		}
		t.Run(name, func(t *testing.T) {
			ts := newTestSpool(t, 1024, 1024)
			ts.start()
			g1, g2, g3, g4 := ts.goroutine(1), ts.goroutine(2), ts.goroutine(3), ts.goroutine(4)
			want := []uint64{
				g1.write(rWrite, y, 0x99<<8|8),
				g1.begin(rAtomic, atomicWords(x, aCAS, 1, 0)...),
			}
			g1.pend()
			want = append(want,
				g2.write(rAtomic, atomicWords(x, aLoad, 1, 0)...),
				g2.write(rWrite, y, 0x98<<8|8),
			)
			g3.begin(rWrite, y, 0x97<<8|8) // never committed
			want = append(want, g4.write(rWrite, y+8, 0x96<<8|8), g4.write(rEnd))

			ended := make(chan struct{})
			if !live {
				close(ended)
			}
			s, err := openSpool(ts.path, ended, true)
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			var visited atomic.Int64
			var got []rawEvent
			done := make(chan bool)
			go func() {
				done <- mergeVisit(s, func(e *rawEvent) {
					got = append(got, *e)
					visited.Add(1)
				})
			}()
			if live {
				// Nothing numbered from the compare-and-swap on goes
				// while the process runs.
				time.Sleep(50 * time.Millisecond)
				if n := visited.Load(); n > 1 {
					t.Errorf("while the process ran, %d records passed on, want at most 1", n)
				}
				close(ended)
			}
			if broken := <-done; broken {
				t.Errorf("merge: broken")
			}
			var seqs []uint64
			for _, e := range got {
				seqs = append(seqs, e.seq)
			}
			if !slices.Equal(seqs, want) {
				t.Fatalf("records passed on: %v, want %v", seqs, want)
			}
			cas := got[1]
			if cas.gid != 1 || cas.kind != rAtomic || cas.aop != aCAS || cas.addr != x || cas.value != 1 || len(cas.pcs) != 1 || cas.pcs[0] != 0x1234 {
				t.Errorf("the pending compare-and-swap read as %+v", cas)
			}
		})
	}
}
