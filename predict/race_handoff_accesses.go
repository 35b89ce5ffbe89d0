// This file implements the accesses handedOver (race_handoff.go) checks,
// location by location: each shared access as the check reads it
// (goroutine, position, words, atomic, write), written in passes over
// the events in trace order, a run of locations a pass.
//
// The check used to read the events location by location (by
// sharedByLocation's indexes): on a channel stress test a location is a
// message's, written by its producer and read by its consumer thousands
// of events later, so every access was a random read of the event table
// and of the positions, far outside the caches (bench/RESULTS.md,
// "stress-chan-3m: GroupAccesses by life"). Written in trace order, the
// reads are sequential and the writes, which do not stall the loop as
// dependent reads do, are the scattered ones. An access written out is
// 16 bytes where an index was 4, so the locations are taken in runs of
// at most a quarter of the accesses (or handoffChunkMin), each run one
// pass: the accesses held at once cost what the indexes did.

package predict

import (
	"slices"
	"sort"
)

// handoffChunkMin is the fewest accesses a run of locations may hold
// (a trace of fewer takes one pass). A variable for the tests, which
// take runs of one access.
var handoffChunkMin int32 = 1 << 20

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

// handoffChunks holds the shared accesses (m.shared) of a run of
// locations [l0, l1), each location's in trace order: location l's are
// acc[start[l]-start[l0] : start[l+1]-start[l0]].
type handoffChunks struct {
	c      *ctp
	m      *memory
	start  []int32 // sharedStarts
	l0, l1 int
	acc    []handoffAccess
	next   []int32
	chunk  int32
}

func newHandoffChunks(c *ctp, m *memory) *handoffChunks {
	start := sharedStarts(c, m)
	return &handoffChunks{c: c, m: m, start: start, chunk: max(start[len(m.locs)]/4, handoffChunkMin)}
}

// nextRun moves to the run of locations after the current one and
// writes its accesses out; false when no location is left.
func (h *handoffChunks) nextRun() bool {
	nl := len(h.m.locs)
	if h.l0 = h.l1; h.l0 >= nl {
		return false
	}
	// The most locations whose accesses fit the chunk, at least one.
	limit := h.start[h.l0] + h.chunk
	h.l1 = max(sort.Search(nl+1, func(i int) bool { return h.start[i] > limit })-1, h.l0+1)
	base := h.start[h.l0]
	h.acc = slices.Grow(h.acc[:0], int(h.start[h.l1]-base))[:h.start[h.l1]-base]
	h.next = append(h.next[:0], h.start[h.l0:h.l1]...)
	for i, l := range h.m.loc {
		// A location's accesses are all shared or none (m.shared):
		// start says which.
		if int(l) < h.l0 || int(l) >= h.l1 || h.start[l] == h.start[l+1] {
			continue
		}
		e := &h.c.ev[i]
		h.acc[h.next[int(l)-h.l0]-base] = handoffAccess{g: int32(e.G), p: h.c.pos[i], mask: wordMask(e.Addr, e.Size), atomic: e.Op.IsAtomic(), write: isWrite(e.Op)}
		h.next[int(l)-h.l0]++
	}
	return true
}

// of returns location l's accesses (l in the current run).
func (h *handoffChunks) of(l int) []handoffAccess {
	base := h.start[h.l0]
	return h.acc[h.start[l]-base : h.start[l+1]-base]
}
