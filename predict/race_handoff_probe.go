// This file implements the probe that lets handedOver (race_handoff.go)
// answer no early: the trace's first events in trace order, the one-edge
// orderings made as it goes (edgeBuilder) and each shared access checked
// against the latest earlier ones of its location as the whole check
// checks it. A conflicting pair the probe finds unordered is one the
// whole check finds too: at an access, the orderings into its goroutine
// (and its ancestors, before their go statements) come from its events
// before it, all made by then, so knowsAtLeast answers it as it does
// after handoffEdges's whole pass, and the latest earlier access of each
// goroutine, kind and words is the same in trace order as in the
// location's run. So the probe only ever says "not handed over" where
// the check says it; where it finds nothing, the check runs as before.
//
// On pond (github.com/alitto/pond/v2) the first pair that no one edge
// orders comes among the trace's first events, but the check
// made every edge of the trace and wrote out its accesses before it
// found it, on a trace whose SHB pass then ran anyway (bench/RESULTS.md,
// "pond: open groups bagged once idle, and the handoff check's early
// no").

package predict

import "context"

// handoffProbeShare and handoffProbeMin set how many of the trace's first
// events the probe reads: a share of them, at least handoffProbeMin, so
// that a trace the check holds on costs it at most that share again.
// Variables for the tests, which probe every event or none.
var (
	handoffProbeShare = 64
	handoffProbeMin   = 1 << 16
)

// handoffFailsEarly reports whether the probe found, in the trace's first
// events, a pair of conflicting accesses that no one edge orders: then
// handedOver's answer is no. It gives up (false) past budget units of
// work, as the check does.
func handoffFailsEarly(ctx context.Context, c *ctp, m *memory, budget int) (bool, error) {
	n := min(len(c.ev), max(handoffProbeMin, len(c.ev)/handoffProbeShare))
	if n == 0 {
		return false, nil
	}
	b := newEdgeBuilder(c, budget, 0)
	locs := make(map[int32]*locLatest)
	for i := range n {
		if i&stopEvery == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		if !b.step(i) {
			return false, nil
		}
		if !m.shared(int32(i)) {
			continue
		}
		l := m.loc[i]
		ls := locs[l]
		if ls == nil {
			ls = &locLatest{}
			locs[l] = ls
		}
		e := &c.ev[i]
		x := lastAccess{g: int32(e.G), p: c.pos[i], mask: wordMask(e.Addr, e.Size), atomic: e.Op.IsAtomic()}
		switch known, over := ls.next(b.h, x, isWrite(e.Op), &b.budget); {
		case over:
			return false, nil
		case !known:
			return true, nil
		}
	}
	return false, nil
}
