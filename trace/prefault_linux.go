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
	return madvisePages(p, n, madvPopulateWrite) != syscall.EINVAL
}
