// This file implements the check of a select that can never proceed
// (issue 32, item 5): a goroutine waits in a blocking select, at the
// event of the case it took in the run, and in the schedule no case can
// ever be completed.
//
// The trace records only the case a select took: its event is on that
// case's channel, and blocked (blocking.go) checks it as a plain send or
// receive — the channel unbuffered, not closed by the schedule, no
// listed goroutine its ready partner. The select's other cases are not
// in the trace. The caller gives them (Checker.SelectCases, static
// analysis: package static's Program.SelectCases), as it gives the
// receives whose value is free (partner.go): for each other case, the
// places of every operation in the program that could complete it (the
// sends and closes of a receive's channel; the receives and closes of a
// send's), its channel never escaping where an operation could hide,
// and no case proceeding with no goroutine's help (no timer, no
// default). The checker then sees that no such operation has happened
// or can: no event at one of those places is in the schedule, or is a
// listed goroutine's next event (it would be a ready partner), or is an
// event, anywhere in the run, of a goroutine that is neither listed nor
// ended (the harness's, or one not yet created, which may still act).
// Every other goroutine is listed as blocked for ever or has ended, so
// none reaches those places after the schedule. A place is matched by
// the base name of its file and its line, which can only match more
// events than the program's own operation, and so only refuse more.
//
// A non-blocking select (selectnbsend, selectnbrecv: one case and a
// default) always proceeds and is never claimed blocked.

package witness

import (
	"fmt"
	"path/filepath"

	"github.com/seer-tools/seer/trace"
)

// A SelectCase is one case of a select other than the one whose event
// the trace holds: whether it sends, and the places (File a base name,
// Line a line) of every operation of the program that could complete
// it.
type SelectCase struct {
	Send     bool
	Name     string // the channel's name, for the report; not checked
	Partners []trace.Frame
}

// SelectCases lets the events made in a blocking select (runtime.selectgo)
// be claimed blocked when cases reports the select's other cases (given
// the select's event; ok false when they are not known). Like Relax, it
// must come before any Check.
func (k *Checker) SelectCases(cases func(sel int32) (others []SelectCase, ok bool)) {
	k.selectCases = cases
}

// inSelectgo reports whether event e was made in a blocking select.
func inSelectgo(t *trace.Trace, e *trace.Event) bool {
	for _, f := range t.Stack(e.Stack) {
		if f.Func == "runtime.selectgo" {
			return true
		}
	}
	return false
}

// selectStuck checks that no case of the select in which listed event i
// was made, other than i's own, can proceed after the schedule (see the
// file comment); ran holds each goroutine's events in the schedule.
func (s *fstate) selectStuck(i int32, ran []int32, listed map[trace.GoID]int32) error {
	k, t := s.k, s.k.t
	if k.selectCases == nil {
		return fmt.Errorf("event %d is in a select, whose other cases may be ready", i)
	}
	others, ok := k.selectCases(i)
	if !ok {
		return fmt.Errorf("event %d is in a select whose other cases are not known", i)
	}
	sites := map[trace.Frame]bool{}
	for _, c := range others {
		for _, f := range c.Partners {
			sites[trace.Frame{File: filepath.Base(f.File), Line: f.Line}] = true
		}
	}
	if len(sites) == 0 {
		return nil // no operation in the program can complete another case
	}
	at := func(x int32) bool {
		e := &t.Events[x]
		if e.Op != trace.OpSend && e.Op != trace.OpRecv && e.Op != trace.OpClose {
			return false
		}
		f, ok := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT)
		return ok && sites[trace.Frame{File: filepath.Base(f.File), Line: f.Line}]
	}
	for g := 1; g < k.ng; g++ {
		evs := k.gEv[k.gOff[g]:k.gOff[g+1]]
		n := ran[g]
		_, isListed := listed[trace.GoID(g)]
		ended := n > 0 && t.Events[evs[n-1]].Op == trace.OpEnd
		switch {
		case isListed:
			evs = evs[:n+1] // its schedule and its next event
		case ended:
			evs = evs[:n]
		}
		for _, x := range evs {
			if at(x) {
				return fmt.Errorf("event %d: another case of its select may proceed: goroutine %d operates at one of its partners' places (event %d)", i, g, x)
			}
		}
	}
	return nil
}
