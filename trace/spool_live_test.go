package trace

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLiveWatermark checks the live reader against writers that keep to
// recorder.c's protocol ("Reading while recording") but linger: between
// taking a sequence number and committing its record, a writer sometimes
// sleeps, as a descheduled thread would. The reader must still visit
// every record, in sequence order, each once: a watermark that passed a
// number still being written would skip or reorder it. With recycling
// (recorder.c's "Recycling"), the writers also write new chunks to the
// slots the reader gives back: a slot given back before every record in
// it was read would lose or garble records.
func TestLiveWatermark(t *testing.T) { recycleBoth(t, testLiveWatermark) }

func testLiveWatermark(t *testing.T, recycle bool) {
	const (
		chunkBytes = spoolChunkBytes
		maxChunks  = 4096
		ringSlots  = 1024
		writers    = 6
		records    = 6000
	)
	ts := newTestSpool(t, maxChunks, ringSlots)
	path, u64 := ts.path, ts.u64

	ended := make(chan struct{})
	type result struct {
		seqs   []uint64
		broken bool
		err    error
	}
	got := make(chan result, 1)
	var visited atomic.Int64 // records passed on
	go func() {
		s, err := openSpool(path, ended, recycle) // waits for the magic
		if err != nil {
			got <- result{err: err}
			return
		}
		defer s.close()
		var r result
		r.broken = mergeVisit(s, func(e *rawEvent) {
			r.seqs = append(r.seqs, e.seq)
			visited.Add(1)
		})
		got <- r
	}()
	time.Sleep(time.Millisecond)
	ts.start()

	linger := func(r *rand.Rand) {
		switch r.IntN(64) {
		case 0:
			time.Sleep(time.Duration(r.IntN(300)) * time.Microsecond)
		case 1, 2, 3:
			runtime.Gosched()
		}
	}
	var lastCursor atomic.Uint64 // the highest number of a goroutine record
	var allocs sync.Map          // alloc record numbers
	var wg sync.WaitGroup
	for g := uint32(1); g <= writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			w := ts.goroutine(g)
			write := func(kind uint8, words ...uint64) {
				seq := w.begin(kind, words...)
				linger(r)
				w.commit(len(words))
				for {
					last := lastCursor.Load()
					if seq <= last || lastCursor.CompareAndSwap(last, seq) {
						break
					}
				}
			}
			for k := 0; k < records; k++ {
				if recycle && k == records/2 {
					// Go on once the reader has given slots back, so
					// that the second half is written to them.
					for deadline := time.Now().Add(10 * time.Second); atomic.LoadUint64(u64(hdrRingTail)) == 0 && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond)
					}
				}
				if r.IntN(8) == 0 {
					i := atomic.AddUint64(u64(hdrNextMalloc), 1) - 1
					rec := 4096 + i*24
					atomic.StoreUint64(u64(rec), rAllocBusy)
					seq := atomic.AddUint64(u64(hdrSeq), 1)
					linger(r)
					*u64(rec + 8), *u64(rec + 16) = 0x1000*uint64(k+1), 16
					atomic.StoreUint64(u64(rec), seq<<8|rMalloc)
					allocs.Store(seq, true)
				}
				write(rWrite, uint64(g)<<20|uint64(k), 0x4000<<8|8)
			}
			write(rEnd)
		}()
	}
	wg.Wait()
	// Every record must be passed on while the writers' process is still
	// "running": this is a test of the live reading, not of the last pass
	// after the end.
	want := lastCursor.Load()
	for deadline := time.Now().Add(30 * time.Second); visited.Load() < int64(want) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := visited.Load(); n != int64(want) {
		t.Errorf("before the end, %d records passed on, want %d", n, want)
	}
	close(ended)
	r := <-got
	if recycle && ts.reused.Load() == 0 {
		t.Errorf("no chunk was written to a slot given back")
	}
	if !recycle && atomic.LoadUint64(u64(hdrRingTail)) != 0 {
		t.Errorf("a reader that does not recycle gave %d slots back", atomic.LoadUint64(u64(hdrRingTail)))
	}
	if r.err != nil || r.broken {
		t.Fatalf("merge: err %v, broken %v", r.err, r.broken)
	}
	// Every number up to the last goroutine record, in order, once
	// (allocation records after it are not visited: none follows them).
	if uint64(len(r.seqs)) != want {
		t.Errorf("visited %d records, want %d", len(r.seqs), want)
	}
	for i, s := range r.seqs {
		if s != uint64(i+1) {
			_, alloc := allocs.Load(s)
			t.Fatalf("record %d visited is numbered %d (allocation: %v), want %d", i, s, alloc, i+1)
		}
	}
}

// mergeVisit is merge for the spool tests: visit is given every record but
// function entries, exits and hints, and the walk is never stopped.
func mergeVisit(s *spool, visit func(*rawEvent)) (broken bool) {
	return s.merge(func(batch []rawEvent) bool {
		for i := range batch {
			if r := &batch[i]; r.kind != rEnter && r.kind != rExit && r.kind != rHint {
				visit(r)
			}
		}
		return false
	})
}
