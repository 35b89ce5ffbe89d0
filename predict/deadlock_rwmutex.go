// This file implements the RWMutex shape of the channel-deadlock layer
// (deadlock_channel.go; issue 32, item 2): a recursive RLock with a
// writer waiting in between.
//
// sync.RWMutex prefers writers: "If any goroutine calls Lock while the
// lock is already held by one or more readers, concurrent calls to RLock
// will block until the writer has acquired (and released) the lock ...
// This prohibits recursive read locking" (the sync package's RWMutex
// doc; rwmutex.go: Lock takes rw.w, then subtracts rwmutexMaxReaders
// from readerCount, after which every RLock waits on readerSem). So
// goroutine S that holds l for reading (its RLock r1) and read-locks it
// again (r2), while goroutine W takes l for writing (a), hangs in the
// schedule that runs S up to r2 and W up to a: W's Lock waits for S's
// read lock and announces itself, and S's second RLock then waits for W.
// The run took W's section before r1 or after S's, so nothing hung.
//
// Candidates are the pairs (r2, a): r2 an RLock of l made while its
// goroutine holds l for reading, a another goroutine's exclusive Lock of
// l; must-happen-before filters them, and each is proved or dropped by
// blockingWitness (the closure, the extension of every other goroutine,
// and allBlocked, which counts such an RLock as waiting when a Lock of
// its lock is another goroutine's next event and some goroutine holds
// the lock: writerPending). The checker (package witness, blocking.go
// and rwmutex.go) re-checks the claim with the same rule, written from
// the RWMutex's specification.
//
// Contract: as blockingWitness's (deadlock_channel.go).

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// recursiveRLocks tries every recursive RLock against the exclusive
// Locks of its lock by other goroutines. Candidates count in the layer's
// row as the channel ones do.
func (l *chanLayer) recursiveRLocks() error {
	e, n := l.e, &l.n
	c := e.c
	// The RLocks made while their goroutine holds the lock for reading:
	// those of a lock that is no observed one but have no section of
	// their own (ctp_sections.go's depth).
	var inner []int32
	for i := range c.ev {
		ev := &c.ev[i]
		if ev.Op != trace.OpRLock || c.lockMode[i] != 0 || !c.nestedRead[ev.Obj] || c.observed[ev.Obj] || tryLock(e.t, int32(i)) {
			continue
		}
		inner = append(inner, int32(i))
	}
	if len(inner) == 0 {
		return nil
	}
	lg := e.lockGoroutines()
	var err error
	for _, r2 := range inner {
		if err = e.ctx.Err(); err != nil {
			return err
		}
		g, lk := int32(c.ev[r2].G), c.ev[r2].Obj
		writers := slices.Clone(lg[lk])
		slices.Sort(writers)
		for _, h := range writers {
			if h == g {
				continue
			}
			for _, sec := range c.cs[gl{h, lk}] {
				if n.closures >= maxBlockingTries {
					return nil
				}
				a := c.at(h, sec.acq)
				if sec.shared || tryLock(e.t, a) {
					continue
				}
				if err = l.tryPair(r2, a); err != nil { // deadlock_waitgroup.go
					return err
				}
			}
		}
	}
	return nil
}

// writerPending reports whether RLock i, one of waiting (the goroutines'
// next events at the end of cut), waits behind a writer: another
// goroutine's next event is an exclusive Lock of i's lock, and some
// goroutine (i's own among them) holds the lock at the end of cut, so
// that the Lock waits and, having announced itself, blocks every new
// reader.
func (e *engine) writerPending(cut []int32, waiting []int32, i int32) bool {
	c := e.c
	ev := &c.ev[i]
	if ev.Op != trace.OpRLock {
		return false
	}
	for _, j := range waiting {
		w := &c.ev[j]
		if j == i || w.G == ev.G || w.Op != trace.OpLock || w.Obj != ev.Obj || tryLock(e.t, j) {
			continue
		}
		if e.lockHeldAt(cut, ev.Obj, int32(w.G), false) {
			return true
		}
	}
	return false
}
