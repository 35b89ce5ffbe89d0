// This file implements rank sets: a subset of the events of a trace in
// which each member has a dense number (its rank), kept as a bit per event
// and a count per 64 events, so that a table over the members costs what
// the members do rather than an entry per event.

package predict

import (
	"math/bits"
	"slices"
)

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
	r.ranks()
	return r
}

// ranks counts the members before each word of bits, once they are set.
func (r *rankSet) ranks() {
	r.rank = make([]int32, len(r.bits))
	r.n = 0
	for w, x := range r.bits {
		r.rank[w] = int32(r.n)
		r.n += bits.OnesCount64(x)
	}
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

// sparseVals holds a value for some events of a trace and 0 for the
// others: the events with one are a rank set, and the values are in
// event order. It costs a bit an event and 4 bytes a value, so that when
// most events have none (the locksets of a run that takes no lock) it is
// about a 32nd of an array, and when all have one about as much.
type sparseVals struct {
	set  rankSet
	vals []int32
}

// newSparseVals returns an empty sparseVals for n events, to be filled by
// add in event order and made readable by done.
func newSparseVals(n int) sparseVals { return sparseVals{set: rankSet{bits: newBitset(n)}} }

// add sets event i's value to v; events are added in increasing order.
func (s *sparseVals) add(i, v int32) {
	if v == 0 {
		return
	}
	s.set.bits.set(i)
	s.vals = append(s.vals, v)
}

// done computes the ranks once every value is added.
func (s *sparseVals) done() {
	s.set.ranks()
	s.vals = slices.Clip(s.vals)
}

// at returns event i's value.
func (s *sparseVals) at(i int32) int32 {
	if k := s.set.index(i); k >= 0 {
		return s.vals[k]
	}
	return 0
}
