// This file implements the numbering of a clock pass's synchronisation
// addresses (clock_pass.go): each address that an event of the pass reads
// or writes a clock of (ctp.varOf in the pass's mode) gets a small
// number, once, before the first event. The pass then keeps its
// variables in an array by that number, and its set-up (deadAfter,
// clock_drop.go; idleMerges, clock_fold.go) scans arrays, where each
// of the three looked the address up in a map of its own at every such
// event: on pond's trace (issue 31, item 5) those lookups were about a
// tenth of the SHB layer's CPU. What the pass computes is the same
// (TestPassVarsNumbering; the differential tests of the layers).

package predict

import "math/bits"

// passVars numbers the addresses of a pass's events.
type passVars struct {
	// id.at(i) is 1 + the number of the address event i uses (varOf), 0
	// if it uses none.
	id sparseVals
	n  int // the addresses
}

// numberVars numbers the addresses of c's events in a pass in mode, in
// the order of their first use. The events that use one are marked
// first, so that their numbers take an array of their count, not the
// regrowth of one.
func numberVars(c *ctp, mode *clockMode) passVars {
	pv := passVars{id: newSparseVals(len(c.ev))}
	for i := range c.ev {
		if _, ok := c.varOf(i, mode); ok {
			pv.id.set.bits.set(int32(i))
		}
	}
	pv.id.set.ranks()
	pv.id.vals = make([]int32, pv.id.set.n)
	num := make(map[uint64]int32)
	pv.each(false, func(i int, r int32) {
		a, _ := c.varOf(i, mode)
		k, seen := num[a]
		if !seen {
			k = int32(len(num))
			num[a] = k
		}
		pv.id.vals[r] = k + 1
	})
	pv.n = len(num)
	return pv
}

// of returns the number of the address event i uses; i must use one.
func (pv *passVars) of(i int) int32 { return pv.id.at(int32(i)) - 1 }

// each calls f with every event that uses an address, in event order,
// and its rank among them (the index of its number in id.vals);
// backward, in reverse order.
func (pv *passVars) each(backward bool, f func(i int, r int32)) {
	bs := pv.id.set.bits
	if !backward {
		r := int32(0)
		for w, x := range bs {
			for ; x != 0; x &= x - 1 {
				f(w<<6+bits.TrailingZeros64(x), r)
				r++
			}
		}
		return
	}
	r := int32(pv.id.set.n)
	for w := len(bs) - 1; w >= 0; w-- {
		for x := bs[w]; x != 0; x &^= 1 << (63 - bits.LeadingZeros64(x)) {
			r--
			f(w<<6+63-bits.LeadingZeros64(x), r)
		}
	}
}

// at returns the number of the address of the event of rank r (each).
func (pv *passVars) at(r int32) int32 { return pv.id.vals[r] - 1 }
