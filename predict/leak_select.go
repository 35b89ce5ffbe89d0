// This file implements the predicted leak: a goroutine that another
// schedule leaves blocked for ever on an unbuffered send, because the
// select that received its value in the recorded run takes its other
// case — a timeout, or a default — and nothing ever receives from the
// channel again. The typical shape:
//
//	ch := make(chan int)
//	go func() { ch <- compute() }()
//	select {
//	case v := <-ch:
//		return v, nil
//	case <-time.After(d):
//		return 0, errTimeout // the sender blocks for ever
//	}
//
// In the recorded run the result came first and nobody leaked.
//
// Two halves make the claim, as the trace alone cannot: it records what
// the receiver did after the case it took, not what it would do after
// another.
//
//   - The schedule (the trace's half). Goroutine S's send on unbuffered
//     channel c was received by goroutine R's select at event r. The
//     sync-preserving closure of S's events before its send (s, chansend's
//     read of the channel) and of R's events before r (Tunç et al., PLDI
//     2023, Theorem 2; as deadlock_lockorder.go computes it) must hold neither s
//     nor r: it is then a feasible schedule under the maximal causal
//     model (per-goroutine prefixes, every read seeing its observed
//     writer, locks exclusive; Şerbănuţă, Chen and Roşu, RV 2012), after
//     which R's next step is the select and S's next step is the send,
//     not yet begun. The other case is ready there with no goroutine's
//     help: a default case at once, if no other goroutine waits in a
//     send on c (else the receive is ready, and a select takes a ready
//     case before its default); a time.After channel, or the Done
//     channel of a context made with context.WithTimeout or WithDeadline
//     (the call is in the schedule: R's event with it on its stack), once
//     its duration has passed (if another sender waits on c by then, the
//     select picks one of its ready cases at random, the timer's among
//     them; R too may be delayed until the timer has fired). Go gives no
//     guarantee about how long S takes to reach its send: the
//     scheduler, the operating system or the collector may delay S past
//     any duration while R's timer fires, as the race detector likewise
//     assumes of any two unordered events. So
//     in a schedule the program can take, R's select finds c without a
//     sender and the other case ready, and takes it.
//   - What happens after (the static half, static.Program.SelectLeak via
//     Options.SelectLeak). The select is the only place that ever
//     receives from c: c is made unbuffered in the select's function,
//     used there only by the select (whose other cases never lead back
//     to it: a collector's loop that a timeout leaves qualifies) and
//     otherwise only handed to closures and functions that do nothing
//     with it but send; it is never closed, stored or returned. Once R
//     took the other case, no goroutine can receive from c, and S's send
//     blocks for ever.
//
// A select for which Options.SelectLeak does not hold is not judged:
// soundness first, say nothing. The finding (Kind leak, Predicted)
// lists in Events S's send start s, R's receive r, and the timer's event
// when the other case is a timer; its schedule is the closure in observed
// order. The checker (package witness, leak.go) re-checks the schedule
// against the serial specifications and the state: s and r next, c
// unbuffered and never closed, every receive of c in the run made by that
// select, and the timer started or the select non-blocking.
//
// Contract: it reports only sends whose receiving select Options.SelectLeak
// proves the channel's only receiver and whose sync-preserving closure
// holds neither the send nor the select; it builds the witness from that
// closure in observed order (deadlockWitness), with no search.

package predict

import (
	"slices"
	"strings"
	"time"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// leakLayer finds and proves predicted leaks after a select. Its funnel
// row (Stage "leak"): Leaks counts the select receives on unbuffered
// channels, from a sender, that static analysis proves are the channel's
// only receive; LeakSites the leaks proved, one per pair of sites.
func (e *engine) leakLayer() ([]Finding, Stage, error) {
	t0 := time.Now()
	if e.opts.SelectLeak == nil {
		return nil, Stage{Name: "leak", LeakNoSource: true}, nil
	}
	var n leakCounts
	c, t := e.c, e.t
	co := newChanOps(c)
	chans := make([]trace.ObjID, 0, len(co.evs))
	for ch := range co.evs {
		if co.unbuffered[ch] {
			chans = append(chans, ch)
		}
	}
	slices.Sort(chans)
	var out []Finding
	proved := map[patternKey]int{} // pattern of sites -> index in out
	static := map[int32]bool{}     // per site of a select receive: static's answer
	cut := make([]int32, len(c.byG))
scan:
	for _, ch := range chans {
		if slices.ContainsFunc(co.evs[ch], func(x int32) bool { return co.op(x) == trace.OpClose }) {
			continue
		}
		evs := co.evs[ch]
		for k, r := range evs {
			if err := e.ctx.Err(); err != nil {
				return nil, n.stage(len(out), time.Since(t0)), err
			}
			if c.ev[r].Op != trace.OpRecv || !c.opStart(r) || !inSelect(t, r) {
				continue
			}
			_, so := partner(c, evs, k)
			if so < 0 || c.ev[so].Op != trace.OpSend || inSelect(t, so) || c.pos[so] < 2 {
				continue
			}
			s := c.at(int32(c.ev[so].G), c.pos[so]-1)
			if !witness.SendStart(t, int(s)) || c.ev[s].Addr != c.ev[r].Addr {
				continue
			}
			sr := c.site(r)
			key := newPatternKey(KindLeak, c.site(s), sr)
			if at, ok := proved[key]; ok {
				out[at].Count++
				continue
			}
			ok, seen := static[sr]
			if !seen {
				ok = e.opts.SelectLeak(t, int(r))
				static[sr] = ok
			}
			if !ok {
				continue
			}
			tm := timerOf(t, c, r)
			if tm < 0 && !nonBlockingRecv(t, r) {
				continue
			}
			if n.receives >= maxBlockingTries {
				break scan
			}
			n.receives++
			if e.cone == nil {
				if err := e.needCone(); err != nil {
					return nil, n.stage(len(out), time.Since(t0)), err
				}
			}
			if !e.deadlockClosure([]int32{s, r}, cut) {
				continue
			}
			if tm < 0 && e.sendWaiting(cut, r) {
				continue // the receive is ready: the default is not taken
			}
			evs := []int32{s, r}
			if tm >= 0 {
				evs = append(evs, tm)
			}
			fd := e.deadlockWitness(evs, cut)
			fd.Kind, fd.Count = KindLeak, 1
			proved[key] = len(out)
			out = append(out, fd)
		}
	}
	return out, n.stage(len(out), time.Since(t0)), nil
}

// sendWaiting reports whether a goroutine of cut has begun a send on
// the channel of receive r and not finished it: more of chansend's reads
// of the channel than sends done (two events each).
func (e *engine) sendWaiting(cut []int32, r int32) bool {
	c, t := e.c, e.t
	ev := &c.ev[r]
	for g := 1; g < len(c.byG); g++ {
		started, done := 0, 0
		for p := int32(1); p <= cut[g]; p++ {
			i := c.at(int32(g), p)
			switch o := &c.ev[i]; {
			case o.Addr == ev.Addr && witness.SendStart(t, int(i)):
				started++
			case o.Obj == ev.Obj && o.Op == trace.OpSend:
				done++
			}
		}
		if started > (done+1)/2 {
			return true
		}
	}
	return false
}

// timerOf returns the latest event of r's goroutine before r made in a
// call that starts a timer (witness.TimerFunc: time.After,
// context.WithTimeout) from the function r's select is in, in the same
// activation (the scan skips the runtime's events and stops at an event
// of another user function, or at one of the same select), or -1.
func timerOf(t *trace.Trace, c *ctp, r int32) int32 {
	g := int32(c.ev[r].G)
	fn := userFunc(t, r)
	if fn == "" {
		return -1
	}
	site := c.site(r)
	for p := c.pos[r] - 1; p >= 1 && p > c.pos[r]-maxTimerScan; p-- {
		i := c.at(g, p)
		if witness.InRuntime(t, &t.Events[i]) {
			continue
		}
		if userFunc(t, i) != fn || c.site(i) == site {
			return -1
		}
		if witness.TimerFunc(t, int(i)) != "" {
			return i
		}
	}
	return -1
}

// maxTimerScan bounds the events timerOf looks back through.
const maxTimerScan = 4096

// userFunc returns the function of event i's first frame in the user's
// code, or "".
func userFunc(t *trace.Trace, i int32) string {
	f, ok := t.Stacks.UserFrameOf(t.Events[i].Stack, t.Header.GOROOT)
	if !ok {
		return ""
	}
	return f.Func
}

// nonBlockingRecv reports whether event i was made in a select of one
// receive and a default case (the compiler's selectnbrecv).
func nonBlockingRecv(t *trace.Trace, i int32) bool {
	for f := range t.Stacks.All(t.Events[i].Stack) {
		if strings.HasPrefix(f.Func, "runtime.selectnbrecv") {
			return true
		}
	}
	return false
}
