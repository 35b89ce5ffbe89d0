// This file implements the batches in which merge's walk hands its
// decoded records to the allocation stage (spool.merge): the walker and
// its cursors write each record, entry and exit into the next slot of a
// batch themselves, rather than through callbacks, since the records of
// a spinning test number tens of millions (syncmap) and each callback
// was an indirect call or two per record (bench/RESULTS.md, "the spool
// walk's owned accesses").

package trace

import "sync/atomic"

// batchSize is how many records a batch holds. Each batch handed on may
// park and wake the stage after it (a futex hand-off), and after the run
// the converter, the slowest stage, waited on such hand-offs at 1024
// (bench/RESULTS.md, "the live conversion's progress"); at 4096 there
// are a quarter as many.
const batchSize = 4096

// batcher fills the batches: full ones go to items, and empty ones come
// back from free (or are made). Once quit is closed, quitting is set and
// nothing more is handed on.
type batcher struct {
	batch    *[batchSize]rawEvent
	n        int // the slots of batch written
	items    chan<- []rawEvent
	free     <-chan []rawEvent
	quit     <-chan struct{}
	quitting bool
	// sent counts the batches handed on; the consumer counts in consumed
	// those it is done with, in the order they were handed on, so that
	// the walk's pcArena uses their chunks again.
	sent     uint64
	consumed *atomic.Uint64
}

func newBatcher(items chan<- []rawEvent, free <-chan []rawEvent, quit <-chan struct{}) *batcher {
	return &batcher{batch: new([batchSize]rawEvent), items: items, free: free, quit: quit, consumed: new(atomic.Uint64)}
}

// slot returns the next slot of the batch, handing the batch on first if
// it is full.
func (b *batcher) slot() *rawEvent {
	if b.n == batchSize {
		b.flush()
	}
	b.n++
	return &b.batch[b.n-1]
}

// flush hands the batch on, if it holds any record, and takes an empty
// one; once quitting, the batch is written over. It is kept out of slot,
// which is inlined where records are written.
//
//go:noinline
func (b *batcher) flush() {
	n := b.n
	if n == 0 {
		return
	}
	b.n = 0
	if b.quitting {
		return
	}
	select {
	case b.items <- b.batch[:n]:
		b.sent++
	case <-b.quit:
		b.quitting = true
		return
	}
	select {
	case f := <-b.free:
		b.batch = (*[batchSize]rawEvent)(f[:batchSize])
	default:
		b.batch = new([batchSize]rawEvent)
	}
}

// enter and exit write a function entry or exit of goroutine gid. Only
// kind, gid, pc and step are read of them (merge), so the other fields of
// a reused slot are left as they are.
func (b *batcher) enter(gid uint32, pc uint64) {
	r := b.slot()
	r.kind, r.gid, r.pc, r.step = rEnter, gid, pc, false
}

func (b *batcher) exit(gid uint32) {
	r := b.slot()
	r.kind, r.gid, r.step = rExit, gid, false
}
