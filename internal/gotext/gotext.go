// Package gotext builds small traces for tests from a line notation that
// makes the events a Go recording makes for channels, WaitGroups and
// mutexes (the runtime's and package sync's frames included), which
// RAPID's STD format cannot say. One line is one Go operation:
//
//	g1 go g2        go statement (g2's first line adds its start event)
//	g1 w x, g1 r x  plain write / read of variable x
//	g1 close c      closechan: its write of c, then the close (a release)
//	g1 send c       chansend: its read of c, then the send (a release on c's slot)
//	g1 recv c       the receive that takes a value (an acquire on c's slot)
//	g1 add wg 2     WaitGroup.Add with a positive delta (its atomic, with the state before)
//	g1 done wg      WaitGroup.Done (a release-merge on wg, made inside Add)
//	g1 wait wg      WaitGroup.Wait's return (an acquire on wg)
//	g1 lock mu, g1 unlock mu, g1 rlock mu, g1 runlock mu
//
// An optional "@N" at the end of a line sets its source line (default:
// the line's number in the text), so that each line is its own site.
package gotext

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/seer-tools/seer/trace"
)

// File is the source file every event's user frame names.
const File = "/src/p/p_test.go"

// Build returns the trace that text describes.
func Build(text string) (*trace.Trace, error) {
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
	gs := map[string]trace.GoID{}
	started := map[trace.GoID]bool{}
	parent := map[trace.GoID]trace.GoID{}
	objs := map[string]uint64{}
	count := map[string]int64{}
	addr := func(name string) uint64 {
		a, ok := objs[name]
		if !ok {
			a = uint64(0x10000 + 0x100*len(objs))
			objs[name] = a
		}
		return a
	}
	g := func(name string, parent trace.GoID) trace.GoID {
		if id, ok := gs[name]; ok {
			return id
		}
		id := b.Goroutine(parent, 0)
		gs[name] = id
		return id
	}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		src := n + 1
		if k := strings.LastIndex(line, "@"); k >= 0 {
			v, err := strconv.Atoi(strings.TrimSpace(line[k+1:]))
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n+1, err)
			}
			src, line = v, strings.TrimSpace(line[:k])
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("line %d: want goroutine, op, object: %q", n+1, line)
		}
		gid := g(f[0], 0)
		user := b.Stacks().Push(0, trace.Frame{Func: "p.TestP", File: File, Line: src})
		in := func(fns ...string) trace.StackID {
			st := user
			for k := len(fns) - 1; k >= 0; k-- {
				st = b.Stacks().Push(st, trace.Frame{Func: fns[k], File: "/goroot/src/x.go", Line: 1})
			}
			return st
		}
		if !started[gid] && gid != 1 {
			started[gid] = true
			b.Add(trace.Event{Op: trace.OpStart, G: gid, Peer: int32(parent[gid]), Stack: user})
		}
		started[gid] = true
		name := f[2]
		a := addr(name)
		obj := func(k trace.ObjKind) trace.ObjID { return b.Object(k, a, 8, name) }
		switch f[1] {
		case "go":
			c := g(name, gid)
			parent[c] = gid
			b.Add(trace.Event{Op: trace.OpGo, G: gid, Peer: int32(c), Stack: user})
		case "w", "r":
			op := trace.OpWrite
			if f[1] == "r" {
				op = trace.OpRead
			}
			b.Add(trace.Event{Op: op, G: gid, Addr: a, Size: 8, Obj: obj(trace.ObjVar), Stack: user})
		case "close":
			b.Add(trace.Event{Op: trace.OpWrite, G: gid, Addr: a, Size: 8, Obj: obj(trace.ObjHeap), Stack: in("runtime.closechan")})
			b.Add(trace.Event{Op: trace.OpClose, G: gid, Addr: a, Sync: trace.SyncRelease, Obj: b.Object(trace.ObjChan, a, 0, ""), Stack: in("runtime.closechan")})
		case "send":
			b.Add(trace.Event{Op: trace.OpRead, G: gid, Addr: a, Size: 8, Obj: obj(trace.ObjHeap), Stack: in("runtime.chansend")})
			b.Add(trace.Event{Op: trace.OpSend, G: gid, Addr: a + 8, Sync: trace.SyncRelease, Obj: b.Object(trace.ObjChan, a+8, 0, ""), Stack: in("runtime.chansend", "runtime.chansend1")})
		case "recv":
			b.Add(trace.Event{Op: trace.OpRecv, G: gid, Addr: a + 8, Sync: trace.SyncAcquire, Peer: -1, Obj: b.Object(trace.ObjChan, a+8, 0, ""), Stack: user})
		case "add":
			if len(f) < 4 {
				return nil, fmt.Errorf("line %d: add needs a delta", n+1)
			}
			d, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("line %d: bad delta %q", n+1, f[3])
			}
			b.AddValue(trace.Event{Op: trace.OpWGAdd, G: gid, Addr: a, Size: 8, Obj: obj(trace.ObjWaitGroup), Stack: in("sync/atomic.(*Uint64).Add", "sync.(*WaitGroup).Add")},
				uint64(d), uint64(count[name])<<32)
			count[name] += d
		case "done":
			b.Add(trace.Event{Op: trace.OpWGDone, G: gid, Addr: a, Sync: trace.SyncReleaseMerge, Obj: obj(trace.ObjWaitGroup), Stack: in("sync.(*WaitGroup).Add", "sync.(*WaitGroup).Done")})
			count[name]--
		case "wait":
			b.Add(trace.Event{Op: trace.OpWGWait, G: gid, Addr: a, Sync: trace.SyncAcquire, Obj: obj(trace.ObjWaitGroup), Stack: in("sync.(*WaitGroup).Wait")})
		case "lock", "unlock", "rlock", "runlock":
			op := map[string]trace.Op{"lock": trace.OpLock, "unlock": trace.OpUnlock, "rlock": trace.OpRLock, "runlock": trace.OpRUnlock}[f[1]]
			sk := trace.SyncAcquire
			if op == trace.OpUnlock {
				sk = trace.SyncRelease
			} else if op == trace.OpRUnlock {
				sk = trace.SyncReleaseMerge
			}
			b.Add(trace.Event{Op: op, G: gid, Addr: a, Sync: sk, Obj: obj(trace.ObjRWMutex), Stack: user})
		default:
			return nil, fmt.Errorf("line %d: unknown op %q", n+1, f[1])
		}
	}
	return b.Trace()
}
