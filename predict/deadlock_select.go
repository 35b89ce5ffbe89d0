// This file implements the select that can never proceed (issue 32,
// item 5): in a schedule, every case of a goroutine's blocking select
// has lost its partner — the goroutines that could complete it have
// ended or wait for ever elsewhere — so the goroutine waits in the
// select for ever. The typical shape, the taken partner
// (deadlock_partner.go) of an operation made in a select:
//
//	ch := make(chan int)
//	quit := make(chan struct{})
//	go func() { <-ch }()         // P: takes one value
//	go func() { ch <- work() }() // H
//	select {                     // G: P took ch <- 1 in the run
//	case ch <- 1:
//	case <-quit:                 // nothing ever closes quit
//	}
//	<-ch                         // G: H's value
//
// In a schedule where H sends first and P takes H's value, G's select
// has no partner on ch, and none can ever come on quit.
//
// The trace records only the case the select took (its event, from
// runtime.selectgo, is on ch). The schedule is the taken partner's: a
// sync-preserving closure (cut.go) extended to a fixpoint, the one
// re-paired rendezvous, and the ends of the two goroutines that met;
// allBlocked then judges the select's event as a plain operation on ch
// (no partner ready, ch not closed) and, through selectStuck, its other
// cases: static analysis lists each with every place in the program
// that could complete it (Options.SelectCases, package static's
// Program.SelectCases), and none of those places may have run in the
// schedule, be a waiting goroutine's next step, or belong to a goroutine
// that may still act (the harness's, or one not yet created). The
// checker (witness/select.go) re-checks exactly that with the same list,
// which it trusts as it trusts the receives whose value is free.
//
// The finding is the taken partner's (Kind deadlock, Predicted): every
// goroutine of the test that can still act waits for ever, the select's
// goroutine first. When the select's goroutine is not the test's own and
// the test's own goroutine has ended or returned in the schedule, every
// other goroutine of the test ended or waiting for ever, it is a
// predicted leak instead (leak_selectstuck.go): the test returns.
//
// Not covered: selects with a default or a timer case (they always
// proceed); selects whose channels escape or come from a caller that is
// not known (Program.SelectCases answers unknown; it follows parameters
// and captures to their makes when every call is known); a select whose
// partner in the run was itself in a select.

package predict

import (
	"path/filepath"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// selectVictim reports whether operation x, made in a select, may be the
// one left waiting by a taken partner: it is in a blocking select
// (runtime.selectgo) and static analysis can list the select's cases.
func (e *engine) selectVictim(x int32) bool {
	if e.opts.SelectCases == nil {
		return false
	}
	for f := range e.t.Stacks.All(e.t.Events[x].Stack) {
		if f.Func == "runtime.selectgo" {
			return true
		}
	}
	return false
}

// selectStuck reports whether no case of the select in which waiting
// event i was made, other than i's own, can proceed after cut, every
// goroutine's next event in waiting being one it waits at for ever (see
// the file comment; witness/select.go checks the same).
func (e *engine) selectStuck(cut []int32, waiting []int32, i int32) bool {
	if !e.selectVictim(i) {
		return false
	}
	others, ok := e.opts.SelectCases(e.t, int(i))
	if !ok {
		return false
	}
	sites := map[trace.Frame]bool{}
	for _, k := range others {
		for _, f := range k.Partners {
			sites[trace.Frame{File: filepath.Base(f.File), Line: f.Line}] = true
		}
	}
	if len(sites) == 0 {
		return true
	}
	c, t := e.c, e.t
	at := func(x int32) bool {
		ev := &c.ev[x]
		if ev.Op != trace.OpSend && ev.Op != trace.OpRecv && ev.Op != trace.OpClose {
			return false
		}
		f, ok := t.Stacks.UserFrameOf(t.Events[x].Stack, t.Header.GOROOT)
		return ok && sites[trace.Frame{File: filepath.Base(f.File), Line: f.Line}]
	}
	waits := make(map[int32]bool, len(waiting))
	for _, w := range waiting {
		waits[int32(c.ev[w].G)] = true
	}
	for g := 1; g < len(c.byG); g++ {
		last := int32(len(c.byG[g])) // the whole run: the goroutine may still act
		switch n := cut[g]; {
		case waits[int32(g)]:
			last = n + 1
		case n > 0 && c.ev[c.at(int32(g), n)].Op == trace.OpEnd:
			last = n
		}
		for p := int32(1); p <= last; p++ {
			if at(c.at(int32(g), p)) {
				return false
			}
		}
	}
	return true
}

// selectCases returns the checker's Checker.SelectCases for trace t, or
// nil.
func (o *Options) selectCases(t *trace.Trace) func(sel int32) ([]witness.SelectCase, bool) {
	if o.SelectCases == nil {
		return nil
	}
	f := o.SelectCases
	return func(sel int32) ([]witness.SelectCase, bool) { return f(t, int(sel)) }
}

// stuckSelects returns the waiting events made in a select, with the
// select's other cases (Finding.Stuck).
func (e *engine) stuckSelects(waiting []int32) []StuckSelect {
	var out []StuckSelect
	for _, i := range waiting {
		if !e.selectVictim(i) {
			continue
		}
		if others, ok := e.opts.SelectCases(e.t, int(i)); ok {
			out = append(out, StuckSelect{Event: int(i), Others: others})
		}
	}
	return out
}
