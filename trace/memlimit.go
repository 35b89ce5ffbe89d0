// This file implements seer's Go memory limit net of the room past a
// converted trace's events (shrinkEvents): the event table is made with
// room for every event the run recorded, compaction leaves fewer, and the
// pages past them are given back to the kernel (discard), yet the runtime
// counts the array whole. Under a limit meant for the process's memory
// the collector then worked as if the heap were that much fuller, and
// seer check's analysis collected more often than seer predict's on the
// same run (bench/RESULTS.md, branches mhbtc and park).
// SetMemoryLimit sets the limit given plus those bytes, for as long as
// their tables are held.
//
// A parked tail or parked values (Trace.Park, Trace.ParkValues) are not
// counted: they are given back so that what the limit does not see (the
// must-happen-before history's mapped file) has room, and counting them
// would let the heap take that room back (pond passed its -maxmem so,
// bench/RESULTS.md).

package trace

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"
)

// memLimit is the limit SetMemoryLimit was given (0: none) and the bytes
// of room given back inside tables still held.
var memLimit struct {
	mu    sync.Mutex
	limit int64
	given int64
	spool atomic.Int64 // SetSpoolRoom's room (openBytesWithin)
	// mapped counts the spools mapped at once (tryOpenSpool to close):
	// seer check -p n converts up to n runs together, which share the room.
	mapped atomic.Int64
}

// spoolRoomShare is a spool's share of SetSpoolRoom's room: the room over
// the spools mapped at once (0: no room set).
func spoolRoomShare() int64 {
	room := memLimit.spool.Load()
	if room <= 0 {
		return 0
	}
	return max(room/max(memLimit.mapped.Load(), 1), 1)
}

// SetSpoolRoom sets the bytes of the process's memory left outside the Go
// memory limit for the spools' pages being read (0: none set): past
// what they could map (spool_window.go's openBytesWithin), the
// conversion reads the goroutines' open chunks through copies, which the
// limit counts, and gives the mapping's pages back as it goes. Spools
// mapped at once (seer check -p) share the room (spoolRoomShare).
func SetSpoolRoom(room int64) {
	memLimit.spool.Store(max(room, 0))
}

// SetMemoryLimit sets the Go memory limit (debug.SetMemoryLimit) to limit
// plus the bytes of the room past the events of converted traces still
// held, whose pages were given back to the kernel, and moves it as that
// count changes. A limit of 0 or less stops that
// (the runtime's limit is left as it is).
func SetMemoryLimit(limit int64) {
	memLimit.mu.Lock()
	defer memLimit.mu.Unlock()
	memLimit.limit = max(limit, 0)
	applyMemoryLimit()
}

// MemoryLimit returns the limit SetMemoryLimit was last given, before
// the room given back is added (0: none set).
func MemoryLimit() int64 {
	memLimit.mu.Lock()
	defer memLimit.mu.Unlock()
	return memLimit.limit
}

// givenBack adds n bytes (less than zero: takes them off) to the count of
// room given back inside tables still held.
func givenBack(n int64) {
	if n == 0 {
		return
	}
	memLimit.mu.Lock()
	defer memLimit.mu.Unlock()
	memLimit.given += n
	applyMemoryLimit()
}

// givenBackUntilFreed counts the whole pages inside the n bytes at p,
// given back (discard), until the collector frees the allocation p points
// into (a cleanup takes them off).
func givenBackUntilFreed[T any](p *T, n uintptr) {
	if b := pagesWithin(unsafe.Pointer(p), n); b > 0 {
		givenBack(b)
		runtime.AddCleanup(p, givenBack, -b)
	}
}

// giveBack gives the kernel back the whole pages of room, elements of a
// Go array that hold no pointers and that nothing reads or writes again
// (discard), counted given back until the array is freed
// (givenBackUntilFreed), and reports whether it did (true for no room).
func giveBack[T any](room []T) bool {
	if len(room) == 0 {
		return true
	}
	n := uintptr(len(room)) * unsafe.Sizeof(room[0])
	if !discard(unsafe.Pointer(unsafe.SliceData(room)), n) {
		return false
	}
	givenBackUntilFreed(&room[0], n)
	return true
}

// pagesWithin returns the bytes of the whole pages inside the n bytes at
// p: those that discard gives back.
func pagesWithin(p unsafe.Pointer, n uintptr) int64 {
	lo, hi := wholePages(p, n)
	if hi <= lo {
		return 0
	}
	return int64(hi - lo)
}

// applyMemoryLimit sets the runtime's limit; memLimit.mu is held.
func applyMemoryLimit() {
	if memLimit.limit == 0 {
		return
	}
	l := memLimit.limit
	if g := max(memLimit.given, 0); l > math.MaxInt64-g {
		l = math.MaxInt64
	} else {
		l += g
	}
	debug.SetMemoryLimit(l)
}
