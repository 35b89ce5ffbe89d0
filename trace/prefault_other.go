//go:build !linux

// This file is prefault.go's populate where Linux's madvise is not.

package trace

import "unsafe"

// prefaults says that populate faults nothing in: no prefaulter runs.
const prefaults = false

// populate reports false: nothing is faulted in ahead.
func populate(p unsafe.Pointer, n uintptr) bool { return false }
