// Package bigslice implements the growth, extension and copy of large
// slices in steps between which the runtime can preempt the goroutine
// (Grow, Extend, Copy), and a sequence grown in chunks that is never
// copied (Chunks).
//
// A copy the size of a large slice is one runtime.memmove, which neither
// stops at a safe point nor can be stopped asynchronously: while it runs,
// the collector's stack scan and stop-the-world wait for it (runtime
// suspendG, preempt.go), and send the thread a preemption signal every few
// microseconds until it ends. The conversion and the analysis copy tables
// of hundreds of megabytes (the event table's growth, the spool walk's
// allocation records): the signals' delivery, and
// the collector's spinning, were a good part of seer's kernel time
// (bench/RESULTS.md, "seer's kernel time"). The runtime clears a large
// allocation the same way, in 256 KiB steps with a preemption check
// between them (runtime/malloc.go, memclrNoHeapPointersChunked).
package bigslice

import (
	"math/bits"
	"slices"
	"unsafe"
)

// stepBytes is how many bytes one step of Copy copies: the runtime's own
// chunk for clearing (memclrNoHeapPointersChunked).
const stepBytes = 256 << 10

// Copy copies min(len(dst), len(src)) elements from src to dst, as copy
// does, in steps of stepBytes, each a call that can be preempted at its
// entry, and returns the number copied. dst and src must not overlap, but
// for dst beginning at or before src (a shift down).
func Copy[E any](dst, src []E) int {
	n := min(len(dst), len(src))
	step := stepOf[E]()
	for i := 0; i < n; i += step {
		j := min(i+step, n)
		copyStep(dst[i:j], src[i:j])
	}
	return n
}

// stepOf returns how many elements of type E one step copies.
func stepOf[E any]() int {
	var e E
	return max(stepBytes/max(int(unsafe.Sizeof(e)), 1), 1)
}

// copyStep is one step of Copy. It is not inlined: its entry checks the
// stack bound, which the runtime sets to ask the goroutine to stop (a
// synchronous preemption point, runtime/stack.go's stackPreempt), so a
// stack scan or a stop-the-world waits at most one step.
//
//go:noinline
func copyStep[E any](dst, src []E) { copy(dst, src) }

// Grow returns s with room for n more elements, as slices.Grow does (its
// capacity grows as append's would, runtime/slice.go's nextslicecap), but
// a slice of over stepBytes is copied to its new array by Copy, and the
// new array's room is not cleared but where the runtime must (memory it
// had handed out before: it clears that in steps too). The room of a new
// array reads as zeros, as slices.Grow's does.
func Grow[S ~[]E, E any](s S, n int) S {
	if n < 0 {
		panic("bigslice.Grow: negative n")
	}
	if cap(s)-len(s) >= n {
		return s
	}
	if len(s) < stepOf[E]() {
		return slices.Grow(s, n)
	}
	t := make(S, len(s), nextCap(len(s)+n, cap(s)))
	Copy(t, s)
	return t
}

// Extend returns s with n more elements, zeros, as append(s, make(S,
// n)...) does, but grown by Grow, and the room it reuses cleared in steps.
func Extend[S ~[]E, E any](s S, n int) S {
	t := Grow(s, n)[:len(s)+n]
	// s's own room past its length, kept or copied by Grow (slices.Grow
	// copies up to the capacity), may hold old elements; the rest of a
	// new array is zero.
	r := t[len(s):min(cap(s), len(t))]
	step := stepOf[E]()
	for i := 0; i < len(r); i += step {
		clearStep(r[i:min(i+step, len(r))])
	}
	return t
}

// clearStep is one step of Extend's clear, not inlined as copyStep.
//
//go:noinline
func clearStep[E any](s []E) { clear(s) }

// nextCap is the capacity append gives a slice of capacity old that must
// hold need elements, before rounding to the allocator's size classes
// (runtime/slice.go, nextslicecap).
func nextCap(need, old int) int {
	if need > 2*old {
		return need
	}
	const threshold = 256
	if old < threshold {
		return 2 * old
	}
	c := old
	for c < need {
		// From 2x for small slices to 1.25x for large ones, smoothly.
		c += (c + 3*threshold) >> 2
	}
	return c
}

// Chunks is a sequence of elements held in chunks of a fixed power of two
// of them, up to stepBytes each, for a sequence whose final length is not
// known when it starts: Append never copies what it holds. A slice grown
// to n elements (Grow's quarter at a time, as append does past a few
// hundred) writes about five times n elements to memory it allocates,
// most of it fresh pages, each one a page fault, and leaves the old arrays
// as garbage; Chunks writes n, in memory it allocates once. The zero value
// is empty.
type Chunks[E any] struct {
	c     [][]E
	n     int
	shift uint // log2 of the elements a chunk holds
}

// Len returns the number of elements appended.
func (s *Chunks[E]) Len() int { return s.n }

// At returns the element at i, which must be below Len.
func (s *Chunks[E]) At(i int) *E {
	return &s.c[i>>s.shift][i&(1<<s.shift-1)]
}

// Append appends e.
func (s *Chunks[E]) Append(e E) {
	if s.n == len(s.c)<<s.shift {
		if s.c == nil {
			s.shift = uint(bits.Len(uint(stepOf[E]())) - 1)
		}
		s.c = append(s.c, make([]E, 1<<s.shift))
	}
	s.c[s.n>>s.shift][s.n&(1<<s.shift-1)] = e
	s.n++
}
