// This file is the Linux side of prefault.go: madvise's
// MADV_POPULATE_WRITE (Linux 5.14).

package trace

import (
	"syscall"
	"unsafe"
)

// prefaults says that populate may fault pages in.
const prefaults = true

// populate faults in, writable, the whole pages inside the n bytes at p,
// without reading or writing their contents, and reports whether the
// kernel supports it. The caller must hold Go memory at p that holds no
// pointers.
func populate(p unsafe.Pointer, n uintptr) bool {
	page := uintptr(syscall.Getpagesize())
	lo := (uintptr(p) + page - 1) &^ (page - 1)
	hi := (uintptr(p) + n) &^ (page - 1)
	if hi <= lo {
		return true
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvPopulateWrite)
	return errno != syscall.EINVAL
}
