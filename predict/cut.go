// This file implements cuts closed under the lock rule of the
// sync-preserving closure (Mathur, Pavlogiannis and Viswanathan, POPL
// 2021, §3; Tunç, Mathur, Pavlogiannis and Viswanathan, PLDI 2023, §4 for
// deadlocks): a cut holds, per goroutine, a prefix of its events; the rule
// says that of two acquires of one lock in the cut, the earlier one's
// release is in it too. Every layer that builds a witness as a cut in
// observed order (race_syncp.go, race_reversal.go, deadlock_lockorder.go,
// deadlock_channel.go, leak_select.go, misuse.go) closes it with lockRound.

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// lockGoroutines returns, per lock kept as a lock, the goroutines with
// critical sections of it.
func (e *engine) lockGoroutines() map[trace.ObjID][]int32 {
	lg := make(map[trace.ObjID][]int32)
	for k := range e.c.cs {
		lg[k.l] = append(lg[k.l], k.g)
	}
	for _, gs := range lg {
		slices.Sort(gs)
	}
	return lg
}

// lockRound is one round of the sync-preserving closure's lock rule
// on cut: every section open in it (of goroutines other than ga and gb,
// -1 for none) that a later acquire in it excludes must be released in
// it, and its release's causal cone joins cut. It reports whether cut
// grew, and false ok when such a section is never released.
func (e *engine) lockRound(cut []int32, ga, gb int32, lg map[trace.ObjID][]int32) (grew, ok bool) {
	c := e.c
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
