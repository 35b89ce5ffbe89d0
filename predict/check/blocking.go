// This file implements what a report says of the blocking kinds: the
// title of a deadlock (a lock-order cycle, or goroutines blocked on
// channels and locks), the locks each blocked goroutine holds and where
// it took them, and the sentences that tell it.

package check

import (
	"fmt"
	"strings"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// Title names f's kind in prose: "data race", "atomicity violation",
// "lock-order deadlock" (every blocked operation is a lock acquire) or
// "deadlock" (some goroutine waits on a channel).
func Title(f *Finding) string {
	switch f.Kind {
	case "leak":
		return "goroutine leak"
	case "deadlock":
		if !f.Predicted {
			return "deadlock"
		}
		for _, a := range f.Accesses {
			if a.Op != "lock" && a.Op != "rlock" {
				return "deadlock"
			}
		}
		return "lock-order deadlock"
	}
	return KindTitle(f.Kind)
}

// heldBefore returns the locks that event i's goroutine holds just
// before it, each with the acquire that took it (the latest, for a lock
// read-held twice), in the order they were taken.
func heldBefore(t *trace.Trace, i int, names *namer) []Held {
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
	var out []Held
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
		out = append(out, Held{Lock: names.object(h.acq, true), Op: e.Op.String(), File: site.File, Line: site.Line, Event: h.acq})
	}
	return out
}

// HoldSentences tells, for a deadlock, where each blocked goroutine took
// the locks it holds while it waits: "goroutine 10 holds mu, locked at
// x.go:20, while it waits to send on ch at :21".
func HoldSentences(f *Finding, rel func(string) string) []string {
	if f.Kind != "deadlock" {
		return nil
	}
	var out []string
	for _, a := range f.Accesses {
		if len(a.Holds) == 0 {
			continue
		}
		var parts []string
		file := ""
		at := func(s string, line int) string {
			if s != "" && s == file {
				return fmt.Sprintf(":%d", line)
			}
			file = s
			return position(s, line, rel)
		}
		for _, h := range a.Holds {
			how := "locked"
			if h.Op == "rlock" {
				how = "read-locked"
			}
			lock := h.Lock
			if lock == "" {
				lock = "a lock"
			}
			parts = append(parts, fmt.Sprintf("%s, %s at %s", lock, how, at(h.File, h.Line)))
		}
		on := ""
		if a.Variable != "" {
			on = " " + a.Variable
		}
		out = append(out, fmt.Sprintf("goroutine %d holds %s, while it waits to %s%s at %s",
			a.Goroutine, joinAnd(parts), waitVerb(a.Op), on, at(a.File, a.Line)))
	}
	return out
}

// waitVerb is what a goroutine blocked in op waits to do.
func waitVerb(op string) string {
	switch op {
	case "lock":
		return "lock"
	case "rlock":
		return "read-lock"
	case "send":
		return "send on"
	case "recv":
		return "receive from"
	}
	return op
}

// observedBlocked returns the user findings for the goroutines that the
// recorded run left blocked (predict.ObservedBlocked): leaks when the run
// ended normally, deadlocks when it hung (Go's "all goroutines are
// asleep", or a test timeout), none when a panic, an exit or a signal
// stopped it. Each is re-checked by the witness checker.
func observedBlocked(rec *record.RecordResult, src Source) ([]Finding, error) {
	t := rec.Trace
	hung := rec.Outcome.Result == "timeout" || strings.Contains(rec.Outcome.Message, "all goroutines are asleep")
	if !hung {
		if rec.Outcome.Result != "pass" && rec.Outcome.Result != "fail" {
			return nil, nil
		}
		for _, r := range rec.Tests {
			if r.Result == "exit" {
				return nil, nil
			}
		}
	}
	fs := predict.ObservedBlocked(t, hung)
	if len(fs) == 0 {
		return nil, nil
	}
	// At the event cap the recording stopped and the run went on: the
	// goroutines of the test it stopped in were where the cut found
	// them, not blocked when the run ended (testsOf's leaked goroutines
	// likewise).
	cutIn := ""
	if rec.Cut {
		cutIn = testBefore(t, len(t.Events))
	}
	var out []Finding
	ix := newTraceIndex(t)
	for i := range fs {
		if err := predict.CheckWitness(t, &fs[i], predict.Options{}); err != nil {
			return nil, fmt.Errorf("internal error: observed %s rejected: %v", fs[i].Kind, err)
		}
		f, ok := userFinding(t, &fs[i], src, ix)
		if !ok || rec.Cut && f.Test == cutIn {
			continue
		}
		for k := range f.Accesses {
			f.Accesses[k].Blocked = predict.BlockedIn(t, f.Accesses[k].Event)
			f.Accesses[k].Variable = ""
		}
		f.Package = rec.Package
		f.Variable = "" // a goroutine, not a variable
		out = append(out, f)
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

// LeakSentence says what a predicted leak's schedule does, for the
// report and the hover: the select takes its other case, and the send
// waits for ever.
func LeakSentence(f *Finding, rel func(string) string) string {
	if f.Kind != "leak" || !f.Predicted || len(f.Accesses) < 2 {
		return ""
	}
	s, r := f.Accesses[0], f.Accesses[1]
	on := ""
	if s.Variable != "" {
		on = " " + s.Variable
	}
	other := "its default case"
	if len(f.Accesses) > 2 {
		other = fmt.Sprintf("the case of the timer that %s started at %s (it fires first: Go promises nothing of how long goroutine %d takes to reach its send)",
			f.Accesses[2].Op, position(f.Accesses[2].File, f.Accesses[2].Line, rel), s.Goroutine)
	}
	return fmt.Sprintf("in a schedule that nothing rules out, goroutine %d's select at %s finds no sender on%s and takes %s; goroutine %d's send at %s then waits for ever, since that select is the channel's only receive",
		r.Goroutine, position(r.File, r.Line, rel), on, other, s.Goroutine, position(s.File, s.Line, rel))
}

// ObservedBlocking reports whether f is a blocking bug that the recorded
// run itself showed: a leak, or a deadlock it hung on.
func ObservedBlocking(f *Finding) bool {
	return f.Kind == "leak" && !f.Predicted || f.Kind == "deadlock" && !f.Predicted
}

// BlockedSentences tells where each goroutine of an observed leak or
// deadlock was left blocked: "goroutine 12 (created at x.go:21) never
// ended: blocked in send at x.go:27", or when the run does not show the
// blocking call, its last recorded operation.
func BlockedSentences(f *Finding, rel func(string) string) []string {
	if !ObservedBlocking(f) {
		return nil
	}
	var out []string
	for _, a := range f.Accesses {
		s := fmt.Sprintf("goroutine %d", a.Goroutine)
		if len(a.Created) > 0 && strings.HasPrefix(a.Created[0].Func, "testing.") {
			s += " (the test's own)"
		} else if fr, ok := firstUser(a.Created); ok {
			s += fmt.Sprintf(" (created at %s)", position(fr.File, fr.Line, rel))
		}
		if a.Blocked != "" {
			s += fmt.Sprintf(" never ended: blocked %s at %s", blockedPhrase(a.Blocked), position(a.File, a.Line, rel))
		} else {
			s += fmt.Sprintf(" never ended: its last recorded operation is %s at %s", a.Op, position(a.File, a.Line, rel))
			if len(a.Stack) > 0 {
				if fr, ok := firstUser(a.Stack); ok {
					s += ", in " + fr.Func
				}
			}
			s += "; the call it blocks in (a receive, a select with no send case, a sleep or a system call leave no event) comes after it"
		}
		out = append(out, s)
	}
	if f.Count > len(f.Accesses) {
		out = append(out, fmt.Sprintf("%d goroutines of the test stopped there", f.Count))
	}
	return out
}

// firstUser returns the first frame of frames in the user's code: the
// first that is not of the runtime, package sync or the testing package.
func firstUser(frames []Frame) (Frame, bool) {
	for _, fr := range frames {
		if !strings.HasPrefix(fr.Func, "runtime.") && !strings.HasPrefix(fr.Func, "sync.") &&
			!strings.HasPrefix(fr.Func, "internal/") && !strings.HasPrefix(fr.Func, "sync/atomic.") &&
			!strings.HasPrefix(fr.Func, "testing.") {
			return fr, true
		}
	}
	return Frame{}, false
}

// blockedPhrase says what a goroutine blocked in op (predict.BlockedIn)
// waits to do.
func blockedPhrase(op string) string {
	switch op {
	case "send":
		return "sending on a channel"
	case "select":
		return "in a select"
	case "lock":
		return "locking a mutex"
	case "rlock":
		return "read-locking a RWMutex"
	case "cond-wait":
		return "in Cond.Wait"
	case "wait":
		return "in WaitGroup.Wait"
	}
	return "in " + op
}
