// This file implements the wait sites of an observed deadlock that the
// recorder's hang watcher ended (record.RecordResult.Hang): the runtime
// printed, for every goroutine, the operation it was parked in and its
// stack, so a goroutine blocked in a receive, which leaves no event in
// the trace, is told by where it waits rather than by its last event.

package check

import (
	"strings"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace/record"
)

// hangBlocked maps the runtime's wait reasons (runtime/runtime2.go,
// waitReasonStrings) to Access.Blocked's words.
var hangBlocked = map[string]string{
	"chan receive":            report.BlockedRecv,
	"chan send":               "send",
	"chan receive (nil chan)": report.BlockedRecvNil,
	"chan send (nil chan)":    report.BlockedSendNil,
	"select":                  "select",
	"select (no cases)":       report.BlockedSelectNoCases,
	"sync.Mutex.Lock":         "lock",
	"sync.RWMutex.Lock":       "lock",
	"sync.RWMutex.RLock":      "rlock",
	"sync.Cond.Wait":          "cond-wait",
	"sync.WaitGroup.Wait":     "wait",
}

// applyHangWaits places each access of f whose goroutine the hang watcher
// reported at the goroutine's wait: Blocked is the operation it was
// parked in, and the position and stack are those of the first frame of
// the user's code in the stack the runtime printed (the event, which the
// witness names, stays the goroutine's last). An access whose goroutine
// the report does not hold, or whose stack has no user frame, is left as
// it was.
func applyHangWaits(f *report.Finding, waits []record.HangWait) {
	if len(waits) == 0 {
		return
	}
	byG := make(map[int]*record.HangWait, len(waits))
	for i := range waits {
		if waits[i].G != 0 {
			byG[int(waits[i].G)] = &waits[i]
		}
	}
	for k := range f.Accesses {
		a := &f.Accesses[k]
		w := byG[a.Goroutine]
		if w == nil {
			continue
		}
		op, ok := hangBlocked[w.Reason]
		if !ok {
			continue
		}
		var stack []report.Frame
		for _, fr := range w.Stack {
			if strings.HasPrefix(fr.Func, "created by ") {
				break
			}
			if len(stack) == 0 {
				if report.SystemFrame(fr.Func) {
					continue
				}
			}
			stack = append(stack, report.Frame{Func: fr.Func, File: fr.File, Line: fr.Line})
		}
		if len(stack) == 0 {
			continue
		}
		a.Blocked, a.Stack, a.Unreachable = op, stack, w.Proven
		a.File, a.Line, a.Column, a.EndLine, a.EndColumn = stack[0].File, stack[0].Line, 0, 0, 0
	}
}
