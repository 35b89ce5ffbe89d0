// This file implements the check of a predicted leak after a select
// (Kind SelectLeak): a schedule after which a goroutine S is about to
// send on an unbuffered channel c, and the goroutine R whose select
// received that value in the run is at that select, with its other case
// ready and no sender on c.
//
// Events are s, S's next event: the start of a blocking send on c
// (chansend's read of the channel, followed in the run by the send
// itself with chansend1 on its stack, not a select's send); r, R's next
// event: a receive on c, the first event of its operation, made in a
// select; and, unless that select is a receive with a default case (the
// compiler's selectnbrecv), a third event t, R's, in the schedule and in
// the same function as r, made in a call of time.After or of
// context.WithTimeout or WithDeadline (TimerFunc): the timer of the
// select's other case, started (a context with a deadline closes its
// Done channel when its timer fires, if not before). The checker
// re-checks, against the serial specifications:
//
//   - the schedule is feasible, and s and r are S's and R's next events
//     with every read before them seeing its observed writer;
//   - c is unbuffered (the rendezvous annotation, see blocking.go), no
//     goroutine of the run ever closes it, and every receive from c in
//     the whole run is made at r's site: the select is its one receive,
//     as the static half of the claim says of every run;
//   - S has not begun its send: with c unbuffered and S's send not begun,
//     R's select finds no sender on c, unless another goroutine waits in
//     a send on c. The default case is then ready at once, and the
//     checker requires that no goroutine wait so (a ready receive wins
//     over a default); the timer's, once its duration has passed, which
//     Go lets happen before S goes on (it promises nothing of how long a
//     goroutine takes to reach its next step; if another sender waits,
//     the select picks among the ready cases at random). R then takes the
//     other case.
//
// What R does after the other case is not in the trace: that nothing
// receives from c afterwards is the static half (package static's
// Program.SelectLeak), which the checker cannot see; it checks that the
// run agrees with it.

package witness

import (
	"fmt"
	"strings"

	"github.com/seer-tools/seer/trace"
)

// SelectLeak: the schedule leaves a send on an unbuffered channel whose
// only receiver, a select, is about to take another case (leak.go).
const SelectLeak Kind = "select-leak"

// TimerFunc returns the function of the standard library that starts a
// timer which event i of t was made in: "time.After", or the function of
// package context that makes a context with a deadline
// ("context.WithTimeout", "context.WithDeadline", their Cause forms),
// the outermost if there are two; or "".
func TimerFunc(t *trace.Trace, i int) string {
	name := ""
	for _, f := range t.Stack(t.Events[i].Stack) {
		switch f.Func {
		case "time.After", "context.WithTimeout", "context.WithDeadline", "context.WithTimeoutCause", "context.WithDeadlineCause":
			name = f.Func
		}
	}
	return name
}

// ran returns how many of goroutine g's events the schedule runs.
func (s *fstate) ran(g trace.GoID) int32 {
	n := s.b[g]
	for _, j := range s.f.Witness {
		if s.k.t.Events[j].G == g {
			n++
		}
	}
	return n
}

// InRuntime reports whether e was made in the runtime itself, whose
// stacks the trace does not always give whole (a timer's heap growing
// inside time.After may show only the test's frame).
func InRuntime(t *trace.Trace, e *trace.Event) bool {
	top, ok := t.Stacks.Top(e.Stack)
	return ok && strings.HasPrefix(top.Func, "runtime.")
}

// checkSelectLeak checks a SelectLeak claim (see the file comment).
func (s *fstate) checkSelectLeak() error {
	k, t, f := s.k, s.k.t, s.f
	if len(f.Events) != 2 && len(f.Events) != 3 {
		return fmt.Errorf("select leak needs a send, a receive and perhaps a timer: %v", f.Events)
	}
	sn, r := f.Events[0], f.Events[1]
	if err := s.checkNext(f.Events[:2]); err != nil {
		return err
	}
	se, re := &t.Events[sn], &t.Events[r]
	if se.G == re.G {
		return fmt.Errorf("events %d and %d are of one goroutine", sn, r)
	}
	// The send that s starts is blocking (chansend1, not a select's
	// case): its next event in the run is the send itself.
	if !SendStart(t, sn) || k.posOf[sn]+1 >= k.gOff[se.G+1]-k.gOff[se.G] {
		return fmt.Errorf("event %d does not start a send", sn)
	}
	if x := &t.Events[k.gEv[k.gOff[se.G]+k.posOf[sn]+1]]; x.Op != trace.OpSend || x.Addr != se.Addr ||
		!hasFrame(t, x, "runtime.chansend1") || inSelect(t, x) {
		return fmt.Errorf("event %d does not start a blocking send", sn)
	}
	if re.Op != trace.OpRecv || !inSelect(t, re) {
		return fmt.Errorf("event %d is not a receive in a select", r)
	}
	if se.Addr != re.Addr {
		return fmt.Errorf("events %d and %d are on different channels", sn, r)
	}
	if !k.unbuffered(re.Obj) {
		return fmt.Errorf("the run does not show channel %d to be unbuffered", re.Obj)
	}
	if !k.opStart(int32(r)) {
		return fmt.Errorf("event %d is not the first event of its receive", r)
	}
	site := t.Site(re)
	for _, x := range k.chanEvents(re.Obj) {
		switch o := &t.Events[x]; o.Op {
		case trace.OpClose:
			return fmt.Errorf("the run closes channel %d (event %d)", re.Obj, x)
		case trace.OpRecv:
			if t.Site(o) != site {
				return fmt.Errorf("event %d receives from channel %d elsewhere than the select", x, re.Obj)
			}
		}
	}
	if len(f.Events) == 2 {
		if !hasFrame(t, re, "runtime.selectnbrecv") {
			return fmt.Errorf("event %d: its select has no timer in the schedule and no default case", r)
		}
		// The receive is ready, and the default not taken, if another
		// goroutine waits in a send on c.
		for g := 1; g < k.ng; g++ {
			n := s.ran(trace.GoID(g))
			started, done := 0, 0
			for _, x := range k.gEv[k.gOff[g] : k.gOff[g]+n] {
				switch o := &t.Events[x]; {
				case o.Addr == re.Addr && SendStart(t, int(x)):
					started++
				case o.Obj == re.Obj && o.Op == trace.OpSend:
					done++
				}
			}
			if started > (done+1)/2 {
				return fmt.Errorf("goroutine %d waits in a send on channel %d at the end of the schedule: the select's receive is ready", g, re.Obj)
			}
		}
		return nil
	}
	tm := f.Events[2]
	te := &t.Events[tm]
	if te.G != re.G || TimerFunc(t, tm) == "" || !s.inSchedule(int32(tm)) {
		return fmt.Errorf("event %d is not a timer's start (time.After, context.WithTimeout) by goroutine %d in the schedule", tm, re.G)
	}
	// The timer is this select's: R's events from it to r are all in the
	// select's function (or in the runtime), and none is at the select
	// (an earlier run of it).
	b, okb := trace.UserFrame(t.Stack(re.Stack), t.Header.GOROOT)
	if !okb || tm > r {
		return fmt.Errorf("timer %d is not started before the select", tm)
	}
	g := re.G
	for p := k.posOf[tm]; p < k.posOf[r]; p++ {
		x := &t.Events[k.gEv[k.gOff[g]+p]]
		if InRuntime(t, x) {
			continue
		}
		a, oka := trace.UserFrame(t.Stack(x.Stack), t.Header.GOROOT)
		if !oka || a.Func != b.Func || t.Site(x) == site {
			return fmt.Errorf("timer %d is not started in the select's run of its function", tm)
		}
	}
	return nil
}

// inSelect reports whether e was made inside a select statement.
func inSelect(t *trace.Trace, e *trace.Event) bool {
	for _, f := range t.Stack(e.Stack) {
		switch {
		case f.Func == "runtime.selectgo", strings.HasPrefix(f.Func, "runtime.selectnb"):
			return true
		}
	}
	return false
}
