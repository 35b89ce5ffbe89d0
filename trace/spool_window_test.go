// This file tests reading a spool of many open chunks through copies
// (spool_window.go): every record is read, in order and unchanged, after
// the run and while the writers write, and the reader's mapping keeps only
// a bounded part of the spool resident.

package trace

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// TestSpoolManyOpen writes goroutines each of which keeps one chunk open
// to the end, their records interleaved round by round (stress-chan-100k's
// consumers, smaller), and reads them with a threshold and a sweep
// interval made small: in the spool's order, each record's words as
// written, and the reader's mapping at most a bound resident, which
// reading in place exceeds (each chunk's page stays mapped until its
// goroutine ends).
func TestSpoolManyOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		live bool
	}{
		{"after the run", false},
		{"live", true},
	} {
		t.Run(tc.name, func(t *testing.T) { testSpoolManyOpen(t, tc.live) })
	}
}

func testSpoolManyOpen(t *testing.T, live bool) {
	const (
		goroutines = 8192
		rounds     = 20 // of 184-byte records: 3,680 bytes, most of a chunk
		pcs        = 20
		writers    = 4 // live: goroutines of the test writing the spool's
		openChunks = 64
		sweepEvery = 32
	)
	// Reading in place keeps goroutines*chunk bytes (32 MiB) resident; the
	// copies at most sweepEvery looks and openChunks chunks read in place
	// before the copies began, each two fault-arounds (64 KiB), and a block
	// of chunks discovery scanned.
	const bound = (sweepEvery+openChunks)*2*64<<10 + releaseChunks*spoolChunkBytes
	ts := newTestSpool(t, 9<<10, 1<<10)
	ended := make(chan struct{})
	if !live {
		close(ended)
	}
	type result struct {
		broken, many bool
		n            int
		peak         int64
		err          error
	}
	got := make(chan result, 1)
	read := func() {
		s, err := openSpool(ts.path, ended, false)
		if err != nil {
			got <- result{err: err}
			return
		}
		defer s.close()
		s.win.openBytes, s.win.sweepEvery = openChunks*spoolChunkBytes, sweepEvery
		var r result
		addr := uintptr(unsafe.Pointer(&s.data[0]))
		r.broken = mergeVisit(s, func(e *rawEvent) {
			r.n++
			if e.seq != uint64(r.n) && r.err == nil {
				r.err = fmt.Errorf("record %d visited is numbered %d", r.n, e.seq)
			}
			if e.kind == rEnd {
				return
			}
			g, round := uint32(e.addr>>32), e.addr&0xffffffff
			if e.kind != rAcquire || g != e.gid || len(e.pcs) != pcs || e.pcs[0] != e.addr || e.pcs[pcs-1] != e.addr+pcs-1 {
				if r.err == nil {
					r.err = fmt.Errorf("record %d: kind %d, goroutine %d, address %#x, pcs %x: not as written (goroutine %d, round %d)", e.seq, e.kind, e.gid, e.addr, e.pcs, g, round)
				}
			}
			if r.n%2048 == 0 {
				r.peak = max(r.peak, mappingRss(t, addr))
			}
		})
		r.many = s.win.many
		got <- r
	}
	ts.start()
	rec := func(w *testG, round uint64) {
		words := make([]uint64, 2+pcs)
		a := uint64(w.gid)<<32 | round
		words[0], words[1] = a, pcs
		for k := range pcs {
			words[2+k] = a + uint64(k)
		}
		w.write(rAcquire, words...)
	}
	gs := make([]*testG, goroutines)
	for i := range gs {
		gs[i] = ts.goroutine(uint32(i + 1))
	}
	if live {
		go read()
		var wg sync.WaitGroup
		for k := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(k), 9))
				mine := gs[k*goroutines/writers : (k+1)*goroutines/writers]
				for round := range uint64(rounds) {
					for _, w := range mine {
						rec(w, round)
						if r.IntN(256) == 0 {
							runtime.Gosched()
						}
					}
				}
				for _, w := range mine {
					w.write(rEnd)
				}
			}()
		}
		wg.Wait()
		close(ended)
	} else {
		for round := range uint64(rounds) {
			for _, w := range gs {
				rec(w, round)
			}
		}
		for _, w := range gs {
			w.write(rEnd)
		}
		go read()
	}
	r := <-got
	if r.err != nil || r.broken {
		t.Fatalf("merge: err %v, broken %v", r.err, r.broken)
	}
	if want := goroutines * (rounds + 1); r.n != want {
		t.Errorf("visited %d records, want %d", r.n, want)
	}
	if !r.many {
		t.Errorf("%d goroutines' chunks open, past %d: the walk did not read them through copies", goroutines, openChunks)
	}
	if r.peak > bound {
		t.Errorf("the spool's mapping had %d KiB resident, want at most %d KiB", r.peak>>10, bound>>10)
	}
	t.Logf("the spool's mapping had at most %d KiB resident (bound %d KiB)", r.peak>>10, bound>>10)
}

// mappingRss returns the resident bytes of the mapping that starts at
// addr, from /proc/self/smaps.
func mappingRss(t *testing.T, addr uintptr) int64 {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	prefix := strconv.FormatUint(uint64(addr), 16) + "-"
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if key, _, _ := strings.Cut(line, " "); !strings.HasSuffix(key, ":") {
			in = strings.HasPrefix(line, prefix) // a mapping's first line
			continue
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); in && ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("smaps: %q", line)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", addr)
	return 0
}

// TestSpoolWindowReuse reads, through copies, goroutines each of which
// writes several chunks: every record is read as written, and the walk
// makes two copies for each goroutine (a full chunk's and its last's, of
// another capacity), not one for each chunk: a cursor done with a chunk
// gives its copy to the free list, from which the next chunk's is taken.
func TestSpoolWindowReuse(t *testing.T) {
	const (
		goroutines = 256
		rounds     = 100 // of 184-byte records: 18,400 bytes, five chunks
		pcs        = 20
		openChunks = 16
	)
	ts := newTestSpool(t, 4<<10, 1<<10)
	ts.start()
	gs := make([]*testG, goroutines)
	for i := range gs {
		gs[i] = ts.goroutine(uint32(i + 1))
	}
	words := make([]uint64, 2+pcs)
	for round := range uint64(rounds) {
		for _, w := range gs {
			a := uint64(w.gid)<<32 | round
			words[0], words[1] = a, pcs
			for k := range pcs {
				words[2+k] = a + uint64(k)
			}
			w.write(rAcquire, words...)
		}
	}
	for _, w := range gs {
		w.write(rEnd)
	}
	ended := make(chan struct{})
	close(ended)
	s, err := openSpool(ts.path, ended, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.win.openBytes = openChunks * spoolChunkBytes
	n := 0
	var bad error
	broken := mergeVisit(s, func(e *rawEvent) {
		n++
		if e.kind == rEnd || bad != nil {
			return
		}
		if g := uint32(e.addr >> 32); e.kind != rAcquire || g != e.gid || len(e.pcs) != pcs || e.pcs[0] != e.addr || e.pcs[pcs-1] != e.addr+pcs-1 {
			bad = fmt.Errorf("record %d: kind %d, goroutine %d, address %#x, pcs %x: not as written", e.seq, e.kind, e.gid, e.addr, e.pcs)
		}
	})
	if broken || bad != nil {
		t.Fatalf("merge: broken %v, %v", broken, bad)
	}
	if want := goroutines * (rounds + 1); n != want {
		t.Errorf("visited %d records, want %d", n, want)
	}
	if !s.win.many {
		t.Fatalf("%d goroutines' chunks open, past %d: the walk did not read them through copies", goroutines, openChunks)
	}
	chunks := int(*ts.u64(hdrNextChunk))
	if chunks < 4*goroutines {
		t.Fatalf("the goroutines wrote %d chunks, want at least %d", chunks, 4*goroutines)
	}
	if s.win.made > 2*goroutines+openChunks {
		t.Errorf("the walk made %d copies for %d chunks of %d goroutines, want at most %d", s.win.made, chunks, goroutines, 2*goroutines+openChunks)
	}
	if s.win.freeBytes > windowFreeBytes {
		t.Errorf("the free list holds %d bytes of copies, past %d", s.win.freeBytes, windowFreeBytes)
	}
	t.Logf("%d copies made for %d chunks", s.win.made, chunks)
}

// TestWindowFree checks the free list of copies: a copy taken is one given
// of its capacity, if there is one, else a new one, and the list holds at
// most windowFreeBytes.
func TestWindowFree(t *testing.T) {
	var w spoolWindow
	a := w.take(300) // 512 bytes
	if cap(a) != 512 || w.made != 1 {
		t.Fatalf("take(300): cap %d, made %d; want 512, 1", cap(a), w.made)
	}
	a = append(a, 1, 2, 3)
	w.give(a)
	for _, tc := range []struct {
		n        uint64
		wantCap  int
		wantMade int
		same     bool // the copy given
	}{
		{n: 600, wantCap: 768, wantMade: 2},             // another class
		{n: 257, wantCap: 512, wantMade: 2, same: true}, // a's class
		{n: 512, wantCap: 512, wantMade: 3},             // a is taken
		{n: 0, wantCap: 0, wantMade: 3},                 // no room: nothing to take
	} {
		b := w.take(tc.n)
		if cap(b) != tc.wantCap || len(b) != 0 || w.made != tc.wantMade || b == nil {
			t.Errorf("take(%d): len %d, cap %d, made %d; want 0, %d, %d", tc.n, len(b), cap(b), w.made, tc.wantCap, tc.wantMade)
		}
		if same := cap(b) > 0 && &b[:1][0] == &a[:1][0]; same != tc.same {
			t.Errorf("take(%d) returned the copy given: %v, want %v", tc.n, same, tc.same)
		}
	}
	for range 2 * windowFreeBytes / spoolChunkBytes {
		w.give(make([]byte, 10, spoolChunkBytes))
	}
	if w.freeBytes != windowFreeBytes {
		t.Errorf("the free list holds %d bytes, want %d (its bound)", w.freeBytes, windowFreeBytes)
	}
}
