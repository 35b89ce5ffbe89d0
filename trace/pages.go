// This file implements wholePages, the rounding shared by what gives pages
// back (discard), faults them in (populate), counts them (pagesWithin)
// and parks them (Parked.tails).

package trace

import (
	"syscall"
	"unsafe"
)

// wholePages returns the bounds [lo, hi) of the whole pages inside the n
// bytes at p; hi <= lo when there are none.
func wholePages(p unsafe.Pointer, n uintptr) (lo, hi uintptr) {
	page := uintptr(syscall.Getpagesize())
	return (uintptr(p) + page - 1) &^ (page - 1), (uintptr(p) + n) &^ (page - 1)
}
