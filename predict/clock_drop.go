// This file implements what lets a clock pass (clock_pass.go) drop the
// clocks it will not read again (issue 31: a memory budget for the
// passes that keeps what they prove): a synchronisation address's clock
// after the last event that uses the address, and a goroutine's after
// its last event unless a join waits for it. Nothing the pass computes
// changes (TestPassShortcutsSameHistory): what is dropped is never read,
// and the bases only it held go back to the arena at its next sweep
// (clock_arena.go). On issue 31's ring, 50,000 done channels are each
// closed and received from once, and 50,000 goroutines end after four
// events.

package predict

import "github.com/seer-tools/seer/trace"

// dropDead turns the dropping on; tests turn it off to compare.
var dropDead = true

// passKind returns what event i does, as a pass in mode sees it: locks
// are releases and acquires in observed order with mode.locks.
func (c *ctp) passKind(i int, mode *clockMode) trace.SyncKind {
	if mode.locks {
		if e := &c.ev[i]; e.Op.IsLock() && !(mode.serial && c.observed[e.Obj]) {
			return lockSync(e.Op)
		}
	}
	return c.syncKind(i)
}

// varOf returns the address whose clock event i reads or writes in a pass
// in mode, if any: a plain write over an atomic variable resets its
// clock (ctp.go's buildSync).
func (c *ctp) varOf(i int, mode *clockMode) (uint64, bool) {
	if c.overAtomic.has(int32(i)) {
		return atomicVar(c.ev[i].Addr), true
	}
	if c.passKind(i, mode) != trace.SyncNone {
		return c.syncAddr(i), true
	}
	return 0, false
}

// deadAfter marks the events after which a pass in mode no longer needs
// a clock: vars, the events that use an address (numbered by pv) for the
// last time; ends, each goroutine's last event when no join names that
// goroutine. Without dropDead it marks none.
func deadAfter(c *ctp, pv *passVars) (vars, ends bitset) {
	vars, ends = newBitset(len(c.ev)), newBitset(len(c.ev))
	if !dropDead {
		return vars, ends
	}
	last := make([]int32, pv.n)
	for k := range last {
		last[k] = -1 // a lock's number, in a pass without locks
	}
	pv.each(false, func(i int, r int32) { last[pv.at(r)] = int32(i) })
	joined := make(map[trace.GoID]bool)
	for i := range c.ev {
		if c.ev[i].Op == trace.OpJoin {
			joined[trace.GoID(c.ev[i].Peer)] = true
		}
	}
	for _, i := range last {
		if i >= 0 {
			vars.set(i)
		}
	}
	for g, evs := range c.byG {
		if len(evs) > 0 && !joined[trace.GoID(g)] {
			ends.set(evs[len(evs)-1])
		}
	}
	return vars, ends
}
