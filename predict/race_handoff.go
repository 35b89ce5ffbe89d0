// This file implements the check that lets Analyze skip the SHB layer's
// pass (race_shb.go) on a trace whose shared data is only ever handed
// over by one synchronisation: every pair of conflicting accesses of two
// goroutines is ordered by a single edge of the fixed synchronisation
// (go → start, join, or a release the later goroutine acquires before its
// access: a channel operation, an atomic, a WaitGroup) with the earlier
// access before the edge's release in program order, the edge going into
// the later access's goroutine or into an ancestor of it before the go
// statement that led to it (a go statement passes on all its goroutine
// knew). The channel stress suites are such traces: producers hand heap
// messages to consumers over channels, and there the SHB pass, a
// vector-clock pass over the whole trace with clocks of a thousand
// goroutines, was most of the analysis (bench/RESULTS.md, "stress-chan-3m:
// the SHB pass skipped"); so is the ring suite, whose short-lived
// goroutines hand a slot back to their parent, which starts the next.
//
// Soundness. Such an edge is one of must-happen-before's (clock_pass.go:
// the CTP's fixed synchronisation), and must-happen-before is contained in
// schedulable happens-before, which adds locks and read-from to it (UCG
// paper §5; soundness-of-predictive-analyses §6.4-6.5): a pair ordered by
// one is ordered by the other. The go statement joins the parent's whole
// clock into the child's in both, so what an ancestor knew at it the
// child knows. The SHB layer reports only conflicting
// pairs that SHB leaves unordered, so on such a trace it reports none,
// and its funnel row is zero races at zero sites: the row the check puts
// in its place. The check is conservative where the passes differ: lock
// operations (which SHB orders and must-happen-before does not) make no
// edge and cut the edges through their address, so a pair only a lock
// orders makes the check fail and the pass run; a conflict is taken as
// the SHB table takes it (two accesses of one location whose words, by
// wordMask, overlap: one a write, not both atomic). An edge is taken
// only where both passes' clocks carry it: from the last release that
// overwrote the address's clock (Release, ReleaseAcquire) or a merge
// since, to an acquire (Acquire, ReleaseAcquire) of another goroutine.
// TestHandoffSkipSound checks the claim against the SHB pass on random
// traces.

package predict

import (
	"context"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// handoffWork bounds the check's work per event of the trace (edges
// made at acquires, pairs of accesses compared): past it the check gives
// up and the SHB pass runs, so that a trace with hot locations or
// addresses many goroutines release to costs the check a few passes over
// the events, not a square of them.
const handoffWork = 8

// hop is a one-edge ordering into a goroutine: after its first recv
// events it knows the first src events of the edge's source goroutine
// (the most over its edges so far).
type hop struct{ recv, src int32 }

// handoffs holds every one-edge ordering of a trace, per pair of
// goroutines (handoffKey), in the receiver's program order, and each
// goroutine's parent and the position of the go statement there (-1,
// 0 without): a goroutine starts knowing what its parent knew then.
type handoffs struct {
	ng     int
	hops   [][]hop // by pair: where at or byKey says
	at     []int32 // to*ng+from -> 1 + the pair's index in hops, 0 none; nil past denseHopPairs
	byKey  map[uint64]int32
	parent []int32
	goPos  []int32
}

// denseHopPairs bounds the pairs of goroutines (ng*ng) for which
// handoffs finds a pair's hops by a table indexed by the pair (4 bytes a
// pair), not by a map: the check looks a pair up at every acquire and
// access, and with a thousand goroutines the map's lookups were a
// quarter of its time (bench/RESULTS.md, "stress-chan-3m: the owners of
// shared lives"). A variable for the tests, which run both ways.
var denseHopPairs = 1 << 22

func newHandoffs(ng int) *handoffs {
	h := &handoffs{ng: ng, parent: make([]int32, ng), goPos: make([]int32, ng)}
	if ng*ng <= denseHopPairs {
		h.at = make([]int32, ng*ng)
	} else {
		h.byKey = make(map[uint64]int32)
	}
	return h
}

// pair returns the index in hops of the pair (to, from), or -1; with
// create, a new pair's.
func (h *handoffs) pair(to, from int32, create bool) int32 {
	var k uint64
	var n int32
	if h.at != nil {
		n = h.at[int(to)*h.ng+int(from)]
	} else {
		k = handoffKey(to, from)
		n = h.byKey[k]
	}
	if n > 0 || !create {
		return n - 1
	}
	h.hops = append(h.hops, nil)
	n = int32(len(h.hops))
	if h.at != nil {
		h.at[int(to)*h.ng+int(from)] = n
	} else {
		h.byKey[k] = n
	}
	return n - 1
}

// pairs calls f with each pair of goroutines that has hops, and them.
func (h *handoffs) pairs(f func(to, from int32, hs []hop)) {
	if h.at != nil {
		for k, n := range h.at {
			if n > 0 {
				f(int32(k/h.ng), int32(k%h.ng), h.hops[n-1])
			}
		}
		return
	}
	for k, n := range h.byKey {
		f(int32(k>>32), int32(uint32(k)), h.hops[n-1])
	}
}

// inheritDepth bounds how many go statements up knowsAtLeast looks.
const inheritDepth = 8

func handoffKey(to, from int32) uint64 { return uint64(uint32(to))<<32 | uint64(uint32(from)) }

// add records that goroutine to, from its recv-th event on, knows the
// first src events of goroutine from.
func (h *handoffs) add(to, from, recv, src int32) {
	if to == from {
		return
	}
	hs := &h.hops[h.pair(to, from, true)]
	if n := len(*hs); n > 0 {
		last := &(*hs)[n-1]
		if last.src >= src {
			return // known already
		}
		if last.recv == recv {
			last.src = src
			return
		}
	}
	*hs = append(*hs, hop{recv, src})
}

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
	k := h.pair(to, from, false)
	if k < 0 {
		return 0
	}
	hs := h.hops[k]
	n, _ := slices.BinarySearchFunc(hs, p+1, func(x hop, p int32) int {
		if x.recv < p {
			return -1
		}
		if x.recv > p {
			return 1
		}
		return 0
	})
	if n == 0 {
		return 0
	}
	return hs[n-1].src
}

// handoffEdges makes the one-edge orderings of c's fixed
// synchronisation. ok is false if they took more than budget units of
// work.
func handoffEdges(ctx context.Context, c *ctp, budget int) (h *handoffs, ok bool, err error) {
	b := newEdgeBuilder(c, budget)
	for i := range c.ev {
		if i&stopEvery == 0 && ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		if !b.step(i) {
			return nil, false, nil
		}
	}
	return b.h, true, nil
}

// edgeBuilder makes handoffEdges's orderings event by event, in trace
// order: after step(i), h holds every ordering into a goroutine up to
// its events before i (what knowsAtLeast asks of an access at i).
type edgeBuilder struct {
	c *ctp
	h *handoffs
	// Per address, the releases its clock holds since the last one that
	// overwrote it: the latest of each goroutine.
	pending map[uint64][]centry
	budget  int
}

func newEdgeBuilder(c *ctp, budget int) *edgeBuilder {
	h := newHandoffs(len(c.byG))
	// The go statement happens before the whole goroutine (its clock
	// before its first event knows it: recv 0).
	for g, evs := range c.byG {
		h.parent[g] = -1
		if len(evs) > 0 && c.goEv[g] >= 0 && c.goEv[g] < evs[0] {
			p := c.goEv[g]
			h.add(int32(g), int32(c.ev[p].G), 0, c.pos[p])
			h.parent[g], h.goPos[g] = int32(c.ev[p].G), c.pos[p]
		}
	}
	return &edgeBuilder{c: c, h: h, pending: make(map[uint64][]centry), budget: budget}
}

// step adds the orderings event i makes; false once they took more than
// the budget.
func (b *edgeBuilder) step(i int) bool {
	c, h := b.c, b.h
	e := &c.ev[i]
	g, p := int32(e.G), c.pos[i]
	if e.Op == trace.OpJoin {
		if j := c.joinSrc(int32(i)); j >= 0 {
			h.add(g, int32(c.ev[j].G), p, c.pos[j])
		}
	}
	if c.overAtomic.has(int32(i)) {
		delete(b.pending, atomicVar(e.Addr)) // the pass resets the atomic variable's clock
	}
	if e.Op.IsLock() {
		// The passes differ here (locks stay locks in one, are
		// release/acquire in the other): no edge goes through the
		// address.
		delete(b.pending, c.syncAddr(i))
		return true
	}
	k := c.syncKind(i)
	if k == trace.SyncNone {
		return true
	}
	a := c.syncAddr(i)
	rel := b.pending[a]
	if k == trace.SyncAcquire || k == trace.SyncReleaseAcquire {
		if b.budget -= len(rel); b.budget < 0 {
			return false
		}
		for _, r := range rel {
			h.add(g, r.g, p, r.v)
		}
	}
	switch k {
	case trace.SyncRelease, trace.SyncReleaseAcquire:
		b.pending[a] = append(rel[:0], centry{g, p})
	case trace.SyncReleaseMerge:
		if at := slices.IndexFunc(rel, func(r centry) bool { return r.g == g }); at >= 0 {
			rel[at].v = p
		} else {
			b.pending[a] = append(rel, centry{g, p})
		}
	}
	return true
}

// handedOver reports whether every two conflicting accesses of different
// goroutines in c (of overlapping words: one a write, not both atomic)
// are ordered by one edge of the fixed synchronisation (handoffEdges,
// knowsAtLeast): then
// the SHB layer has nothing to report (see the file comment). It gives up
// (false) past handoffWork units of work per event.
func handedOver(ctx context.Context, c *ctp, m *memory) (bool, error) {
	budget := handoffWork*len(c.ev) + 1<<16
	if fails, err := handoffFailsEarly(ctx, c, m, budget); fails || err != nil {
		return false, err // race_handoff_probe.go
	}
	h, ok, err := handoffEdges(ctx, c, budget)
	if !ok || err != nil {
		return false, err
	}
	for _, hs := range h.hops {
		budget -= len(hs)
	}
	runs := newHandoffChunks(c, m) // race_handoff_accesses.go
	// Each location's accesses are checked against the latest earlier
	// access of each goroutine, kind and words (the SHB table's
	// wordMask): the edges into a goroutine only grow along its program
	// order, so that access is the hardest of its kind to know.
	var ls locLatest
	for runs.nextRun() {
		for l := runs.l0; l < runs.l1; l++ {
			if l&stopEvery == 0 && ctx.Err() != nil {
				return false, ctx.Err()
			}
			ls.reads.reset()
			ls.writes.reset()
			for j, acc := 0, runs.of(l); j < len(acc); j++ {
				if known, _ := ls.next(h, acc[j].last(), acc[j].write, &budget); !known {
					return false, nil
				}
			}
		}
	}
	return true, nil
}

// locLatest holds the latest reads and writes of one location, as
// handedOver and its probe (race_handoff_probe.go) check them.
type locLatest struct{ reads, writes latestAccesses }

// next checks access x of the location (a write if w) against the latest
// accesses of other goroutines there that it conflicts with, at a cost to
// budget of one unit an access looked at, and then makes it the latest
// of its goroutine, kind and words. over: the budget was spent first (x
// is not checked); known: one edge orders each of them before x (x is
// kept only then).
func (ls *locLatest) next(h *handoffs, x lastAccess, w bool, budget *int) (known, over bool) {
	if *budget -= len(ls.writes.ents); w {
		*budget -= len(ls.reads.ents)
	}
	if *budget < 0 {
		return false, true
	}
	if !ls.writes.known(h, x) || w && !ls.reads.known(h, x) {
		return false, false
	}
	if w {
		ls.writes.put(x)
	} else {
		ls.reads.put(x)
	}
	return true, false
}

// lastAccess is the latest access to a location of a goroutine, kind
// and words.
type lastAccess struct {
	g, p   int32
	mask   uint32
	atomic bool
}

type lastKey struct {
	g      int32
	mask   uint32
	atomic bool
}

// latestAccesses holds the latest reads (or writes) of one location, one
// per goroutine, atomicity and words, found by a scan while they are few
// and by an index once they are many.
type latestAccesses struct {
	ents []lastAccess
	at   map[lastKey]int
}

const latestScanUpTo = 16

func (ls *latestAccesses) reset() { ls.ents, ls.at = ls.ents[:0], nil }

// put makes x the latest of its goroutine, atomicity and words.
func (ls *latestAccesses) put(x lastAccess) {
	k := lastKey{x.g, x.mask, x.atomic}
	if ls.at != nil {
		if j, ok := ls.at[k]; ok {
			ls.ents[j].p = x.p
			return
		}
		ls.at[k] = len(ls.ents)
		ls.ents = append(ls.ents, x)
		return
	}
	for j := range ls.ents {
		if y := &ls.ents[j]; y.g == x.g && y.mask == x.mask && y.atomic == x.atomic {
			y.p = x.p
			return
		}
	}
	ls.ents = append(ls.ents, x)
	if len(ls.ents) > latestScanUpTo {
		ls.at = make(map[lastKey]int, 2*len(ls.ents))
		for j, y := range ls.ents {
			ls.at[lastKey{y.g, y.mask, y.atomic}] = j
		}
	}
}

// known reports whether x's goroutine knows, by one edge (knowsAtLeast), every access
// of ls of another goroutine that x conflicts with (the caller has
// chosen ls by x's kind: the writes for a read, both for a write).
func (ls *latestAccesses) known(h *handoffs, x lastAccess) bool {
	for _, y := range ls.ents {
		if y.g != x.g && !(x.atomic && y.atomic) && x.mask&y.mask != 0 && !h.knowsAtLeast(x.g, x.p-1, y.g, y.p) {
			return false
		}
	}
	return true
}
