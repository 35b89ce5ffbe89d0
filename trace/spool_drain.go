// This file implements draining the spool while its test runs: the
// finished chunks of each goroutine are copied out of the spool as soon as
// they are found, ahead of the conversion, and their slots go back to the
// recorder (record/runtime/recorder.c's "Recycling"), so that the test
// writes its new records to pages already in memory rather than to fresh
// pages of the file, which the kernel must find and zero first.

package trace

import (
	"sync"
	"sync/atomic"
	"time"
)

// A chunkRef is a goroutine's chunk as the walk reads it: in its slot of
// the spool, or copied out by the drain.
type chunkRef struct {
	slot  uint64
	state atomic.Uint32 // refInSpool, refReading or refCopied
	buf   []byte        // its records, once copied (set before state)
}

const (
	refInSpool = iota // neither read nor copied yet
	refReading        // the walk reads it from the spool: not copied
	refCopied         // copied out: the walk reads buf
)

// maxDrained bounds the bytes of chunks copied out and not yet read by the
// walk: past it, chunks stay in the spool until the walk reads them (a
// test that writes faster than it is converted keeps its backlog in the
// spool, not in seer's memory).
const maxDrained = 64 << 20

// drainWait is how long the drain sleeps between looks at the spool, the
// first while new chunks keep coming, the second when none did.
// A test's burst of records (a TLS handshake) lasts milliseconds: slots
// given back after it are too late for it.
const drainWait, drainIdleWait = 500 * time.Microsecond, 2 * time.Millisecond

var chunkBufs = sync.Pool{New: func() any { return []byte(nil) }}

// drain copies out, until stop is closed or the test process is gone,
// the goroutine chunks that a later chunk of the same goroutine shows
// finished, and gives their slots back. It runs at normal priority: a
// copy costs less than the fresh pages it spares the test.
func (s *spool) drain(stop <-chan struct{}) {
	wait := drainWait
	for {
		s.mu.Lock()
		s.discoverLocked(false)
		todo := s.finished
		s.finished = nil
		s.mu.Unlock()
		for _, r := range todo {
			s.copyOut(r)
		}
		if len(todo) == 0 {
			wait = min(2*wait, drainIdleWait)
		} else {
			wait = drainWait
		}
		select {
		case <-stop:
			return
		case <-s.ended:
			return
		case <-time.After(wait):
		}
	}
}

// copyOut copies the finished chunk r out of the spool, unless the walk
// has begun reading it, and gives its slot back.
func (s *spool) copyOut(r *chunkRef) {
	if r.state.Load() != refInSpool || s.drained.Load() >= maxDrained {
		return
	}
	used, _ := s.used(r.slot)
	buf := append(chunkBufs.Get().([]byte)[:0], s.records(r.slot, 0, used)...)
	r.buf = buf
	if !r.state.CompareAndSwap(refInSpool, refCopied) {
		return // the walk took it first, and reads the spool
	}
	s.drained.Add(int64(len(buf)))
	s.giveBack(r.slot)
}

// doneWith notes that the walk has read every record of r.
func (s *spool) doneWith(r *chunkRef) {
	if r.state.Load() == refCopied {
		s.drained.Add(-int64(len(r.buf)))
		chunkBufs.Put(r.buf[:0])
		r.buf = nil
		s.read++
		return
	}
	s.release(r.slot)
}
