// This file implements the dense form of a clock base (clock_vc.go's
// frozen): a base made from a dense mirror (flattenDense) that holds more
// than half of all goroutines is kept as the mirror's copy, an int32 a
// goroutine, rather than as a sorted list of (goroutine, value) entries
// of 8 bytes each. When a thousand goroutines all talk to all (the
// channel stress suite), a must-happen-before pass makes many bases that
// hold most goroutines and reads their entries at joins into a mirror:
// reading them from memory, not the compare, was what raiseDense cost
// (bench/RESULTS.md, "the must-happen-before pass profiled again", for
// the figures). Dense, such a base is 4 bytes a goroutine, read in
// order beside the mirror it raises (Mattern's dense vector clock, as the
// mirrors already are), and it is made by one copy of the mirror.
//
// Every reader of a base goes through the methods here: len (the
// components it holds, the same count as the sparse form's, so that every
// decision that weighs a base's size is the same), get, keepAbove,
// raiseInto, maxInto and the merges of allTo. A dense base keeps its
// int32s in the storage of an entry list (two a centry, the last one
// padding when the goroutines are odd), so that the arena
// (clock_arena.go) serves and sweeps both forms alike, and frozen grows
// by no more than its count of non-zero components (n, in what was
// padding): the readers of sorted bases test n and nothing else.

package predict

import (
	"slices"
	"sync/atomic"
	"unsafe"
)

// denseBases lets flattenDense make dense bases; tests turn it off to
// compare the pass's histories with and without them.
var denseBases = true

// denseBasesMade counts, for tests, the dense bases made since the
// process started (atomic: an analysis runs its passes on two goroutines).
var denseBasesMade atomic.Int64

// dense returns a dense base's components, indexed by goroutine (nil
// for a sorted base): its entries' storage read as int32s.
func (f *frozen) dense() []int32 {
	if f.n == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(f.ents))), 2*len(f.ents))
}

// len returns the number of components base f holds: its entries, or the
// non-zero components of a dense base.
func (f *frozen) len() int {
	if f.n > 0 {
		return int(f.n)
	}
	return len(f.ents)
}

// get returns component g of base f.
func (f *frozen) get(g int32) int32 {
	if f.n > 0 {
		if dn := f.dense(); int(g) < len(dn) {
			return dn[g]
		}
		return 0
	}
	return lookup(f.ents, g)
}

// keepAbove appends to out the entries of sorted cand that exceed base
// f's component (keepAbove of the sparse form). out may be cand[:0].
func (f *frozen) keepAbove(out, cand []centry) []centry {
	if f.n == 0 {
		return keepAbove(out, cand, f.ents)
	}
	dn := f.dense()
	for _, e := range cand {
		if int(e.g) < len(dn) && dn[e.g] >= e.v {
			continue
		}
		out = append(out, e)
	}
	return out
}

// raiseInto raises d to base f, appending to out each component that
// rose, in goroutine order (raiseDense of the sparse form). A dense base
// is read in order beside d, which covers every goroutine of the pass
// (a dense base's goroutines but for its padding).
func (f *frozen) raiseInto(out []centry, d []int32) []centry {
	if f.n == 0 {
		return raiseDense(out, d, f.ents)
	}
	b := f.dense()
	b = b[:min(len(b), len(d))]
	d = d[:len(b)]
	// Eight components at a time: d[g]-b[g] is negative (components
	// count events: no overflow) for each that rises, so a block where
	// none does costs one test rather than eight hard-to-predict
	// branches.
	i := 0
	for ; i+8 <= len(b); i += 8 {
		bb, dd := b[i:i+8:i+8], d[i:i+8:i+8]
		if (dd[0]-bb[0])|(dd[1]-bb[1])|(dd[2]-bb[2])|(dd[3]-bb[3])|(dd[4]-bb[4])|(dd[5]-bb[5])|(dd[6]-bb[6])|(dd[7]-bb[7]) >= 0 {
			continue
		}
		// Some rise: each is written, and kept where it rose, with no
		// branch (the rises of a block are as likely as not).
		n := len(out)
		out = slices.Grow(out, 8)[:n+8]
		o := out[n : n+8 : n+8]
		k := 0
		for j, v := range bb {
			x := dd[j]
			o[k&7] = centry{int32(i + j), v}
			k += int(uint32(x-v) >> 31)
			dd[j] = max(x, v)
		}
		out = out[:n+k]
	}
	for ; i < len(b); i++ {
		if v := b[i]; v > d[i] {
			d[i] = v
			out = append(out, centry{int32(i), v})
		}
	}
	return out
}

// maxInto raises d to base f: d[k] becomes max(d[k], f.get(k)).
func (f *frozen) maxInto(d []int32) {
	if f.n == 0 {
		for _, e := range f.ents {
			d[e.g] = max(d[e.g], e.v)
		}
		return
	}
	b := f.dense()
	b = b[:min(len(b), len(d))]
	for g, v := range b {
		d[g] = max(d[g], v)
	}
}

// mergeDenseTo is merge3To for a dense first list dn (a dense base's):
// it appends to out, sorted, one entry for every goroutine that dn holds
// non-zero or that b or c lists, with the largest value of the three.
// out must not overlap b or c.
func mergeDenseTo(out []centry, dn []int32, b, c []centry) []centry {
	for g, v := range dn {
		g := int32(g)
		has := v != 0
		if len(b) > 0 && b[0].g == g {
			v, b, has = max(v, b[0].v), b[1:], true
		}
		if len(c) > 0 && c[0].g == g {
			v, c, has = max(v, c[0].v), c[1:], true
		}
		if has {
			out = append(out, centry{g, v})
		}
	}
	return mergeMaxTo(out, b, c) // the goroutines past dn's
}

// denseBase returns a base holding mirror d, whose non-zero components
// number n (more than half), as a copy of d in the storage of an entry
// list made in arena a if it is not nil: prev and the tag are set by the
// caller.
func denseBase(a *baseArena, d []int32, n int) *frozen {
	half := (len(d) + 1) / 2
	var ents []centry
	if a != nil {
		ents = a.alloc(half)[:half]
	} else {
		ents = make([]centry, half)
	}
	f := &frozen{ents: ents, n: int32(n)}
	dn := f.dense()
	copy(dn, d)
	if len(dn) > len(d) {
		dn[len(d)] = 0 // padding, of storage a swept base may have left
	}
	denseBasesMade.Add(1)
	return f
}

// nonZero returns the number of non-zero components of mirror d (all
// non-negative: they count events).
func nonZero(d []int32) int {
	n := 0
	for _, v := range d {
		n += int(uint32(-v) >> 31)
	}
	return n
}
