// This file implements the misuse a run died of but whose failing
// operation the trace cannot hold: a close of a closed channel. The
// runtime's closechan panics before it tells the race runtime of the
// close, so the trace ends with the first close and nothing of the
// second; the test's output has it, in the panic's goroutine stack
// (record.RecordResult.Panic).

package check

import (
	"strings"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// observedCloseOfClosed returns the observed close-of-closed of a run
// that died of "close of closed channel": the second close at the first
// frame of the panic's stack below the panic (and outside the runtime),
// and, when the user's code closed exactly one channel in the run (so
// that it is the one closed twice), the first close, from the trace. The panic is the
// runtime's own proof; no schedule is needed, and none is claimed.
func observedCloseOfClosed(rec *record.RecordResult, src Source) []report.Finding {
	if rec.Outcome.Result != "panic" || !strings.HasPrefix(rec.Outcome.Message, "close of closed channel") {
		return nil
	}
	site, stack, ok := panicSite(rec.Panic)
	if !ok {
		return nil
	}
	t := rec.Trace
	out := report.Finding{Kind: predict.KindCloseOfClosed, Count: 1, Package: rec.Package, Test: panickedTest(rec)}
	first := -1
	chans := map[trace.ObjID]bool{}
	for i := range t.Events {
		// A close with no frame of the user's code is of a channel of the
		// library's own (the testing harness's, the runtime's), which the
		// user's code cannot close.
		if e := &t.Events[i]; e.Op == trace.OpClose {
			if _, user := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT); user {
				chans[e.Obj] = true
				first = i
			}
		}
	}
	if len(chans) == 1 {
		pf := predict.Finding{Kind: predict.KindCloseOfClosed, Events: []int{first}, Count: 1}
		if f, ok := userFinding(t, &pf, src, newTraceIndex(t)); ok {
			out.Accesses = f.Accesses
			out.Variable = f.Variable
			if out.Test == "" {
				out.Test = f.Test
			}
		}
	}
	a := report.Access{File: site.File, Line: site.Line, Op: "close", Goroutine: panickedGoroutine(t, site, rec.Panic), Stack: toFrames(stack), Event: -1}
	if src != nil && t.Header.Format != "std" {
		src.Refine(&a, false, 0)
	}
	if len(out.Accesses) > 0 && out.Accesses[0].Variable != "" {
		a.Variable = out.Accesses[0].Variable
	}
	if out.Variable == "" {
		out.Variable = a.Variable
	}
	out.Accesses = append(out.Accesses, a)
	return []report.Finding{out}
}

// panicSite returns the frame at which a panic's stack (innermost first)
// raised it: the first frame below the last call of panic that is not
// the runtime's, and the stack from there on.
func panicSite(stack []trace.Frame) (trace.Frame, []trace.Frame, bool) {
	from := 0
	for k, f := range stack {
		if f.Func == "panic" || f.Func == "runtime.gopanic" {
			from = k + 1
		}
	}
	for k := from; k < len(stack); k++ {
		if f := stack[k]; !strings.HasPrefix(f.Func, "runtime.") && !strings.HasPrefix(f.Func, "created by ") && f.File != "" {
			rest := stack[k:]
			if n := len(rest); strings.HasPrefix(rest[n-1].Func, "created by ") {
				rest = rest[:n-1]
			}
			return f, rest, true
		}
	}
	return trace.Frame{}, nil, false
}

// panickedTest returns the top-level test that the run's panic ended:
// the test function on the panic's stack, or the test the run reports
// as panicked.
func panickedTest(rec *record.RecordResult) string {
	for _, f := range rec.Panic {
		if name := trace.TestName(f.Func); name != "" {
			return name
		}
	}
	for _, r := range rec.Tests {
		if r.Result == "panic" {
			name, _, _ := strings.Cut(r.Name, "/")
			return name
		}
	}
	return ""
}

// panickedGoroutine returns the goroutine of t that was running site's
// function when the run ended — the one that never ended and whose last
// event in the user's code (the panic's own events come after) has it on
// its stack, or, failing that, the one created at the go statement that
// ends the panic's stack — if exactly one was, else 0.
func panickedGoroutine(t *trace.Trace, site trace.Frame, stack []trace.Frame) int {
	last := make([]int, len(t.Goroutines)) // per goroutine: 1 + its last event with a user frame
	ended := make([]bool, len(t.Goroutines))
	for i := range t.Events {
		e := &t.Events[i]
		if e.Op == trace.OpEnd {
			ended[e.G] = true
		} else if _, user := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT); user {
			last[e.G] = i + 1
		}
	}
	found := 0
	for g := 1; g < len(last); g++ {
		if last[g] == 0 || ended[g] {
			continue
		}
		e := &t.Events[last[g]-1]
		for _, f := range t.Stack(e.Stack) {
			if f.Func == site.Func && f.File == site.File {
				if found != 0 {
					return 0
				}
				found = g
				break
			}
		}
	}
	if found != 0 || len(stack) == 0 {
		return found
	}
	// A goroutine that made no event in the user's code: the one that
	// never ended, created at the panic's go statement, if only one was.
	gs := stack[len(stack)-1]
	if !strings.HasPrefix(gs.Func, "created by ") {
		return 0
	}
	for g := 1; g < len(t.Goroutines); g++ {
		if ended[g] {
			continue
		}
		if f, ok := trace.UserFrame(t.Stack(t.Goroutines[g].Create), t.Header.GOROOT); ok && f.File == gs.File && f.Line == gs.Line {
			if found != 0 {
				return 0
			}
			found = g
		}
	}
	return found
}
