// This file implements the test notation for traces: RAPID's STD lines
// ("T1|w(x)|12") extended with the synchronisation STD cannot express:
//
//	racq(L), rrel(L)          RWMutex RLock / RUnlock
//	sig(S), wait(S)           release / acquire on the address of S
//	merge(S), relacq(S)       release-merge / release-acquire on S
//	ald(V), ast(V), armw(V)   atomic load / store / read-modify-write of V
//
// The location may be omitted; it then defaults to the line's number in
// the text, so every line is its own source site.

package predict

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func parseTrace(tb testing.TB, text string) *trace.Trace {
	tb.Helper()
	t, err := buildTrace(text)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func buildTrace(text string) (*trace.Trace, error) {
	b := trace.NewBuilder(trace.Header{Format: "std"})
	threads := map[string]trace.GoID{}
	forked := map[trace.GoID]bool{}
	started := map[trace.GoID]bool{}
	objs := map[string]trace.ObjID{}
	addr := map[string]uint64{}
	obj := func(kind trace.ObjKind, name string) (trace.ObjID, uint64) {
		if id, ok := objs[name]; ok {
			return id, addr[name]
		}
		a := uint64(0x1000 + 8*len(objs))
		id := b.Object(kind, a, 8, name)
		objs[name], addr[name] = id, a
		return id, a
	}
	thread := func(name string, parent trace.GoID) trace.GoID {
		if g, ok := threads[name]; ok {
			return g
		}
		g := b.Goroutine(parent, 0)
		threads[name] = g
		return g
	}
	for ln, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: %q", ln+1, line)
		}
		loc := ln + 1
		if len(f) > 2 {
			n, err := strconv.Atoi(strings.TrimSpace(f[2]))
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", ln+1, err)
			}
			loc = n
		}
		op, arg := f[1], ""
		if i := strings.IndexByte(op, '('); i >= 0 {
			op, arg = op[:i], strings.TrimSuffix(op[i+1:], ")")
		}
		g := thread(strings.TrimSpace(f[0]), 0)
		st := b.Stacks().Push(0, trace.Frame{Func: "test", Line: loc})
		if forked[g] && !started[g] {
			started[g] = true
			b.Add(trace.Event{Op: trace.OpStart, G: g, Stack: st})
		}
		ev := trace.Event{G: g, Stack: st}
		switch op {
		case "r", "w", "ald", "ast", "armw":
			ev.Obj, ev.Addr = obj(trace.ObjVar, arg)
			ev.Size = 8
			ev.Op = map[string]trace.Op{"r": trace.OpRead, "w": trace.OpWrite, "ald": trace.OpAtomicLoad,
				"ast": trace.OpAtomicStore, "armw": trace.OpAtomicRMW}[op]
		case "acq", "rel", "racq", "rrel":
			ev.Obj, ev.Addr = obj(trace.ObjRWMutex, arg)
			ev.Op = map[string]trace.Op{"acq": trace.OpLock, "rel": trace.OpUnlock, "racq": trace.OpRLock, "rrel": trace.OpRUnlock}[op]
			ev.Sync = trace.SyncAcquire
			if op == "rel" || op == "rrel" {
				ev.Sync = trace.SyncRelease
			}
		case "sig", "wait", "merge", "relacq":
			ev.Obj, ev.Addr = obj(trace.ObjSync, arg)
			switch op {
			case "sig":
				ev.Op, ev.Sync = trace.OpRelease, trace.SyncRelease
			case "wait":
				ev.Op, ev.Sync = trace.OpAcquire, trace.SyncAcquire
			case "merge":
				ev.Op, ev.Sync = trace.OpReleaseMerge, trace.SyncReleaseMerge
			default:
				ev.Op, ev.Sync = trace.OpReleaseAcquire, trace.SyncReleaseAcquire
			}
		case "fork":
			c := thread(arg, g)
			forked[c] = true
			ev.Op, ev.Peer = trace.OpGo, int32(c)
		case "join":
			ev.Op, ev.Peer = trace.OpJoin, int32(threads[arg])
		case "begin":
			ev.Op = trace.OpTxBegin
		case "end":
			ev.Op = trace.OpTxEnd
		default:
			return nil, fmt.Errorf("line %d: unknown op %q", ln+1, op)
		}
		b.Add(ev)
	}
	return b.Trace()
}
