// This file implements what a report says of the blocking kinds: the
// title of a deadlock (a lock-order cycle, or goroutines blocked on
// channels and locks), and the sentences that tell where each blocked
// goroutine holds its locks, waits, or was left.

package report

import (
	"fmt"
	"strings"
)

// Title names f's kind in prose: "data race", "atomicity violation",
// "lock-order deadlock" (every blocked operation is a lock acquire) or
// "deadlock" (some goroutine waits on a channel).
func Title(f *Finding) string {
	if f.Kind != KindDeadlock {
		return f.Kind.Title()
	}
	if !f.Predicted {
		return "deadlock"
	}
	for _, a := range f.Accesses {
		if a.Op != "lock" && a.Op != "rlock" || readsAgain(&a) {
			return "deadlock"
		}
	}
	return f.Kind.Title()
}

// readsAgain reports whether a blocked read lock is taken by a goroutine
// that already holds the lock it waits for (a recursive RLock behind a
// waiting writer): no lock-order cycle has one.
func readsAgain(a *Access) bool {
	if a.Op != "rlock" || a.Variable == "" {
		return false
	}
	for _, h := range a.Holds {
		if h.Lock == a.Variable {
			return true
		}
	}
	return false
}

// HoldSentences tells, for a deadlock, where each blocked goroutine took
// the locks it holds while it waits: "goroutine 10 holds mu, locked at
// x.go:20, while it waits to send on ch at :21".
func HoldSentences(f *Finding, rel func(string) string) []string {
	if f.Kind != KindDeadlock {
		return nil
	}
	var out []string
	for _, a := range f.Accesses {
		if len(a.Holds) == 0 {
			continue
		}
		var parts []string
		at := positioner(rel)
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

// CycleSentence says, for a predicted blocking cycle whose accesses say
// whom each waits for (Access.WaitsFor), the cycle from its first
// goroutine round to it again: "goroutine 7 waits to send on out at
// x.go:15 for goroutine 8 to receive; goroutine 8 waits to lock mu at
// :22, which goroutine 9 holds; goroutine 9 waits to see the counter
// reach zero on sent at :30 for a Done of goroutine 7: each waits for
// the next, a cycle of 3 goroutines". "" for other findings.
func CycleSentence(f *Finding, rel func(string) string) string {
	if f.Kind != KindDeadlock || !f.Predicted {
		return ""
	}
	byG := map[int]*Access{}
	for k := range f.Accesses {
		byG[f.Accesses[k].Goroutine] = &f.Accesses[k]
	}
	if len(f.Accesses) == 0 || f.Accesses[0].WaitsFor == 0 {
		return ""
	}
	at := positioner(rel)
	var parts []string
	first := &f.Accesses[0]
	for a := first; ; {
		next, ok := byG[a.WaitsFor]
		if !ok || len(parts) == len(f.Accesses) {
			return "" // not a cycle of the listed goroutines
		}
		on := ""
		if a.Variable != "" {
			on = " " + a.Variable
		}
		var whom string
		switch a.Op {
		case "lock", "rlock":
			whom = fmt.Sprintf(", which goroutine %d holds", next.Goroutine)
			if a.Op == "rlock" && next.Op == "lock" && next.Variable == a.Variable {
				// sync.RWMutex prefers writers
				whom = fmt.Sprintf(", behind goroutine %d's Lock of it", next.Goroutine)
			}
		case "send":
			whom = fmt.Sprintf(" for goroutine %d to receive", next.Goroutine)
		case "recv":
			whom = fmt.Sprintf(" for goroutine %d to send", next.Goroutine)
		case "wait":
			whom = fmt.Sprintf(" for a Done of goroutine %d", next.Goroutine)
		case "cond-wait":
			whom = fmt.Sprintf(" for a Signal or Broadcast of goroutine %d", next.Goroutine)
		default:
			whom = fmt.Sprintf(" for goroutine %d", next.Goroutine)
		}
		parts = append(parts, fmt.Sprintf("goroutine %d waits to %s%s at %s%s", a.Goroutine, waitVerb(a.Op), on, at(a.File, a.Line), whom))
		if a = next; a == first {
			break
		}
	}
	return fmt.Sprintf("%s: each waits for the next, a cycle of %d goroutines", strings.Join(parts, "; "), len(parts))
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
	case "wait":
		return "see the counter reach zero on"
	case "cond-wait":
		return "be woken on"
	}
	return op
}

// LeakSentence says what a predicted leak's schedule does, for the
// report and the hover: the select takes its other case, and the send
// waits for ever.
func LeakSentence(f *Finding, rel func(string) string) string {
	if StuckLeak(f) {
		return stuckLeakSentence(f, rel) // leak_selectstuck.go
	}
	if f.Kind != KindLeak || !f.Predicted || len(f.Accesses) < 2 {
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
	return (f.Kind == KindLeak || f.Kind == KindDeadlock) && !f.Predicted
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
		s := fmt.Sprintf("goroutine %d", a.Goroutine) + createdPhrase(&a, rel)
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
		if a.Unreachable {
			s += ", on an object that no live goroutine can reach (the runtime's leak detection found it so at exit)"
		}
		out = append(out, s)
	}
	if f.Count > len(f.Accesses) {
		out = append(out, fmt.Sprintf("%d goroutines of the test stopped there", f.Count))
	}
	return out
}

// createdPhrase says, after "goroutine N", who started a's goroutine:
// " (the test's own)" for the goroutine the testing package started to
// run the test, " (created at x.go:21)" for one the program's go
// statement started, or "" when the run does not say.
func createdPhrase(a *Access, rel func(string) string) string {
	if len(a.Created) > 0 && strings.HasPrefix(a.Created[0].Func, "testing.") {
		return " (the test's own)"
	}
	if fr, ok := firstUser(a.Created); ok {
		return fmt.Sprintf(" (created at %s)", position(fr.File, fr.Line, rel))
	}
	return ""
}

// firstUser returns the first frame of frames in the user's code: the
// first that is not of the runtime, package sync or the testing package.
func firstUser(frames []Frame) (Frame, bool) {
	for _, fr := range frames {
		if !SystemFrame(fr.Func) {
			return fr, true
		}
	}
	return Frame{}, false
}

// SystemFrame reports whether the function fn (a runtime.Frame's name)
// is not of the user's code: of the runtime, package sync or the testing
// package.
func SystemFrame(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "sync.") ||
		strings.HasPrefix(fn, "internal/") || strings.HasPrefix(fn, "sync/atomic.") ||
		strings.HasPrefix(fn, "testing.")
}

// The operations that Access.Blocked names, beside those of
// predict.BlockedIn, for a goroutine that the recorder's hang watcher
// found parked (check's hang.go): a receive leaves no event, so only the
// runtime's own report tells it.
const (
	BlockedRecv          = "receive"
	BlockedRecvNil       = "receive-nil"
	BlockedSendNil       = "send-nil"
	BlockedSelectNoCases = "select-no-cases"
)

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
	case BlockedRecv:
		return "receiving from a channel"
	case BlockedRecvNil:
		return "receiving from a nil channel"
	case BlockedSendNil:
		return "sending on a nil channel"
	case BlockedSelectNoCases:
		return "in a select with no cases"
	}
	return "in " + op
}

// RepairedSentences tells, for each channel operation f's witness pairs
// with another partner than the recorded run (Finding.Repaired), who took
// whose partner: "in the recorded run goroutine 9's receive on jobs at
// x_test.go:12 took goroutine 8's send at :19; in the witness goroutine
// 10's send at :16 takes it first, and goroutine 8's send is left
// waiting"; then why each select left waiting can never proceed
// (StuckSentences).
func RepairedSentences(f *Finding, rel func(string) string) []string {
	var out []string
	for k := 0; k+3 <= len(f.Repaired); k += 3 {
		op, was, now := f.Repaired[k], f.Repaired[k+1], f.Repaired[k+2]
		at := positioner(rel)
		on := ""
		if op.Object != "" {
			on = " on " + op.Object
		}
		out = append(out, fmt.Sprintf("in the recorded run goroutine %d's %s%s at %s took goroutine %d's %s at %s; in the witness goroutine %d's %s at %s takes it first, and goroutine %d's %s is left waiting",
			op.Goroutine, opNoun(op.Op), on, at(op.File, op.Line), was.Goroutine, opNoun(was.Op), at(was.File, was.Line),
			now.Goroutine, opNoun(now.Op), at(now.File, now.Line), was.Goroutine, opNoun(was.Op)))
	}
	return append(out, StuckSentences(f, rel)...) // selectstuck.go
}

// opNoun names a channel operation in prose.
func opNoun(op string) string {
	if op == "recv" {
		return "receive"
	}
	return op
}
