//go:build !linux

// This file is discard where Linux's madvise is not.

package trace

import "unsafe"

// discard reports false: pages are given back by copying (shrinkEvents).
func discard(p unsafe.Pointer, n uintptr) bool { return false }
