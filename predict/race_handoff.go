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

	"github.com/seer-tools/seer/trace"
)

// handoffWork bounds the check's work per event of the trace (edges
// made at acquires, pairs of accesses compared): past it the check gives
// up and the SHB pass runs, so that a trace with hot locations or
// addresses many goroutines release to costs the check a few passes over
// the events, not a square of them.
const handoffWork = 8

// handoffEdges makes the one-edge orderings of c's fixed
// synchronisation. ok is false if they took more than budget units of
// work.
func handoffEdges(ctx context.Context, c *ctp, budget int) (h *handoffs, ok bool, err error) {
	// On the channel stress suite nearly every acquire and go statement
	// makes a hop (bench/RESULTS.md, "the handoff check's hops in one
	// log"): the log is sized once, at 16 bytes an acquire even where
	// few make one.
	b := newEdgeBuilder(c, budget, len(c.acqs)+len(c.byG))
	for i := range c.ev {
		if i&stopEvery == 0 && ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		if !b.step(i) {
			return nil, false, nil
		}
	}
	b.h.seal()
	return b.h, true, nil
}

// edgeBuilder makes handoffEdges's orderings event by event, in trace
// order: after step(i), h holds every ordering into a goroutine up to
// its events before i (what knowsAtLeast asks of an access at i).
type edgeBuilder struct {
	c *ctp
	h *handoffs
	// Per address, by the CTP's number of it (ctp.vars), the releases
	// its clock holds since the last one that overwrote it: the latest
	// of each goroutine (race_handoff_pending.go). By number, not in a
	// map by address: on the channel stress suite the map's lookup, one
	// a synchronisation event, was a fifth of the check
	// (bench/RESULTS.md, "the handoff check's pending releases by
	// goroutine").
	pending []pendingReleases
	budget  int
}

// newEdgeBuilder returns a builder whose store's log has room for hint
// hops.
func newEdgeBuilder(c *ctp, budget, hint int) *edgeBuilder {
	h := newHandoffs(len(c.byG), hint)
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
	return &edgeBuilder{c: c, h: h, pending: make([]pendingReleases, c.nVars), budget: budget}
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
		// The pass resets the atomic variable's clock: the write's
		// number is the variable's (buildSync).
		b.pending[c.vars.at(int32(i))-1] = pendingReleases{}
	}
	if e.Op.IsLock() {
		// The passes differ here (locks stay locks in one, are
		// release/acquire in the other): no edge goes through the
		// address.
		b.pending[c.vars.at(int32(i))-1] = pendingReleases{}
		return true
	}
	k := c.syncKind(i)
	if k == trace.SyncNone {
		return true
	}
	rel := &b.pending[c.vars.at(int32(i))-1] // syncAddr(i)'s
	if k == trace.SyncAcquire || k == trace.SyncReleaseAcquire {
		if b.budget -= len(rel.ents); b.budget < 0 {
			return false
		}
		for _, r := range rel.ents {
			h.add(g, r.g, p, r.v)
		}
	}
	switch k {
	case trace.SyncRelease, trace.SyncReleaseAcquire:
		rel.overwrite(g, p)
	case trace.SyncReleaseMerge:
		rel.merge(g, p)
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
	budget -= h.count()
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
// and by an index once they are many (indexed). The index is cleared for
// the next location, not made again: a map made anew grew anew, and its
// growth, fresh tables, led the accesses' part of the check on the
// channel stress suite of 100,000 channels (bench/RESULTS.md, "the
// handoff check's pending releases by goroutine"). It is dropped where
// it once held four times the entries the location that used it last
// did, so that clearing it costs at most what filling it did.
type latestAccesses struct {
	ents    []lastAccess
	at      map[lastKey]int
	atMost  int // the most entries at has held
	indexed bool
}

const latestScanUpTo = 16

func (ls *latestAccesses) reset() {
	ls.ents = ls.ents[:0]
	if !ls.indexed {
		return
	}
	ls.indexed = false
	if n := len(ls.at); n*4 >= ls.atMost {
		clear(ls.at)
	} else {
		ls.at, ls.atMost = nil, 0
	}
}

// put makes x the latest of its goroutine, atomicity and words.
func (ls *latestAccesses) put(x lastAccess) {
	k := lastKey{x.g, x.mask, x.atomic}
	if ls.indexed {
		if j, ok := ls.at[k]; ok {
			ls.ents[j].p = x.p
			return
		}
		ls.at[k] = len(ls.ents)
		ls.ents = append(ls.ents, x)
		ls.atMost = max(ls.atMost, len(ls.ents))
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
		if ls.at == nil {
			ls.at = make(map[lastKey]int, 2*len(ls.ents))
		}
		ls.indexed = true
		for j, y := range ls.ents {
			ls.at[lastKey{y.g, y.mask, y.atomic}] = j
		}
		ls.atMost = max(ls.atMost, len(ls.ents))
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
