// This file implements the observed-race test behind Finding.Predicted:
// whether a race's two accesses are concurrent under the run's own
// happens-before, locks included (ThreadSanitizer's relation; clock_pass.go's
// hb mode). A finding asks one question, "does a happen before b?", and
// a full vector-clock pass to answer a few dozen of them costs as much
// as the pre-pass. Instead, each question is one bit: the bit is set on
// a's goroutine at a and flows along the same edges a clock would (go →
// start, join, and every synchronisation, locks as release/acquire in
// observed order), with the same release, release-merge and acquire
// rules as clock_pass.go; b knows a iff its goroutine holds the bit just before
// b. Happens-before only runs forward in the trace, so one walk from the
// first a to the last b answers 64 questions, in a word per goroutine and
// per synchronisation address (a single-component form of the vector
// clocks of Mattern and Fidge).

package predict

import "github.com/seer-tools/seer/trace"

// hbQuery asks whether event a happens before event b (a < b in trace
// order) under happens-before with locks.
type hbQuery struct{ a, b int32 }

// hbBefore answers up to 64 queries; bit q of the result is set when
// qs[q].a happens before qs[q].b.
func hbBefore(c *ctp, qs []hbQuery) uint64 {
	if len(qs) == 0 {
		return 0
	}
	lo, hi := qs[0].a, qs[0].b
	for _, q := range qs {
		lo, hi = min(lo, q.a), max(hi, q.b)
	}
	startAt := make(map[int32]uint64) // event -> bits that start there
	endAt := make(map[int32]uint64)   // event -> bits asked there
	for k, q := range qs {
		startAt[q.a] |= 1 << uint(k)
		endAt[q.b] |= 1 << uint(k)
	}
	ng := len(c.byG)
	cur := make([]uint64, ng)    // per goroutine: the bits it knows
	goBits := make([]uint64, ng) // per goroutine: its go statement's bits
	vars := make(map[uint64]uint64)
	var ans uint64
	for i := lo; i <= hi; i++ {
		e := &c.ev[i]
		g := int32(e.G)
		if c.pos[i] == 1 && c.goEv[g] >= 0 && c.goEv[g] < i {
			cur[g] |= goBits[g]
		}
		if m, ok := endAt[i]; ok { // the state just before b
			ans |= cur[g] & m
		}
		if m, ok := startAt[i]; ok { // a publishes itself
			cur[g] |= m
		}
		switch e.Op {
		case trace.OpGo:
			if k := e.Peer; k > 0 && int(k) < ng {
				goBits[k] = cur[g]
			}
		case trace.OpJoin:
			if j := c.joinSrc(i); j >= 0 {
				cur[g] |= cur[c.ev[j].G]
			}
		}
		if c.overAtomic.has(i) {
			vars[atomicVar(e.Addr)] = 0 // a plain write over an atomic (see buildSync)
		}
		k := c.syncKind(int(i))
		if e.Op.IsLock() {
			k = lockSync(e.Op)
		}
		if k != trace.SyncNone {
			a := c.syncAddr(int(i))
			switch k {
			case trace.SyncAcquire:
				cur[g] |= vars[a]
			case trace.SyncRelease:
				vars[a] = cur[g]
			case trace.SyncReleaseMerge:
				vars[a] |= cur[g]
			case trace.SyncReleaseAcquire:
				old := vars[a]
				vars[a] = cur[g]
				cur[g] |= old
			}
		}
	}
	return ans
}
