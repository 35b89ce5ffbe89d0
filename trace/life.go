// This file gives the analyses the heap life of a trace address: the
// converter gives each heap allocation's life disjoint addresses
// (convert.go, lifeBase), so two addresses are in one allocation exactly
// when their lives agree. A buffered channel's slots, for one, are in one
// allocation (predict/witness, bufchan.go).

package trace

// HeapLife returns the life of heap address addr and its offset in the
// allocation, or false if addr is not in a heap allocation the recording
// found (a global, a stack, or memory outside the Go heap).
func HeapLife(addr uint64) (life, off uint64, ok bool) {
	if addr < lifeBase {
		return 0, 0, false
	}
	life, off = lifeByte(addr)
	return life, off, true
}

// LifeAddr returns the trace address at offset off of heap life n, as the
// converter gives it (for traces that tests build).
func LifeAddr(n, off uint64) uint64 {
	return lifeBase + n<<lifeShift + off
}
