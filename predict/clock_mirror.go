// This file implements the dense mirrors of a vector-clock pass
// (clock_pass.go, clock_vc.go's joinDense): a goroutine's clock as an
// array indexed by goroutine, made once the clock holds a quarter of all
// goroutines.
//
// When thousands of short-lived goroutines each start from a parent's
// clock that already holds a quarter of all goroutines (pond's tasks), a
// mirror is made for nearly every one at its second join and dropped at
// its end, mostly from a clock with a middle layer (clock_layer.go).
// Made by merging base, layer and delta into a new list (vclock.each) in
// a new array each, the mirrors' allocation and its collection led the
// profile of `seer check` on pond in some recordings (bench/RESULTS.md,
// "pond: the dense mirrors").
// Here a mirror is written from the clock's lists in turn, with no
// merged copy (each list's entries only raise the one before: a layer's
// exceed the base's and a delta's both, so a max per entry gives the
// clock's components), and the array of a goroutine that ended is
// cleared and kept for the next mirror (a free list, as an allocator's:
// Wilson, Johnstone, Neely and Boles, "Dynamic storage allocation: a
// survey and critical review", IWMM 1995, section 3.6, segregated free
// lists of one size).

package predict

import "sync/atomic"

// spareMirrors bounds the cleared arrays a pass keeps for its next
// mirrors: goroutines end and start one after another, so a few serve
// them, and the pass's budget (denseBudget) counts only the live ones.
const spareMirrors = 4

// mirrorsLayered and mirrorsReused count, for tests, the mirrors made from
// a clock with a middle layer and the mirrors made in a spare array
// (atomic: an analysis runs its passes on two goroutines).
var mirrorsLayered, mirrorsReused atomic.Int64

// denseTo raises d to c's components: d[k] becomes max(d[k], c.get(k))
// for every k. d must have an entry for each of c's goroutines.
func (c vclock) denseTo(d []int32) {
	if c.base != nil {
		c.base.maxInto(d) // clock_base_dense.go
	}
	if c.mid != nil {
		mirrorsLayered.Add(1)
		for _, e := range c.mid.ents {
			d[e.g] = max(d[e.g], e.v)
		}
	}
	for _, e := range c.delta {
		d[e.g] = max(d[e.g], e.v)
	}
}

// mirror returns a dense mirror of c (d[k] is c.get(k)), in a spare
// array if the pass has one.
func (ps *pass) mirror(c vclock) []int32 {
	var d []int32
	if n := len(ps.spare); n > 0 {
		d, ps.spare = ps.spare[n-1], ps.spare[:n-1]
		mirrorsReused.Add(1)
	} else {
		d = make([]int32, ps.ng)
	}
	c.denseTo(d)
	return d
}

// dropMirror drops goroutine g's mirror, if it has one, keeping its
// array, cleared, for a later mirror while the pass has few spare.
func (ps *pass) dropMirror(g int32) {
	d := ps.dn[g]
	if d == nil {
		return
	}
	ps.dn[g] = nil
	ps.dense += ps.ng
	if len(ps.spare) < spareMirrors {
		clear(d)
		ps.spare = append(ps.spare, d)
	}
}
