// This file implements terminal critical sections, which causality
// barriers may cut (UCG paper §4, Theorem 4, whose barriers are otherwise
// lock-free positions).
//
// A terminal section is one that is never released and whose acquire is
// the last acquire of its lock in the whole trace: a test that stopped
// inside a critical section, or a goroutine that ended holding a mutex. A
// barrier must not cut an ordinary section because the window after it
// would lose the fact that the lock is held: other goroutines' sections in
// the window must come after the release. A terminal section leaves
// nothing to lose. No other goroutine acquires the lock after it, in the
// window or anywhere; every earlier section of the lock precedes it in the
// observed order, which the prefix keeps; and it is never released, so it
// is last on its lock in every witness, as the CTP requires of open
// sections. Without this, one such section pins the barrier of its
// goroutine before the acquire, and through the goroutine's later
// synchronisation (a test's end, which the test runner waits for), the
// barriers of every goroutine that comes after: the windows of every later
// candidate then grow past MaxWindow.
//
// One condition remains, checked once the barriers have settled: when a
// barrier cuts a terminal section, every other section of its lock that
// the witness holds must lie in a prefix too; one in a window would have to
// be acquired while the terminal section holds the lock. If one does, the
// barrier moves back before the terminal acquire and the barriers settle
// again (barriers only ever move back, so this ends).

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// termSect is a terminal section: goroutine g acquires lock l at position
// acq and never releases it.
type termSect struct {
	g   int32
	l   trace.ObjID
	acq int32
}

// buildPinned sets c.pinned: the events after which their goroutine holds
// a lock in a section that is not terminal.
func (c *ctp) buildPinned() {
	last := make(map[trace.ObjID]int32) // lock -> its last acquire
	for i := range c.ev {
		e := &c.ev[i]
		if (e.Op == trace.OpLock || e.Op == trace.OpRLock) && !c.observed[e.Obj] && c.lockMode[i] != 0 {
			last[e.Obj] = int32(i) // a section's acquire (not a recursive RLock)
		}
	}
	terminal := make(map[int32]bool) // acquiring events
	for l, i := range last {
		k := gl{int32(c.ev[i].G), l}
		ss := c.cs[k]
		if s := ss[len(ss)-1]; s.acq == c.pos[i] && s.rel == 0 {
			terminal[i] = true
			c.terminal = append(c.terminal, termSect{g: k.g, l: l, acq: s.acq})
		}
	}
	slices.SortFunc(c.terminal, func(a, b termSect) int {
		if a.g != b.g {
			return int(a.g - b.g)
		}
		return int(a.l) - int(b.l)
	})
	if len(terminal) == 0 {
		c.pinned = c.locked
		return
	}
	c.pinned = newBitset(len(c.ev))
	held := make([]int32, len(c.byG))
	for i := range c.ev {
		e := &c.ev[i]
		g := int32(e.G)
		switch c.lockMode[i] {
		case 'w', 'r':
			if !terminal[int32(i)] {
				held[g]++
			}
		case 'W', 'R':
			held[g]--
		}
		if held[g] > 0 {
			c.pinned.set(int32(i))
		}
	}
}

// unpinTerminal moves back, before its acquire, every barrier of plan p
// that cuts a terminal section while another goroutine has a section of
// the same lock between its barrier and its cut. It reports whether it
// moved any.
func (e *engine) unpinTerminal(p *plan) bool {
	c := e.c
	moved := false
	for _, t := range c.terminal {
		if p.bar[t.g] < t.acq {
			continue // the section is in the window, or not in the witness
		}
		for k, ss := range c.cs {
			if k.l != t.l || k.g == t.g {
				continue
			}
			for _, s := range ss {
				if s.acq > p.bar[k.g] && s.acq <= p.cut[k.g] {
					p.bar[t.g] = e.lastOutside(e.c.locked, t.g, t.acq-1) // no lock at all held
					moved = true
					break
				}
			}
			if p.bar[t.g] < t.acq {
				break
			}
		}
	}
	return moved
}
