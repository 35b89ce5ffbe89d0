// This file implements the batches in which merge's walk hands its
// decoded records to the allocation stage (spool.merge): the walker and
// its cursors write each record, entry and exit into the next slot of a
// batch themselves, rather than through callbacks, since the records of
// a spinning test number tens of millions (syncmap: 28M records and 7.4M
// entries and exits) and each callback was an indirect call or two per
// record (bench/RESULTS.md, "the spool walk's owned accesses").

package trace

// batchSize is how many records a batch holds.
const batchSize = 1024

// batcher fills the batches: full ones go to items, and empty ones come
// back from free (or are made). Once quit is closed, quitting is set and
// nothing more is handed on.
type batcher struct {
	batch    []rawEvent
	items    chan<- []rawEvent
	free     <-chan []rawEvent
	quit     <-chan struct{}
	quitting bool
}

// slot returns the next slot of the batch, handing the batch on first if
// it is full.
func (b *batcher) slot() *rawEvent {
	if len(b.batch) == batchSize {
		b.flush()
	}
	b.batch = b.batch[:len(b.batch)+1]
	return &b.batch[len(b.batch)-1]
}

// flush hands the batch on and takes an empty one. It is kept out of
// slot, which is inlined where records are written.
//
//go:noinline
func (b *batcher) flush() {
	select {
	case b.items <- b.batch:
	case <-b.quit:
		b.quitting = true
	}
	select {
	case b.batch = <-b.free:
		b.batch = b.batch[:0]
	default:
		b.batch = make([]rawEvent, 0, batchSize)
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
