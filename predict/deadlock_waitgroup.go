// This file implements the WaitGroup shape of the channel-deadlock layer
// (deadlock_channel.go; issue 32, item 3): a WaitGroup.Wait whose Done
// goroutine can block first.
//
// Goroutine S holds lock m while it waits (event w, OpWGWait, which the
// race annotations record when Wait returns) for a group whose Done d is
// made by goroutine R, and R acquires m (at a) before d. The run took R's
// critical section first, so the counter reached zero before S locked m
// and nothing hung. In a schedule that runs S up to w and R up to a, S
// waits for the counter, which only R's Done takes down, and R waits for
// m, which S holds. It is the lock-held-across-a-channel-operation shape
// with the rendezvous replaced by the counter: the candidates are the
// pairs (w, a), filtered by must-happen-before, and each is proved or
// dropped by the same closure and extension (blockingWitness): every
// other goroutine runs as far as the closure allows, and the finding is
// made only if at the end every goroutine that can still act waits for
// ever under the serial specifications (the counter summed over the
// cut's Adds and Dones is above zero; a lock held in a conflicting
// mode; ...). The other Dones of the group run in the extension if they
// can, so that a counter some other goroutine could take to zero is
// never claimed stuck.
//
// The checker (package witness, blocking.go) re-checks the claim, the
// Wait's counter among it.
//
// Contract: as blockingWitness's (deadlock_channel.go): only cuts closed
// under the lock rule and extended to a fixpoint at whose end every
// goroutine that can still act waits for ever, the witness the cut in
// observed order, with no search.

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// waitGroupWaits tries every WaitGroup.Wait made with a lock held
// against the Dones of the group that other goroutines make after
// taking that lock. Candidates count in the layer's row as the channel
// ones do.
func (l *chanLayer) waitGroupWaits() error {
	e, n := l.e, &l.n
	c := e.c
	waits := map[trace.ObjID][]int32{}
	dones := map[trace.ObjID][]int32{}
	var groups []trace.ObjID
	for i := range c.ev {
		switch ev := &c.ev[i]; ev.Op {
		case trace.OpWGWait:
			if c.lsOf(int32(i)) != 0 {
				if waits[ev.Obj] == nil {
					groups = append(groups, ev.Obj)
				}
				waits[ev.Obj] = append(waits[ev.Obj], int32(i))
			}
		case trace.OpWGDone:
			dones[ev.Obj] = append(dones[ev.Obj], int32(i))
		}
	}
	slices.Sort(groups)
	var err error
	for _, wg := range groups {
		for _, w := range waits[wg] {
			if err = e.ctx.Err(); err != nil {
				return err
			}
			g := int32(c.ev[w].G)
			for _, d := range dones[wg] {
				r := int32(c.ev[d].G)
				if r == g {
					continue
				}
				c.heldAt(g, c.pos[w], func(m trace.ObjID, s csect) {
					if err != nil || n.closures >= maxBlockingTries || c.observed[m] {
						return
					}
					a := c.lastAcquireBefore(r, m, c.pos[d])
					if a < 0 || tryLock(e.t, a) {
						return
					}
					err = l.tryPair(w, a)
				})
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// tryPair tries the blocking claim of a pair of requests (an operation
// that waits, then the acquire its partner waits in), once per pattern
// of their sites: must-happen-before first, then blockingWitness. It
// counts the pattern and the closure in the layer's row.
func (l *chanLayer) tryPair(o, a int32) error {
	e, n, c := l.e, &l.n, l.e.c
	key := newPatternKey(KindDeadlock, c.site(o), c.site(a))
	if l.proved[key] {
		return nil
	}
	n.patterns++
	if e.mhbOrdered([]int32{o, a}) {
		return nil
	}
	n.closures++
	if e.cone == nil {
		if err := e.needCone(); err != nil {
			return err
		}
	}
	if fd, ok := e.blockingWitness(l.co, o, a); ok {
		l.out = append(l.out, fd)
		l.proved[key] = true
	}
	return nil
}
