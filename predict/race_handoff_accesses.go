// This file implements the accesses handedOver (race_handoff.go) checks,
// location by location: each shared access as the check reads it
// (goroutine, position, words, atomic, write), written in one pass over
// the events in trace order.
//
// The check used to read the events location by location (by
// sharedByLocation's indexes): on a channel stress test a location is a
// message's, written by its producer and read by its consumer thousands
// of events later, so every access was a random read of the event table
// and of the positions, far outside the caches (bench/RESULTS.md,
// "stress-chan-3m: GroupAccesses by life"). Written in trace order, the
// reads are sequential and the writes, which do not stall the loop as
// dependent reads do, are the scattered ones.

package predict

// handoffAccess is a shared access as handedOver checks it: a
// lastAccess's fields and whether it writes, in 16 bytes.
type handoffAccess struct {
	g, p          int32
	mask          uint32
	atomic, write bool
}

func (a *handoffAccess) last() lastAccess {
	return lastAccess{g: a.g, p: a.p, mask: a.mask, atomic: a.atomic}
}

// handoffAccesses returns c's shared accesses (m.shared) by location,
// each location's in trace order: location l's are
// byL[start[l]:start[l+1]], the accesses of sharedByLocation's indexes.
func handoffAccesses(c *ctp, m *memory) (start []int32, byL []handoffAccess) {
	nl := len(m.locs)
	start = sharedStarts(c, m)
	byL = make([]handoffAccess, start[nl])
	next := make([]int32, nl)
	copy(next, start[:nl])
	for i := range c.ev {
		if !m.shared(int32(i)) {
			continue
		}
		e := &c.ev[i]
		l := m.loc[i]
		byL[next[l]] = handoffAccess{g: int32(e.G), p: c.pos[i], mask: wordMask(e.Addr, e.Size), atomic: e.Op.IsAtomic(), write: isWrite(e.Op)}
		next[l]++
	}
	return start, byL
}
