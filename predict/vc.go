// This file implements the vector-clock passes: one replay of the trace
// that computes, for every goroutine, the history of its clock. Four
// relations use it (UCG paper §5 "mhb"; soundness-of-predictive-analyses
// §6.4-6.5):
//
//   - must-happen-before (mhb): program order, go → start, join, and the
//     fixed synchronisation of the CTP (locks excluded: they stay locks);
//   - the causal cone: mhb plus read-from of every read whose value matters
//     (the reads a witness must keep), used to find the events a witness
//     cannot do without;
//   - happens-before (hb): mhb plus locks as release/acquire in observed
//     order, as ThreadSanitizer computes it;
//   - schedulable happens-before (shb): hb plus read-from.
//
// Clocks count events: component g = v means "the first v events of g".
// A goroutine's own component is not stored (program order answers it).

package predict

import (
	"context"

	"github.com/seer-tools/seer/trace"
)

type clockMode struct {
	locks bool // locks as release/acquire in observed order
	rf    bool // reads join their writers' clocks
	// irrelevant, with rf, names plain reads whose writer need not be kept.
	irrelevant func(*trace.Trace, int) bool
}

type histEntry struct {
	pos int32 // the clock holds after this many events of the goroutine
	clk vclock
}

// clocks is the result of one pass.
type clocks struct {
	c    *ctp
	hist [][]histEntry
}

type syncVar struct {
	clk vclock
	eps []centry // epochs not folded into clk yet
}

// newClocks runs one pass. It returns ctx's error if cancelled.
func newClocks(ctx context.Context, c *ctp, m *memory, mode clockMode) (*clocks, error) {
	ng := len(c.byG)
	h := &clocks{c: c, hist: make([][]histEntry, ng)}
	cur := make([]vclock, ng)
	type goSrc struct {
		clk vclock
		ep  centry
	}
	goClk := make([]goSrc, ng)
	vars := make(map[uint64]*syncVar)
	v := func(a uint64) *syncVar {
		s := vars[a]
		if s == nil {
			s = &syncVar{}
			vars[a] = s
		}
		return s
	}
	for i := range c.ev {
		if i&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := &c.ev[i]
		g := int32(e.G)
		p := c.pos[i]
		changed := false
		ch := false
		if p == 1 && c.goEv[g] >= 0 && c.goEv[g] < int32(i) {
			if cur[g], ch = join(cur[g], goClk[g].clk, goClk[g].ep); ch {
				// The go statement happens before the whole goroutine.
				h.hist[g] = append(h.hist[g], histEntry{0, cur[g]})
			}
		}
		switch e.Op {
		case trace.OpGo:
			if k := e.Peer; k > 0 && int(k) < ng {
				goClk[k] = goSrc{cur[g], centry{g, p}}
			}
		case trace.OpJoin:
			if j := c.joinSrc(int32(i)); j >= 0 {
				k := int32(c.ev[j].G)
				cur[g], ch = join(cur[g], cur[k], centry{k, c.pos[j]})
				changed = changed || ch
			}
		}
		k := c.syncKind(i)
		if mode.locks && e.Op.IsLock() {
			k = lockSync(e.Op)
		}
		if k != trace.SyncNone {
			s := v(c.syncAddr(i))
			switch k {
			case trace.SyncAcquire:
				cur[g], ch = join(cur[g], s.clk, s.eps...)
			case trace.SyncRelease:
				s.clk, s.eps = cur[g], []centry{{g, p}}
			case trace.SyncReleaseMerge:
				s.clk, _ = join(s.clk, cur[g])
				s.eps = append(s.eps[:len(s.eps):len(s.eps)], centry{g, p})
				if len(s.eps) > 8 {
					s.clk, _ = join(s.clk, vclock{}, s.eps...)
					s.eps = nil
				}
			case trace.SyncReleaseAcquire:
				old := *s
				s.clk, s.eps = cur[g], []centry{{g, p}}
				cur[g], ch = join(cur[g], old.clk, old.eps...)
			}
			changed = changed || ch
		}
		if mode.rf && isRead(e.Op) && m.shared(int32(i)) && !(e.Op == trace.OpRead && mode.irrelevant != nil && mode.irrelevant(c.t, i)) {
			for _, w := range m.writers(int32(i)) {
				if w < 0 || c.ev[w].G == e.G {
					continue
				}
				wg := int32(c.ev[w].G)
				cur[g], ch = join(cur[g], h.after(wg, c.pos[w]), centry{wg, c.pos[w]})
				changed = changed || ch
			}
		}
		if changed {
			h.hist[g] = append(h.hist[g], histEntry{p, cur[g]})
		}
	}
	return h, nil
}

// after returns goroutine g's clock after its first p events.
func (h *clocks) after(g, p int32) vclock {
	hs := h.hist[g]
	lo, hi := 0, len(hs)
	for lo < hi { // first entry with pos > p
		m := int(uint(lo+hi) >> 1)
		if hs[m].pos <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return vclock{}
	}
	return hs[lo-1].clk
}

// knows returns how many events of goroutine k goroutine g knows of after
// its first p events: every event of k up to that position happens before
// g's position p+1.
func (h *clocks) knows(g, p, k int32) int32 {
	if g == k {
		return p
	}
	return h.after(g, p).get(k)
}

// before reports whether event a happens before event b (a ≠ b).
func (h *clocks) before(a, b int32) bool {
	c := h.c
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	if ga == gb {
		return c.pos[a] < c.pos[b]
	}
	return h.knows(gb, c.pos[b], ga) >= c.pos[a]
}

// concurrent reports whether neither of a, b happens before the other,
// judged from the states just before each (so that b's own read-from, in
// the shb relation, does not order a before b: Mathur et al.'s rule).
func (h *clocks) concurrent(a, b int32) bool {
	c := h.c
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	if ga == gb {
		return false
	}
	return h.knows(gb, c.pos[b]-1, ga) < c.pos[a] && h.knows(ga, c.pos[a]-1, gb) < c.pos[b]
}
