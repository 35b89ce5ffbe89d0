// This file advises Linux on the event table's pages: transparent huge
// pages while the table fills, and the pages that compaction emptied
// given back.

package trace

import (
	"syscall"
	"unsafe"
)

// hugeAdvise asks the kernel to back the whole 2 MiB pages inside the n
// bytes at p with transparent huge pages (madvise MADV_HUGEPAGE; a no-op
// where THP is off). The event table of a large run is hundreds of
// megabytes, which it fills front to back: in 4 KiB pages that is one
// page fault per 128 events, and the faults were a sixth of the
// conversion's time (a fault costs microseconds in a virtual machine).
// Go's heap does not ask for huge pages itself. The memory stays Go's:
// the advice changes how it is backed, never what it holds.
func hugeAdvise(p unsafe.Pointer, n uintptr) {
	const huge = 2 << 20
	if n < 2*huge {
		return
	}
	lo := (uintptr(p) + huge - 1) &^ (huge - 1)
	hi := (uintptr(p) + n) &^ (huge - 1)
	if hi <= lo {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, 14 /* MADV_HUGEPAGE */)
}

// discard gives the kernel back the whole pages inside the n bytes at p
// (madvise MADV_DONTNEED) and reports whether it did: they read as zeros
// from then on, and take no memory until written. The caller must hold
// Go memory at p that holds no pointers and that nothing reads or writes
// again; the runtime zeroes a span it reuses, which touches the pages
// anew, so the memory stays Go's to hand out.
func discard(p unsafe.Pointer, n uintptr) bool {
	page := uintptr(syscall.Getpagesize())
	lo := (uintptr(p) + page - 1) &^ (page - 1)
	hi := (uintptr(p) + n) &^ (page - 1)
	if hi <= lo {
		return true
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, 4 /* MADV_DONTNEED */)
	return errno == 0
}
