//go:build !linux

package trace

import "unsafe"

// hugeAdvise does nothing where there are no transparent huge pages.
func hugeAdvise(p unsafe.Pointer, n uintptr) {}

// discard reports false: pages are given back by copying (shrinkEvents).
func discard(p unsafe.Pointer, n uintptr) bool { return false }
