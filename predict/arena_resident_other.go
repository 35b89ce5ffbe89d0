//go:build !linux

// This file is resident (arena_resident.go) where the system does not
// say: the arena maps nothing there (clock_rises_file_other.go).

package predict

// resident returns -1: not known.
func resident() int64 { return -1 }
