// This file implements rank sets: a subset of the events of a trace in
// which each member has a dense number (its rank), kept as a bit per event
// and a count per 64 events, so that a table over the members costs what
// the members do rather than an entry per event.

package predict

import "math/bits"

type rankSet struct {
	bits bitset
	rank []int32 // per word: members before it
	n    int     // members
}

// newRankSet returns the members i < n for which has(i).
func newRankSet(n int, has func(i int) bool) rankSet {
	r := rankSet{bits: newBitset(n)}
	for i := 0; i < n; i++ {
		if has(i) {
			r.bits.set(int32(i))
		}
	}
	r.rank = make([]int32, len(r.bits))
	for w, x := range r.bits {
		r.rank[w] = int32(r.n)
		r.n += bits.OnesCount64(x)
	}
	return r
}

// index returns the rank of i, or -1 if i is not a member.
func (r rankSet) index(i int32) int32 {
	w := r.bits[i>>6]
	b := uint64(1) << (uint(i) & 63)
	if w&b == 0 {
		return -1
	}
	return r.rank[i>>6] + int32(bits.OnesCount64(w&(b-1)))
}
