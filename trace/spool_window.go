// This file implements reading a spool of many open chunks through copies:
// with tens of thousands of goroutines each holding an unfinished chunk,
// the walk reads each cursor's chunk from a copy of its committed records
// rather than from the mapping, and gives the mapping's pages back every
// few chunks it looks at, so that seer's resident set does not hold the
// spool's file pages of every open chunk.
//
// Why copies: reading a word of a chunk maps its page, and the kernel's
// fault-around maps the pages near it that the page cache holds (64 KiB:
// sixteen chunks of a page each), whether or not they were written. On
// stress-chan-100k (a goroutine for each of 100,000 channels, most of
// whose chunks hold a few hundred bytes) the walk, which visits the
// goroutines' records in sequence order, touched every chunk again and
// again, and the mapping kept every page of the spool resident, most of
// seer's resident set (bench/RESULTS.md, branch rss100k). No madvise
// advice turns fault-around off for a mapping, and the sweep of release
// (every 16 MiB of chunks finished) never came while the goroutines ran: their
// chunks are finished only when they end.
//
// With many chunks open (len(active)*chunkBytes past manyOpenBytes), a
// cursor copies its chunk's committed records when it takes the chunk
// (openWindow), and what the recorder commits to it later as the walk
// finds it (extend); the spool's pages are looked at only when a chunk is
// taken or its used word read, and every windowSweep such looks (fewer
// under a small -maxmem: sweepLooks) the mapping's pages are given back
// (touched). The copies hold only the
// records written: a goroutine's open chunk is mostly a few hundred bytes.
// With few goroutines open (every other suite) nothing changes: chunks are
// read in place. Under seer's -maxmem the threshold is also what the
// eighth of it left outside the Go memory limit holds of the open chunks'
// pages, a fault-around each (openBytesWithin, SetSpoolRoom), shared by
// the spools mapped at once (spoolRoomShare).
//
// The copies are reused: a copy the walk is done with (its chunk read, or
// grown out of by extend) goes to a free list by capacity (windowFree),
// from which openWindow and extend take one of the capacity they need.
// Made afresh, the copies were the largest allocation of the conversion
// on a run of tens of thousands of goroutines (pond's root package), each
// one fresh pages to fault in once the runtime had given the old ones
// back (bench/RESULTS.md, branch openwin).

package trace

import (
	"sync/atomic"
	"syscall"
)

// manyOpenBytes is the room of open chunks (active cursors times the
// chunk size) past which the walk reads chunks through copies: 32,768
// goroutines of 4 KiB chunks. stress-chan-3m runs 1,100 goroutines,
// stress-chan-100k 101,000.
const manyOpenBytes = 128 << 20

// windowSweep is how many looks at the spool's chunks the walk makes
// between two sweeps of the mapping's pages, once it reads through copies,
// at most (sweepLooks): each look maps at most a fault-around's 64 KiB
// (two, across a boundary), so 1,024 bound the mapping's resident chunk
// pages by 128 MiB.
const windowSweep = 1024

// lookBytes is the most a look at a chunk maps: two fault-arounds.
const lookBytes = 2 * faultAroundChunks * spoolChunkBytes

// sweepLooks returns how many looks the walk makes between two sweeps,
// for a process whose memory not counted by the Go memory limit is room
// bytes (0: no limit set): windowSweep, or fewer if the pages those looks
// map (lookBytes each) could pass room: with windowSweep's under a small
// -maxmem, the chunk pages stress-chan-100k's walk held between two
// sweeps passed the room left for them (bench/RESULTS.md, branch
// maxmem4).
func sweepLooks(room int64) int {
	if room <= 0 {
		return windowSweep
	}
	return int(max(min(windowSweep, room/lookBytes), 1))
}

// faultAroundChunks is how many chunk pages a look at one maps at most:
// the kernel's fault-around, 64 KiB, of 4 KiB chunks.
const faultAroundChunks = (64 << 10) / spoolChunkBytes

// openBytesWithin returns the room of open chunks past which the walk
// reads through copies, for a process whose memory not counted by the Go
// memory limit is room bytes (0: no limit set): manyOpenBytes, or less if
// the open chunks' pages the looks map (a fault-around each) could pass
// room: a test that keeps tens of thousands of goroutines open, but
// fewer than manyOpenBytes counts, held enough chunk pages in seer's
// resident set to pass a small -maxmem (pond's root package under
// -maxmem 512MiB: bench/RESULTS.md, branch maxmem).
func openBytesWithin(room int64) uint64 {
	if room <= 0 {
		return manyOpenBytes
	}
	return min(manyOpenBytes, uint64(room)/faultAroundChunks)
}

// spoolWindow is the walk's state of reading through copies.
type spoolWindow struct {
	many   bool          // chunks are read through copies
	looks  int           // looks at chunks since the last sweep
	slotHi atomic.Uint64 // one past the highest slot found (discoverLocked, under s.mu)

	// openBytesWithin's and sweepLooks's, but for tests (0: those).
	openBytes  uint64
	sweepEvery int

	free      [][][]byte // copies done with, by capacity class (windowClass)
	freeBytes int        // their capacities' sum, at most windowFreeBytes
	made      int        // copies allocated rather than taken from free
}

// windowFreeBytes bounds the copies the free list holds: a few hundred
// chunks' worth, what the cursors give back and take again between
// two of their chunks, and a small part of seer's memory.
const windowFreeBytes = 1 << 20

// windowStep is the granule of a copy's capacity (windowCap).
const windowStep = 256

// windowClass returns the free list's index for a copy of capacity n, a
// multiple of windowStep.
func windowClass(n int) int { return n/windowStep - 1 }

// take returns an empty copy of capacity windowCap(n), from the free list
// if it holds one.
func (w *spoolWindow) take(n uint64) []byte {
	c := windowCap(n)
	if c == 0 {
		return make([]byte, 0) // not nil: the cursor reads through a copy
	}
	if k := windowClass(c); k < len(w.free) {
		if l := w.free[k]; len(l) > 0 {
			b := l[len(l)-1]
			l[len(l)-1] = nil
			w.free[k] = l[:len(l)-1]
			w.freeBytes -= cap(b)
			return b
		}
	}
	w.made++
	return make([]byte, 0, c)
}

// give puts copy b, which nothing reads any more, on the free list, unless
// that holds windowFreeBytes already.
func (w *spoolWindow) give(b []byte) {
	c := cap(b)
	if c == 0 || c%windowStep != 0 || w.freeBytes+c > windowFreeBytes {
		return
	}
	k := windowClass(c)
	if k >= len(w.free) {
		w.free = append(w.free, make([][][]byte, k+1-len(w.free))...)
	}
	w.free[k] = append(w.free[k], b[:0])
	w.freeBytes += c
}

// count notes that open cursors are not done; past openBytesWithin of
// their chunks' room the walk reads through copies from then on.
func (w *spoolWindow) count(open int, chunkBytes uint64) {
	if w.many {
		return
	}
	limit := w.openBytes
	if limit == 0 {
		limit = openBytesWithin(spoolRoomShare())
	}
	w.many = uint64(open)*chunkBytes > limit
}

// noteSlot notes that a chunk was found in slot; s.mu is held.
func (s *spool) noteSlot(slot uint64) {
	if slot >= s.win.slotHi.Load() {
		s.win.slotHi.Store(slot + 1)
	}
}

// touched notes a look at a chunk of the spool while reading through
// copies, and gives back the pages of every chunk found, every
// windowSweep looks. Nothing of the walk's reads the mapping past the
// look: the cursors read their copies, and a cursor reading in place or
// the drain faults its page back in.
func (s *spool) touched() {
	every := s.win.sweepEvery
	if every == 0 {
		every = sweepLooks(spoolRoomShare())
	}
	if s.win.looks++; s.win.looks < every {
		return
	}
	s.win.looks = 0
	if hi := s.win.slotHi.Load(); hi > 0 {
		syscall.Madvise(s.data[s.chunksOff:s.chunksOff+hi*s.chunkBytes], syscall.MADV_DONTNEED)
	}
}

// openWindow makes the cursor read its chunk, which it reads from the
// spool in place (recs is chunkRecs), through a copy of its records up to
// end.
func (c *cursor) openWindow() {
	c.win = append(c.s.win.take(c.end), c.recs[:c.end]...)
	c.recs = c.win
	c.s.touched()
}

// usedNow returns the committed bytes of the chunk the cursor reads from
// the spool, a look at the spool.
func (c *cursor) usedNow() uint64 {
	end, _ := c.s.used(c.cur.slot)
	if c.s.win.many {
		c.s.touched()
	}
	return end
}

// extend notes that the records of the chunk the cursor reads from the
// spool are committed up to end, past c.end; through a copy, it copies
// them (the caller counted the look that read end).
func (c *cursor) extend(end uint64) {
	if c.win != nil {
		spool := c.s.chunkRecs(c.cur.slot)
		if uint64(cap(c.win)) < end {
			old := c.win
			c.win = append(c.s.win.take(end), old...)
			c.s.win.give(old)
		}
		c.win = append(c.win, spool[len(c.win):end]...)
		c.recs = c.win
	}
	c.end = end
}

// closeWindow gives the cursor's copy, if it has one, to the free list:
// the cursor is done with its chunk.
func (c *cursor) closeWindow() {
	if c.win != nil {
		c.s.win.give(c.win)
		c.win = nil
	}
}

// windowCap is the capacity of a copy of n bytes of records: n rounded up
// to windowStep, room for the few records a goroutine commits between two
// looks without a copy each.
func windowCap(n uint64) int {
	return int((n + windowStep - 1) &^ (windowStep - 1))
}
