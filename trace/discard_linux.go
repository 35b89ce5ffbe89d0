// This file gives Linux back the pages of the event table that
// compaction emptied. (The table no longer asks for transparent huge
// pages: measured whole-process, their faults cost seer record more system
// time than 4 KiB ones did, and when free memory is fragmented each waits
// for the kernel to compact it; bench/RESULTS.md.)

package trace

import (
	"syscall"
	"unsafe"
)

// discards says that discard gives pages back (Trace.Park needs it).
const discards = true

// discard gives the kernel back the whole pages inside the n bytes at p
// (madvise MADV_DONTNEED) and reports whether it did: they read as zeros
// from then on, and take no memory until written. The caller must hold
// Go memory at p that holds no pointers and that nothing reads or writes
// again; the runtime zeroes a span it reuses, which touches the pages
// anew, so the memory stays Go's to hand out.
func discard(p unsafe.Pointer, n uintptr) bool {
	return madvisePages(p, n, 4 /* MADV_DONTNEED */) == 0
}

// madvisePages gives the kernel advice about the whole pages inside the
// n bytes at p, and returns its error (0 when there are none).
func madvisePages(p unsafe.Pointer, n, advice uintptr) syscall.Errno {
	lo, hi := wholePages(p, n)
	if hi <= lo {
		return 0
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, advice)
	return errno
}
