//go:build !linux

// This file is discard where Linux's madvise is not.

package trace

import "unsafe"

// discards says that discard gives no pages back: Trace.Park parks
// nothing.
const discards = false

// discard reports false: pages are given back by copying (shrinkEvents).
func discard(p unsafe.Pointer, n uintptr) bool { return false }
