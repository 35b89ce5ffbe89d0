// This file implements the driver's side of the blocking kinds: the
// goroutines a recorded run left blocked (leaks, or the deadlock of a test
// that hung), the locks each blocked goroutine holds and where it took
// them, and the word for a leak's operation. Package report tells them.

package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// heldBefore returns the locks that event i's goroutine holds just
// before it, each with the acquire that took it (the latest, for a lock
// read-held twice), in the order they were taken.
func heldBefore(t *trace.Trace, i int, names *namer) []report.Held {
	g := t.Events[i].G
	type hold struct {
		acq   int
		count int
	}
	held := map[trace.ObjID]*hold{}
	var order []trace.ObjID
	for j := 0; j < i; j++ {
		e := &t.Events[j]
		if e.G != g || !e.Op.IsLock() {
			continue
		}
		h := held[e.Obj]
		switch e.Op {
		case trace.OpLock, trace.OpRLock:
			if h == nil {
				h = &hold{}
				held[e.Obj] = h
				order = append(order, e.Obj)
			}
			h.acq = j
			h.count++
		case trace.OpUnlock, trace.OpRUnlock:
			if h != nil {
				h.count--
			}
		}
	}
	var out []report.Held
	for _, l := range order {
		h := held[l]
		if h.count <= 0 {
			continue
		}
		e := &t.Events[h.acq]
		site, user := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT)
		if !user {
			continue // a lock of the library's own, taken inside it
		}
		out = append(out, report.Held{Lock: names.object(h.acq, true), Op: e.Op.String(), File: site.File, Line: site.Line, Event: h.acq})
	}
	return out
}

// observedBlocked returns the user findings for the goroutines that the
// recorded run left blocked (predict.ObservedBlocked): leaks when the run
// ended normally, deadlocks when it hung (Go's "all goroutines are
// asleep", or a test timeout), none when a panic, an exit or a signal
// stopped it. Each it reports is re-checked by the witness checker.
func observedBlocked(rec *record.RecordResult, src Source) ([]report.Finding, error) {
	fs, err := blockedWalk(rec)(context.Background())
	if err != nil {
		return nil, err
	}
	return reportObserved(rec, fs, src)
}

// blockedWalk returns the walk of rec's trace that finds the goroutines
// the run left blocked (predict.ObservedBlockedContext), none for a run
// that a panic, an exit or a signal stopped. It reads the trace's events,
// goroutines and stacks, not its values: seer check runs it beside the
// analysis's first passes (whole.go), and reportObserved checks what it
// found after the analysis.
func blockedWalk(rec *record.RecordResult) func(context.Context) ([]predict.Finding, error) {
	none := func(context.Context) ([]predict.Finding, error) { return nil, nil }
	t := rec.Trace
	hung := rec.Outcome.Result == "timeout" || strings.Contains(rec.Outcome.Message, "all goroutines are asleep")
	if !hung {
		if rec.Outcome.Result != "pass" && rec.Outcome.Result != "fail" {
			return none
		}
		for _, r := range rec.Tests {
			if r.Result == "exit" {
				return none
			}
		}
	}
	var isLeft func(trace.GoID) bool
	if !hung && len(rec.Left) > 0 {
		left := map[trace.GoID]bool{}
		for _, w := range rec.Left {
			left[w.G] = true
		}
		isLeft = func(g trace.GoID) bool { return left[g] }
	}
	return func(ctx context.Context) ([]predict.Finding, error) {
		return predict.ObservedBlockedContext(ctx, t, hung, isLeft)
	}
}

// reportObserved returns the user findings of fs, rec's observed blocking
// findings, each re-checked by the witness checker. Only the findings it
// reports are checked (those of the test a cut stopped in are not
// reported), and all of them against one checker: they claim one
// schedule, the recorded run, and a checker replays the whole trace to
// build its indices.
func reportObserved(rec *record.RecordResult, fs []predict.Finding, src Source) ([]report.Finding, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	t := rec.Trace
	// At the event cap the recording stopped and the run went on: the
	// goroutines of the test it stopped in were where the cut found
	// them, not blocked when the run ended (testsOf's leaked goroutines
	// likewise).
	cutIn := ""
	if rec.Cut {
		cutIn = testBefore(t, len(t.Events))
		// Those are dropped before the index of the whole trace is
		// made, which they would not use: at the cap, the trace's tail
		// after a cut history is read back from its park, and the first
		// walk over those pages costs the most (whole.go).
		var kept []predict.Finding
		for i := range fs {
			if test, ok := findingTest(t, &fs[i]); ok && test != cutIn {
				kept = append(kept, fs[i])
			}
		}
		if fs = kept; len(fs) == 0 {
			return nil, nil
		}
	}
	var out []report.Finding
	var checked []*predict.Finding // out[k]'s finding
	ix := newTraceIndex(t)
	for i := range fs {
		f, ok := userFinding(t, &fs[i], src, ix)
		if !ok || rec.Cut && f.Test == cutIn {
			continue
		}
		for k := range f.Accesses {
			f.Accesses[k].Blocked = predict.BlockedIn(t, f.Accesses[k].Event)
			f.Accesses[k].Variable = ""
		}
		applyHangWaits(&f, rec.Hang)
		applyHangWaits(&f, rec.Left)
		f.Package = rec.Package
		f.Variable = "" // a goroutine, not a variable
		out = append(out, f)
		checked = append(checked, &fs[i])
	}
	if k, err := predict.CheckWitnesses(t, checked, predict.Options{}); k >= 0 {
		return nil, fmt.Errorf("internal error: observed %s rejected: %v", checked[k].Kind, err)
	} else if err != nil {
		return nil, fmt.Errorf("internal error: checking the observed findings: %v", err)
	}
	return out, nil
}

// leakOp is the word for a predicted leak's event: the send that blocks
// (chansend's read starts it), the select, the call that started the
// timer ("time.After", "context.WithTimeout").
func leakOp(t *trace.Trace, i int) string {
	switch {
	case witness.SendStart(t, i):
		return "send"
	case witness.TimerFunc(t, i) != "":
		return witness.TimerFunc(t, i)
	case t.Events[i].Op == trace.OpRecv:
		return "select"
	}
	return t.Events[i].Op.String()
}
