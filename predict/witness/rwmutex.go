// This file implements the RWMutex rule of the blocking claim
// (blocking.go): sync.RWMutex prefers writers, so a read lock waits
// behind a writer that waits.
//
// The sync package's RWMutex doc: "If any goroutine calls Lock while the
// lock is already held by one or more readers, concurrent calls to RLock
// will block until the writer has acquired (and released) the lock".
// (rwmutex.go: Lock takes rw.w, then subtracts rwmutexMaxReaders from
// readerCount and waits for the readers it saw; RLock, seeing the count
// negative, waits on readerSem until Unlock.) So at the end of a
// schedule where some goroutine holds lock l and another goroutine's
// next event is an exclusive Lock of l (not a TryLock), the schedule
// goes on with that Lock's call, which waits and announces the writer;
// a listed RLock of l by any other goroutine, its own read lock held or
// not (recursive read locking, which the doc prohibits for this
// reason), then waits too, for ever if every goroutine that could
// release l is itself waiting.

package witness

import "github.com/seer-tools/seer/trace"

// writerWaiting reports whether listed RLock i waits behind a writer:
// another listed goroutine's next event is an exclusive Lock of i's lock
// that waits, some goroutine other than the writer holding the lock in
// either mode at the end of the schedule. (That Lock is listed, so it is
// checked on its own too: no TryLock, and waiting.)
func (k *Checker) writerWaiting(i int32, next func(trace.GoID) int32, listed map[trace.GoID]int32) bool {
	t := k.t
	e := &t.Events[i]
	if e.Op != trace.OpRLock {
		return false
	}
	for h, j := range listed {
		w := &t.Events[j]
		if h == e.G || w.Op != trace.OpLock || w.Obj != e.Obj {
			continue
		}
		for g := 1; g < k.ng; g++ {
			if trace.GoID(g) == h {
				continue
			}
			nx := next(trace.GoID(g))
			if nx < 0 {
				nx = int32(k.n)
			}
			if k.holds(trace.GoID(g), nx, e.Obj, false) {
				return true
			}
		}
	}
	return false
}

// sameLockWaits reports whether two listed events of a Deadlock claim
// acquire one lock: no lock-order cycle does (each of its goroutines
// waits for the lock the next one holds), so the claim is a blocking
// one (a read lock behind a waiting writer).
func sameLockWaits(t *trace.Trace, events []int) bool {
	seen := make(map[trace.ObjID]bool, len(events))
	for _, i := range events {
		if i < 0 || i >= len(t.Events) {
			continue
		}
		o := t.Events[i].Obj
		if seen[o] {
			return true
		}
		seen[o] = true
	}
	return false
}
