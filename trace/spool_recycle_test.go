// This file tests recycling spool slots (recorder.c's "Recycling",
// spool_drain.go) against many short-lived goroutines, whose chunks are
// finished, read and given back while others are still written.

package trace

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLiveShortLived records thousands of short-lived goroutines on a
// few writer threads, as a test that starts a goroutine per request
// would: most write a few records, some fill their chunk to its last byte
// with their end record, some need a new chunk for their end record
// alone, and some span several chunks. Read live, with recycling and
// without, every goroutine's stream must come out whole, in order, ending
// with its end record, and all of them in sequence order: a slot given
// back while its goroutine still wrote to it, or a chunk copied out before
// its last records, would lose them.
func TestLiveShortLived(t *testing.T) { recycleBoth(t, testLiveShortLived) }

// recycleBoth runs test as a subtest without recycling (keep), then with
// (recycle).
func recycleBoth(t *testing.T, test func(t *testing.T, recycle bool)) {
	for _, recycle := range []bool{false, true} {
		name := "keep"
		if recycle {
			name = "recycle"
		}
		t.Run(name, func(t *testing.T) { test(t, recycle) })
	}
}

func testLiveShortLived(t *testing.T, recycle bool) {
	const (
		writers    = 4
		goroutines = 400 // per writer
		// Writes after a goroutine's start record (16 bytes) such that its
		// end record (8) fills the chunk's 8184 bytes: one fewer leaves 24
		// bytes, one more puts the end record in a chunk of its own.
		fill = (spoolChunkBytes - chunkHdr - 16 - 8) / 24
	)
	sizes := []int{0, 1, 2, 5, fill - 1, fill, fill + 1, 2*fill + 1}
	ts := newTestSpool(t, 4096, 1024)
	ended := make(chan struct{})
	type result struct {
		byG    map[uint32][]rawEvent
		seqs   []uint64
		broken bool
		err    error
	}
	got := make(chan result, 1)
	go func() {
		s, err := openSpool(ts.path, ended, recycle)
		if err != nil {
			got <- result{err: err}
			return
		}
		defer s.close()
		r := result{byG: make(map[uint32][]rawEvent)}
		r.broken = mergeVisit(s, func(e *rawEvent) {
			r.seqs = append(r.seqs, e.seq)
			r.byG[e.gid] = append(r.byG[e.gid], rawEvent{seq: e.seq, kind: e.kind, addr: e.addr})
		})
		got <- r
	}()
	time.Sleep(time.Millisecond)
	ts.start()

	var mu sync.Mutex
	want := make(map[uint32][]uint64) // each goroutine's record numbers
	var gids atomic.Uint32
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 11))
			for k := range goroutines {
				if recycle && k == goroutines/2 {
					// Go on once slots were given back, so that the
					// second half is written to them.
					for deadline := time.Now().Add(10 * time.Second); atomic.LoadUint64(ts.u64(hdrRingTail)) == 0 && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond)
					}
				}
				gid := gids.Add(1)
				g := ts.goroutine(gid)
				seqs := []uint64{g.write(rStart, 0)}
				n := sizes[0]
				if r.IntN(4) == 0 {
					n = sizes[r.IntN(len(sizes))]
				}
				for i := range n {
					seqs = append(seqs, g.write(rWrite, uint64(gid)<<20|uint64(i), 0x4000<<8|8))
					if r.IntN(256) == 0 {
						time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
					}
				}
				seqs = append(seqs, g.write(rEnd))
				mu.Lock()
				want[gid] = seqs
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(ended)
	res := <-got
	if res.err != nil || res.broken {
		t.Fatalf("merge: err %v, broken %v", res.err, res.broken)
	}
	if recycle && ts.reused.Load() == 0 {
		t.Errorf("no chunk was written to a slot given back")
	}
	total := 0
	for gid, seqs := range want {
		total += len(seqs)
		evs := res.byG[gid]
		var gotSeqs []uint64
		for _, e := range evs {
			gotSeqs = append(gotSeqs, e.seq)
		}
		if !slices.Equal(gotSeqs, seqs) {
			i := 0
			for i < min(len(gotSeqs), len(seqs)) && gotSeqs[i] == seqs[i] {
				i++
			}
			t.Fatalf("goroutine %d: %d records, want %d; the %dth is %v, want %v", gid, len(gotSeqs), len(seqs), i, gotSeqs[i:min(i+1, len(gotSeqs))], seqs[i:min(i+1, len(seqs))])
		}
		if evs[len(evs)-1].kind != rEnd {
			t.Fatalf("goroutine %d's last record is of kind %d, not its end", gid, evs[len(evs)-1].kind)
		}
		for i, e := range evs[1 : len(evs)-1] {
			if e.kind != rWrite || e.addr != uint64(gid)<<20|uint64(i) {
				t.Fatalf("goroutine %d's write %d read as kind %d at %#x", gid, i, e.kind, e.addr)
			}
		}
	}
	if len(res.seqs) != total {
		t.Errorf("%d records passed on, want %d", len(res.seqs), total)
	}
	for i, s := range res.seqs {
		if s != uint64(i+1) {
			t.Fatalf("record %d passed on is numbered %d", i, s)
		}
	}
}
