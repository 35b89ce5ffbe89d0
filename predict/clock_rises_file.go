// This file implements the file-backed storage of a must-happen-before
// history (issue 31, item 2: seer's process within -maxmem). The rises
// and keys of the history (clock_rises.go's riseLog: p16, ents, wide,
// k16, keys) are carved out of a temporary file mapped shared into memory
// (riseArena; the file is clock_spill.go's, unlinked as soon as it is
// made), rather than out of the heap. The history is immutable once
// indexed, and read from both the main goroutine and the side layers',
// so no reader has to know where it is: as the index is made, when a
// history cut by its budget is done (indexPrefix), and when the causal
// cone is built (engine.buildCone), the arena
// gives its pages back to the kernel (drop), and a reader faults back in,
// from the file, only the pages it reads. On issue 31's pond trace the history was 334 MB of the
// analysis's peak, beside the cone's, and the misuse layer and the
// witness encoder then read some 330 of its clock states
// (bench/RESULTS.md, "pond's peak: who keeps the two histories alive at
// once").
//
// The arena lives as long as the Analyze call that made it (riseArena.free
// unmaps it when every goroutine of that call has returned), and only the
// must-happen-before pass and the causal cone's pass (engine.buildCone)
// of a trace of arenaMinEvents events or more use one: elsewhere a
// history is heap memory as before. The cone's history has an arena of
// its own (Options.coneArena): an arena's alloc is for one goroutine at a
// time, and the cone's pass runs on whichever of Analyze's goroutines
// asks for it first (needCone), with nothing ordering it after the
// writers of the must-happen-before arena (history_cut.go's index of a
// cut history). In the heap, the cone's history was live beside the next
// run's conversion under seer check (bench/RESULTS.md, "seer's own
// process against -maxmem: who holds the bytes past it").

package predict

import (
	"sync/atomic"
	"unsafe"
)

// arenaMinEvents is the fewest events of a trace whose must-happen-before
// history is kept in a riseArena; tests lower it.
var arenaMinEvents = 1 << 18

// arenaChunk is the size of the arena's mappings: allocations larger
// than a quarter of it get one of their own.
const arenaChunk = 32 << 20

// riseArena is file-backed memory for histories (see the file's
// comment). A nil *riseArena allocates from the heap.
type riseArena struct {
	sf      spillFile
	size    int64    // the file's size
	maps    [][]byte // the mappings, in the file's order
	cur     []byte   // what is left of the last chunk
	dropped atomic.Bool
	failed  bool // a mapping failed: the rest is heap memory
	// since counts the bytes made or read back since the pages were
	// last given back (clock_rises_log_file.go's touched).
	since int
}

// alloc returns n bytes, 8-aligned, zeroed (fresh pages of the file),
// or nil if the arena cannot map them.
func (a *riseArena) alloc(n int) []byte {
	if a == nil || a.failed || n == 0 {
		return nil
	}
	n = (n + 7) &^ 7
	if n > len(a.cur) {
		size := arenaChunk
		if n > arenaChunk/4 {
			size = (n + 4095) &^ 4095
		}
		// What the index wrote so far is read only later, if at all:
		// its pages go back before it takes more (drop is safe
		// whenever: the data stays in the file).
		for _, m := range a.maps {
			dropPages(m)
		}
		m, err := a.mapMore(size)
		if err != nil {
			a.failed = true
			return nil
		}
		if size != arenaChunk {
			a.touched(n)
			return m[:n:n]
		}
		a.cur = m
	}
	b := a.cur[:n:n]
	a.cur = a.cur[n:]
	a.touched(n)
	return b
}

// arenaSlice returns n zero values of T from arena a, or from the heap
// (a nil arena, or one that cannot map them). T holds no pointers.
func arenaSlice[T uint16 | uint32 | int32 | pv](a *riseArena, n int) []T {
	var z T
	if b := a.alloc(n * int(unsafe.Sizeof(z))); b != nil {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	return make([]T, n)
}

// drop gives the arena's pages back to the kernel: they stay in the file,
// and a read faults them back in. It is safe while others read.
func (a *riseArena) drop() {
	if a == nil {
		return
	}
	a.dropped.Store(true)
	for _, m := range a.maps {
		dropPages(m)
	}
}

// freeArenas frees the arenas of o's histories (Analyze's, once every
// goroutine of the call has returned).
func (o *Options) freeArenas() {
	o.arena.free()
	o.coneArena.free()
}

// redrop drops the pages again if they were dropped once: what a reader
// faulted back in since.
func (a *riseArena) redrop() {
	if a != nil && a.dropped.Load() {
		a.drop()
	}
}
