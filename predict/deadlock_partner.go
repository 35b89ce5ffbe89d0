// This file implements the taken-partner deadlock (issue 32, channel
// partners): on an unbuffered channel with several senders or
// receivers, a schedule in which another goroutine takes the partner
// that a goroutine had in the run, so that it waits for ever. The
// typical shape, a goroutine that handles one message and exits:
//
//	ch := make(chan int)
//	go func() { <-ch }()         // P: takes one value
//	go func() { ch <- work() }() // H
//	ch <- 1                      // G: P took it in the run
//	v := <-ch                    // G: H's value
//
// In the run G's send met P's receive, and H's send G's receive. In a
// schedule where H sends first, P takes H's value and ends, and G's send
// has no partner left: G waits for ever.
//
// The candidates: two operations X (goroutine G) and Y (goroutine H) of
// one direction on an unbuffered channel c, not in selects, whose
// partners in the run are P (X's, goroutine Gp, not H) and Q (Y's). The
// schedule: the sync-preserving closure of the events before X, Y, P
// and Q (Tunç et al., PLDI 2023, Theorem 2; as deadlock_lockorder.go
// computes it) must hold none of them; every goroutine is then extended
// as far as the closure allows without running past them
// (deadlock_channel.go's extendCut). There Y and P meet, their four
// events in a row (witness/partner.go: the one rendezvous the checker
// lets pair differently from the run; either may be the one parked,
// whichever it was in the run). Then H and Gp run to their end, which may
// hold only steps that need nothing of another goroutine (tailStep:
// reads of memory no other goroutine writes, writes, WaitGroup.Done,
// unlocks, the exit), or a test's own goroutine to its last event of the
// user's code, which only the leak flavour accepts (tailEnd,
// leak_selectstuck.go). At the end, every
// goroutine that can still act must wait for ever, G at X first
// (allBlocked): the claim of the channel deadlocks, which the checker's
// blocking.go re-checks.
//
// A receive that takes another send takes another value, and what its
// goroutine then does is not in the trace. So the re-paired receive (P's
// when X is a send, Y's when X is a receive) must be one whose value
// static analysis proves decides nothing (Options.RecvValueFree: it is
// discarded, or of a zero-sized type); without that, or without a
// source, nothing is reported.
//
// A victim X in a select is judged with the select's other cases that
// static analysis lists (deadlock_select.go). Not covered: goroutines whose end after the rendezvous needs another
// goroutine (an acquire, a read of shared memory, a channel operation);
// a goroutine left blocked while the test returns is reported only when
// every goroutine of the test that has not ended waits for ever too, as
// a deadlock (the blocking claim), or, when the victim is not the test's
// own goroutine and the test's own goroutine has ended or returned, as a
// predicted leak (leak_selectstuck.go).
//
// Contract: it reports only schedules whose cut is closed under the lock
// rule and extended to a fixpoint, followed by the one re-paired
// rendezvous and the two goroutines' ends, at whose end every goroutine
// that can still act waits for ever; no search beyond that.

package predict

import "github.com/seer-tools/seer/trace"

// maxPartnerTries bounds the operations of one channel, per pair of
// sites of an operation and its partner, that takenPartners pairs up;
// maxPartnerOps all of one channel's (a work queue's thousands of
// rendezvous would otherwise be paired with each other).
const (
	maxPartnerTries = 4
	maxPartnerOps   = 256
)

// chanOp is one operation on an unbuffered channel: its first event and
// its partner's first event in the run.
type chanOp struct{ first, partner int32 }

// takenPartners finds the taken-partner deadlocks (see the file
// comment). Candidates count in the layer's row as its other patterns
// do.
func (l *chanLayer) takenPartners(chans []trace.ObjID) error {
	e, co, n := l.e, l.co, &l.n
	if e.opts.RecvValueFree == nil {
		return nil
	}
	c, t := e.c, e.t
	free := map[int32]bool{} // per site of a receive: static's answer
	valueFree := func(r int32) bool {
		site := c.site(r)
		ok, seen := free[site]
		if !seen {
			ok = e.opts.RecvValueFree(t, int(r))
			free[site] = ok
		}
		return ok
	}
	tried := map[patternKey]int{} // closures per pattern of sites
	for _, ch := range chans {
		if !co.unbuffered[ch] {
			continue
		}
		evs := co.evs[ch]
		var ops []chanOp
		perSites := map[[2]int32]int{} // operations kept per pair of sites
		for k, x := range evs {
			if co.op(x) == trace.OpClose || !c.opStart(x) || inSelect(t, x) && !e.selectVictim(x) {
				continue
			}
			_, p := partner(c, evs, k)
			if p < 0 || inSelect(t, p) {
				continue
			}
			sites := [2]int32{c.site(x), c.site(p)}
			if perSites[sites] >= maxPartnerTries || len(ops) >= maxPartnerOps {
				continue
			}
			perSites[sites]++
			ops = append(ops, chanOp{x, p})
		}
		for _, x := range ops {
			for _, y := range ops {
				if err := e.ctx.Err(); err != nil {
					return err
				}
				g, h, gp := c.ev[x.first].G, c.ev[y.first].G, c.ev[x.partner].G
				if c.ev[y.first].Op != c.ev[x.first].Op || h == g || h == gp || inSelect(t, y.first) {
					continue
				}
				recv := x.partner
				if c.ev[x.first].Op == trace.OpRecv {
					recv = y.first
				}
				key := newPatternKey(KindDeadlock, c.site(x.first), c.site(y.first), c.site(x.partner))
				if l.proved[key] || !valueFree(recv) {
					continue
				}
				if tried[key] >= maxPartnerTries {
					continue
				}
				tried[key]++
				n.patterns++
				if !e.partnerTails(x, y) {
					continue // no witness whatever the cut: no closure, no cone
				}
				if n.closures >= maxBlockingTries {
					return nil
				}
				n.closures++
				if e.cone == nil {
					if err := e.needCone(); err != nil {
						return err
					}
				}
				if fd, ok := e.partnerWitness(co, x, y); ok {
					l.out = append(l.out, fd)
					l.proved[key] = true
				}
			}
		}
	}
	return nil
}

// partnerWitness builds the schedule of a taken partner: X's partner
// meets Y, and X waits (see the file comment).
func (e *engine) partnerWitness(co *chanOps, x, y chanOp) (Finding, bool) {
	c := e.c
	evs := []int32{x.first, y.first, x.partner}
	limit := make([]int32, len(c.byG))
	for g := range limit {
		limit[g] = int32(len(c.byG[g]))
	}
	for _, i := range append(evs, y.partner) {
		g := c.ev[i].G
		limit[g] = min(limit[g], c.pos[i]-1)
	}
	// Y's partner in the run is held back by the limit, not the closure:
	// it is often G's own later operation, whose cone holds X.
	cut := make([]int32, len(c.byG))
	if !e.deadlockClosure(evs, cut) || cut[c.ev[y.partner].G] > limit[c.ev[y.partner].G] || !e.extendCut(cut, limit) {
		return Finding{}, false
	}
	g, h, gp := int32(c.ev[x.first].G), int32(c.ev[y.first].G), int32(c.ev[x.partner].G)
	if cut[g] != c.pos[x.first]-1 || cut[h] != c.pos[y.first]-1 || cut[gp] != c.pos[x.partner]-1 {
		return Finding{}, false
	}
	// The rendezvous: A's two events around B's, A the one whose
	// operation began with a release in the run (it arrived second there)
	// if either did.
	a, b := y.first, x.partner
	if c.ev[a].Sync != trace.SyncRelease && c.ev[b].Sync == trace.SyncRelease {
		a, b = b, a
	}
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	if int(c.pos[a]) >= len(c.byG[ga]) || int(c.pos[b]) >= len(c.byG[gb]) {
		return Finding{}, false
	}
	witness := []int{int(a), int(b), int(c.at(gb, c.pos[b]+1)), int(c.at(ga, c.pos[a]+1))}
	end := append([]int32(nil), cut...)
	// Then H and Gp run to their exits, touching only their own memory,
	// or a test's own goroutine until it has returned (leak_selectstuck.go).
	for _, q := range []int32{h, gp} {
		first := c.pos[y.first]
		if q == gp {
			first = c.pos[x.partner]
		}
		last := e.tailEnd(q, first+1)
		if last < 0 {
			return Finding{}, false
		}
		for p := first + 2; p <= last; p++ {
			witness = append(witness, int(c.at(q, p)))
		}
		end[q] = last
	}
	kind := KindLeak
	waiting, ok := e.leakWaiting(end, x.first, co) // leak_selectstuck.go
	if !ok {
		kind = KindDeadlock
		waiting, ok = e.allBlocked(end, []int32{x.first}, co, -1)
	}
	if !ok {
		return Finding{}, false
	}
	fd := c.cutThen(cut, witness, waiting, h, gp)
	fd.Kind, fd.TestReturns = kind, kind == KindLeak
	fd.Stuck = e.stuckSelects(waiting) // deadlock_select.go
	return fd, true
}

// partnerTails reports whether H, after Y, and Gp, after X's partner,
// each have the end that partnerWitness runs (tailEnd): a question of
// their own events, not of the cut, asked before the closure so that a
// candidate that fails it costs neither a closure nor the causal cone
// (whose pass over the whole trace groupcache's TestNoDedup made for two
// such candidates alone: its goroutine that sends to both receivers
// sends again after the first send).
func (e *engine) partnerTails(x, y chanOp) bool {
	c := e.c
	h, gp := int32(c.ev[y.first].G), int32(c.ev[x.partner].G)
	return e.tailEnd(h, c.pos[y.first]+1) >= 0 && e.tailEnd(gp, c.pos[x.partner]+1) >= 0
}

// tailEnd returns how many events goroutine q runs in the witness, its
// events after the first done ones all tail steps: all of them, to its
// exit; or, when that fails and q is a test's own goroutine, up to its
// last event with a frame of the user's code (it has then returned from
// the test, which only the leak flavour, leak_selectstuck.go, accepts).
// -1 when neither.
func (e *engine) tailEnd(q, done int32) int32 {
	c := e.c
	steps := func(last int32) bool {
		for p := done + 1; p <= last; p++ {
			if !e.tailStep(c.at(q, p)) {
				return false
			}
		}
		return true
	}
	last := int32(len(c.byG[q]))
	if c.ev[c.at(q, last)].Op == trace.OpEnd && steps(last) {
		return last
	}
	if !testOwn(e.t, trace.GoID(q)) {
		return -1
	}
	if last = e.lastUser(q, done); !steps(last) { // leak_selectstuck.go
		return -1
	}
	return last
}

// tailStep reports whether event i may run, after a re-paired
// rendezvous, in the end of its goroutine that the witness runs: it
// needs nothing another goroutine did. Its exit; an access or atomic
// that reads only memory no other goroutine writes (a write is seen by
// no read of the schedule after it: every other goroutine has stopped);
// a WaitGroup.Done or an unlock, releases that are always enabled (what
// they release is judged by allBlocked at the end).
func (e *engine) tailStep(i int32) bool {
	switch ev := &e.c.ev[i]; {
	case ev.Op == trace.OpEnd, ev.Op == trace.OpWGDone, ev.Op == trace.OpUnlock, ev.Op == trace.OpRUnlock:
		return true
	case ev.Op.IsAccess() || ev.Op.IsAtomic():
		return !isRead(ev.Op) || !e.m.shared(i)
	}
	return false
}
