// This file implements the numbering of a clock pass's synchronisation
// addresses (clock_pass.go): each address that an event of the pass reads
// or writes a clock of (ctp.varOf in the pass's mode) has a small number.
// The pass keeps its variables in an array by that number, and its set-up
// (deadAfter, clock_drop.go; idleMerges, clock_fold.go) scans arrays,
// where each of the three looked the address up in a map of its own at
// every such event. The numbers are the CTP's (ctp.vars), which buildSync
// (ctp.go) gives as it keys the addresses for its own use: one map pass
// over the addresses per CTP, not one more per clock pass. What the pass
// computes is the same (TestPassVarsNumbering; the differential tests of
// the layers).

package predict

import (
	"math/bits"

	"github.com/seer-tools/seer/trace"
)

// passVars numbers the addresses of a pass's events.
type passVars struct {
	c *ctp
	// locks: the pass keeps locks as locks, so that every event of
	// c.vars uses its address; without, the events of the locks kept as
	// locks use none.
	locks bool
	n     int // the numbers: the CTP's, some unused without locks
}

// numberVars returns the numbering of the addresses of c's events in a
// pass in mode.
func numberVars(c *ctp, mode *clockMode) passVars {
	return passVars{c: c, locks: mode.locks, n: c.nVars}
}

// of returns the number of the address event i uses; i must use one.
func (pv *passVars) of(i int) int32 { return pv.c.vars.at(int32(i)) - 1 }

// uses reports whether event i, numbered in the CTP, uses its address in
// the pass: without locks, a lock kept as a lock does not (ctp.varOf).
func (pv *passVars) uses(i int) bool {
	return pv.locks || pv.c.sk[i] != trace.SyncNone || !pv.c.ev[i].Op.IsLock()
}

// each calls f with every event that uses an address in the pass, in
// event order, and its rank in the CTP's numbering (at); backward, in
// reverse order.
func (pv *passVars) each(backward bool, f func(i int, r int32)) {
	bs := pv.c.vars.set.bits
	if !backward {
		r := int32(0)
		for w, x := range bs {
			for ; x != 0; x &= x - 1 {
				if i := w<<6 + bits.TrailingZeros64(x); pv.uses(i) {
					f(i, r)
				}
				r++
			}
		}
		return
	}
	r := int32(pv.c.vars.set.n)
	for w := len(bs) - 1; w >= 0; w-- {
		for x := bs[w]; x != 0; x &^= 1 << (63 - bits.LeadingZeros64(x)) {
			r--
			if i := w<<6 + 63 - bits.LeadingZeros64(x); pv.uses(i) {
				f(i, r)
			}
		}
	}
}

// at returns the number of the address of the event of rank r (each).
func (pv *passVars) at(r int32) int32 { return pv.c.vars.vals[r] - 1 }
