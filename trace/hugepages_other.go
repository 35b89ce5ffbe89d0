//go:build !linux

package trace

import "unsafe"

// hugeAdvise does nothing where there are no transparent huge pages.
func hugeAdvise(p unsafe.Pointer, n uintptr) {}
