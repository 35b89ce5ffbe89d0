// This file implements cuts closed under the lock rule of the
// sync-preserving closure (Mathur, Pavlogiannis and Viswanathan, POPL
// 2021, §3; Tunç, Mathur, Pavlogiannis and Viswanathan, PLDI 2023, §4 for
// deadlocks): a cut holds, per goroutine, a prefix of its events; the rule
// says that of two acquires of one lock in the cut, the earlier one's
// release is in it too. Every layer that builds a witness as a cut in
// observed order (race_syncp.go, race_reversal.go, deadlock_lockorder.go,
// deadlock_channel.go, leak_select.go, misuse.go) closes it with closeCut,
// giving its own stopping rule.

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// lockGoroutines returns, per lock kept as a lock, the goroutines with
// critical sections of it. The engine owns the map: this copy of the
// engine makes it the first time it asks, and it is only read after (a
// copy forked after that shares it).
func (e *engine) lockGoroutines() map[trace.ObjID][]int32 {
	if e.lg != nil {
		return e.lg
	}
	lg := make(map[trace.ObjID][]int32)
	for k := range e.c.cs {
		lg[k.l] = append(lg[k.l], k.g)
	}
	for _, gs := range lg {
		slices.Sort(gs)
	}
	e.lg = lg
	return lg
}

// closeCut closes cut under the lock rule, one lockRound at a time, the
// open sections of goroutines ga and gb (-1 for none) exempt, for as long
// as the layer's stopping rule inside(cut) holds, which it asks before
// every round. It reports whether cut reached a fixpoint of the rule with
// inside still holding, and so is closed; false when inside failed first
// or a section that must be released never is.
func (e *engine) closeCut(cut []int32, ga, gb int32, inside func(cut []int32) bool) bool {
	for inside(cut) {
		grew, ok := e.lockRound(cut, ga, gb)
		if !ok {
			return false
		}
		if !grew {
			return true
		}
	}
	return false
}

// raceCone sets cut to the causal cone of the events before each access
// of race cd, where the race layers' closures start, and returns the two
// accesses' goroutines.
func (e *engine) raceCone(cd cand, cut []int32) (ga, gb int32) {
	c := e.c
	a, b := cd.ev[0], cd.ev[1]
	ga, gb = int32(c.ev[a].G), int32(c.ev[b].G)
	clear(cut)
	e.coneInto(cut, ga, c.pos[a]-1)
	e.coneInto(cut, gb, c.pos[b]-1)
	return ga, gb
}

// holdsNone returns the stopping rule of the layers that stop goroutines
// before events: cut holds none of evs.
func (c *ctp) holdsNone(evs []int32) func(cut []int32) bool {
	return func(cut []int32) bool {
		for _, i := range evs {
			if cut[c.ev[i].G] >= c.pos[i] {
				return false
			}
		}
		return true
	}
}

// lockRound is one round of the sync-preserving closure's lock rule
// on cut: every section open in it (of goroutines other than ga and gb,
// -1 for none) that a later acquire in it excludes must be released in
// it, and its release's causal cone joins cut. It reports whether cut
// grew, and false ok when such a section is never released.
func (e *engine) lockRound(cut []int32, ga, gb int32) (grew, ok bool) {
	c, lg := e.c, e.lockGoroutines()
	for _, o := range e.openSections(cut, ga, gb) {
		if !c.laterAcquire(o.l, o.acq, o.s.shared, cut, lg[o.l]) {
			continue // the last section of its lock in the cut: may stay open
		}
		if o.s.rel == 0 {
			return grew, false // must be released, and never is
		}
		e.coneInto(cut, o.g, o.s.rel)
		grew = true
	}
	return grew, true
}

// laterAcquire reports whether cut holds an acquire of lock l after event
// i (in observed order) that excludes a section acquired at i (shared
// says whether that one is shared). gs are the goroutines with sections
// of l.
func (c *ctp) laterAcquire(l trace.ObjID, i int32, shared bool, cut []int32, gs []int32) bool {
	for _, h := range gs {
		list := c.cs[gl{h, l}]
		n, _ := slices.BinarySearchFunc(list, cut[h]+1, func(s csect, p int32) int { return int(s.acq - p) })
		for j := n - 1; j >= 0; j-- { // sections of h acquired in the cut, latest first
			x := c.at(h, list[j].acq)
			if x <= i {
				break
			}
			if !(shared && list[j].shared) {
				return true
			}
		}
	}
	return false
}
