// This file implements what a report says of the blocking kinds: the
// title of a deadlock (a lock-order cycle, or goroutines blocked on
// channels and locks), the locks each blocked goroutine holds and where
// it took them, and the sentences that tell it.

package check

import (
	"fmt"

	"github.com/seer-tools/seer/trace"
)

// Title names f's kind in prose: "data race", "atomicity violation",
// "lock-order deadlock" (every blocked operation is a lock acquire) or
// "deadlock" (some goroutine waits on a channel).
func Title(f *Finding) string {
	switch f.Kind {
	case "race":
		return "data race"
	case "atomicity":
		return "atomicity violation"
	case "deadlock":
		for _, a := range f.Accesses {
			if a.Op != "lock" && a.Op != "rlock" {
				return "deadlock"
			}
		}
		return "lock-order deadlock"
	}
	return f.Kind
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
