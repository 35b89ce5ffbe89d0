// This file implements handoffs, the store of the handoff check's
// one-edge orderings (race_handoff.go): per pair of goroutines, the hops
// into the receiver in its program order.
//
// The check makes nearly one hop an acquire, so nearly every add
// appends. Kept as a slice per pair, found by a table of the pairs, an
// add was three dependent cache misses (the pair's entry, its slice
// header, its last hop) and little work (bench/RESULTS.md, "the
// handoff check's hops in one log", counted on the channel stress
// suite). So the hops are made in two stages. While the edges are made,
// each pair has a tail (its latest hop, inline, and where that hop is in
// the log) found directly by the pair, and a new hop goes to the end of
// one log of all hops in the order made: an add reads one entry and
// writes sequentially. Once every edge is made (seal), the log is laid
// out by pair in one flat array (a counting sort, stable, so each pair's
// hops stay in the receiver's program order) with each pair's offsets
// found by the pair: a lookup is the offsets and the hops, two misses
// where it was three. Before seal (the probe, race_handoff_probe.go,
// asks while it makes the edges) a lookup walks the pair's hops back
// from its tail through the log. With too many goroutines for a table
// by pair, a pair is found in a hash table whose entry holds its tail
// (race_handoff_pairs.go), kept once sealed: a lookup from after the
// pair's latest hop reads that one entry.

package predict

// hop is a one-edge ordering into a goroutine: after its first recv
// events it knows the first src events of the edge's source goroutine
// (the most over its edges so far).
type hop struct{ recv, src int32 }

// hopTail is a pair's latest hop while the edges are made, and 1 + its
// index in the log (0: the pair has none).
type hopTail struct {
	hop
	last int32
}

// hopRec is a hop in the log: its pair's slot, and 1 + the log index of
// the pair's hop before it (0 none).
type hopRec struct {
	slot int32
	hop
	prev int32
}

// handoffs holds every one-edge ordering of a trace, per pair of
// goroutines, in the receiver's program order, and each goroutine's
// parent and the position of the go statement there (-1, 0 without): a
// goroutine starts knowing what its parent knew then. A pair's slot is
// to*ng+from while ng*ng is at most denseHopPairs, else given in order
// of first hop and found, with its tail, in byPair.
type handoffs struct {
	ng     int
	dense  bool
	byPair pairTable // sparse: the pairs, their slots and tails
	nslot  int32     // sparse: slots given
	// While the edges are made (nil once sealed).
	tails []hopTail // dense: by slot
	log   []hopRec
	// Once sealed: slot s's hops are flat[off[s]:off[s+1]].
	off  []int32
	flat []hop

	parent []int32
	goPos  []int32
}

// denseHopPairs bounds the pairs of goroutines (ng*ng) for which
// handoffs finds a pair by its index to*ng+from (12 bytes a pair while
// the edges are made, 4 once sealed), not by a map: the check looks a
// pair up at every acquire and access, and with a thousand goroutines
// the map's lookups were a quarter of its time (bench/RESULTS.md,
// "stress-chan-3m: the owners of shared lives"). A variable for the
// tests, which run both ways.
var denseHopPairs = 1 << 22

// newHandoffs returns an empty store for ng goroutines whose log has
// room for hint hops.
func newHandoffs(ng, hint int) *handoffs {
	h := &handoffs{ng: ng, log: make([]hopRec, 0, hint), parent: make([]int32, ng), goPos: make([]int32, ng)}
	if ng*ng <= denseHopPairs {
		h.dense = true
		h.tails = make([]hopTail, ng*ng)
	} else {
		// Nearly every goroutine but the first has a hop from its
		// parent.
		h.byPair = newPairTable(ng)
	}
	return h
}

func handoffKey(to, from int32) uint64 { return uint64(uint32(to))<<32 | uint64(uint32(from)) }

// pair returns the pair (to, from)'s slot and tail, or slot -1 if it
// has none; with create, a new pair's. The tail is nil once a dense
// store is sealed, and valid until the next pair with create.
func (h *handoffs) pair(to, from int32, create bool) (int32, *hopTail) {
	if h.dense {
		s := to*int32(h.ng) + from
		if h.tails == nil {
			return s, nil
		}
		return s, &h.tails[s]
	}
	k := handoffKey(to, from)
	if !create {
		e := h.byPair.find(k)
		if e == nil {
			return -1, nil
		}
		return e.slot, &e.hopTail
	}
	e, made := h.byPair.get(k, h.nslot)
	if made {
		h.nslot++
	}
	return e.slot, &e.hopTail
}

// add records that goroutine to, from its recv-th event on, knows the
// first src events of goroutine from. Not after seal.
func (h *handoffs) add(to, from, recv, src int32) {
	if to == from {
		return
	}
	s, t := h.pair(to, from, true)
	if t.last > 0 {
		if t.src >= src {
			return // known already
		}
		if t.recv == recv {
			t.src = src
			h.log[t.last-1].src = src
			return
		}
	}
	h.log = append(h.log, hopRec{slot: s, hop: hop{recv, src}, prev: t.last})
	t.hop, t.last = hop{recv, src}, int32(len(h.log))
}

// seal lays the log's hops out by pair (see the file comment); add may
// not be called after it.
func (h *handoffs) seal() {
	n := int(h.nslot)
	if h.dense {
		n = len(h.tails)
		h.tails = nil
	}
	// Counted into off[s+2], summed so that off[s+1] is where slot s
	// starts, then moved up by the scatter to where it ends: off[s] is
	// then where slot s starts.
	off := make([]int32, n+2)
	for i := range h.log {
		off[h.log[i].slot+2]++
	}
	for s := 2; s < len(off); s++ {
		off[s] += off[s-1]
	}
	flat := make([]hop, len(h.log))
	for i := range h.log {
		r := &h.log[i]
		flat[off[r.slot+1]] = r.hop
		off[r.slot+1]++
	}
	h.off, h.flat, h.log = off[:n+1], flat, nil
}

// count returns how many hops h holds.
func (h *handoffs) count() int {
	if h.off != nil {
		return len(h.flat)
	}
	return len(h.log)
}

// pairs calls f with each pair of goroutines that has hops, and them.
// Only after seal.
func (h *handoffs) pairs(f func(to, from int32, hs []hop)) {
	if !h.dense {
		for _, e := range h.byPair.ents {
			if e.key != emptyPair {
				f(int32(e.key>>32), int32(uint32(e.key)), h.flat[h.off[e.slot]:h.off[e.slot+1]])
			}
		}
		return
	}
	for s := 0; s+1 < len(h.off); s++ {
		if h.off[s] != h.off[s+1] {
			f(int32(s/h.ng), int32(s%h.ng), h.flat[h.off[s]:h.off[s+1]])
		}
	}
}

// inheritDepth bounds how many go statements up knowsAtLeast looks.
const inheritDepth = 8

// knowsAtLeast reports whether goroutine to knows the first n events of
// goroutine from after its own first p events, by one edge into it or
// into an ancestor before the go statement that led to it: the go
// statement passes on all the parent knew (clock_pass.go's goClk).
func (h *handoffs) knowsAtLeast(to, p, from, n int32) bool {
	for d := 0; ; d++ {
		if h.knows(to, p, from) >= n {
			return true
		}
		if d == inheritDepth || h.parent[to] < 0 {
			return false
		}
		to, p = h.parent[to], h.goPos[to]
	}
}

// knows returns how many events of goroutine from goroutine to knows of
// by one edge after its first p events.
func (h *handoffs) knows(to, p, from int32) int32 {
	s, t := h.pair(to, from, false)
	if s < 0 {
		return 0
	}
	if t != nil {
		// The pair's latest hop, which knows the most.
		if t.last == 0 {
			return 0
		}
		if t.recv <= p {
			return t.src
		}
	}
	if h.off == nil {
		// Not sealed: back from the pair's latest hop.
		for i := h.log[t.last-1].prev; i > 0; i = h.log[i-1].prev {
			if r := &h.log[i-1]; r.recv <= p {
				return r.src
			}
		}
		return 0
	}
	hs := h.flat[h.off[s]:h.off[s+1]]
	// The first hop after p (hops are in order of recv), by a binary
	// search written out: slices.BinarySearchFunc's comparison was a
	// call a step.
	lo, hi := 0, len(hs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if hs[m].recv <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	return hs[lo-1].src
}
