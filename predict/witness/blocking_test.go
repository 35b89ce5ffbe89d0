// This file tests the check of blocking claims (blocking.go) on a trace
// of the shape a mutex held across a channel send makes: it accepts the
// schedule in which both goroutines wait for ever and rejects each kind
// of wrong claim.

package witness

import (
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// bev is one event of a built trace: goroutine, op, object name (""
// for none), synchronisation kind, and for go events the child.
type bev struct {
	g    trace.GoID
	op   trace.Op
	obj  string
	sync trace.SyncKind
	peer int32
}

// bgo is a goroutine of a built trace: its parent, test and whether the
// runtime created it.
type bgo struct {
	parent  trace.GoID
	test    string
	runtime bool
}

// buildTrace builds a trace whose goroutines are gs (ids from 1) and
// whose events are evs; objects are made by name: m* mutexes, c* channels.
func buildTrace(t *testing.T, gs []bgo, evs []bev) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	user := b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 10}})
	rt := b.Stacks().Intern([]trace.Frame{{Func: "runtime.gcenable", File: "/goroot/src/runtime/mgc.go", Line: 214}})
	for _, g := range gs {
		create := user
		if g.runtime {
			create = rt
		}
		id := b.Goroutine(g.parent, create)
		b.SetGoroutine(id, g.test, "")
	}
	objs := map[string]trace.ObjID{}
	addrs := map[trace.ObjID]uint64{}
	lives := map[string]uint64{}
	for _, e := range evs {
		var obj trace.ObjID
		if e.obj != "" {
			if _, ok := objs[e.obj]; !ok {
				kind := trace.ObjChan
				if e.obj[0] == 'm' {
					kind = trace.ObjMutex
				}
				addr := uint64(0x1000 + 0x100*len(objs))
				if kind == trace.ObjChan {
					// A channel lives in the heap, slot k of "c#k" after
					// its header, in c's allocation.
					name, slot, _ := strings.Cut(e.obj, "#")
					if _, ok := lives[name]; !ok {
						lives[name] = uint64(len(lives) + 1)
					}
					k, _ := strconv.Atoi(slot)
					addr = trace.LifeAddr(lives[name], 0x60+8*uint64(k))
				}
				objs[e.obj] = b.Object(kind, addr, 8, e.obj)
				if kind == trace.ObjChan {
					addrs[objs[e.obj]] = addr
				}
			}
			obj = objs[e.obj]
		}
		addr := uint64(obj) * 0x100
		if a, ok := addrs[obj]; ok {
			addr = a
		}
		b.Add(trace.Event{G: e.g, Op: e.op, Obj: obj, Addr: addr, Sync: e.sync, Peer: e.peer, Stack: user})
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// lockedSend: g1 is the harness, g2 the test, g3 its goroutine. The test
// takes m and lets it go, then receives on c; g3 takes m and sends on c
// while holding it (the rendezvous: g3 releases, g2 acquires and
// releases, g3 acquires). Extra events follow for some cases.
//
// Events: 0 go g2, 1 start g2, 2 go g3, 3 start g3, 4 g2 lock m, 5 g2
// unlock m, 6 g3 lock m, 7 g3 send c, 8 g2 recv c, 9 g2 recv c, 10 g3
// send c, 11 g3 unlock m, 12 g3 end, 13 g2 end; then the extras from 14.
func lockedSend(t *testing.T, extraGs []bgo, extra ...bev) *trace.Trace {
	gs := append([]bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}}, extraGs...)
	evs := []bev{
		{1, trace.OpGo, "", 0, 2},
		{2, trace.OpStart, "", 0, 1},
		{2, trace.OpGo, "", 0, 3},
		{3, trace.OpStart, "", 0, 2},
		{2, trace.OpLock, "m", trace.SyncAcquire, 0},
		{2, trace.OpUnlock, "m", trace.SyncRelease, 0},
		{3, trace.OpLock, "m", trace.SyncAcquire, 0},
		{3, trace.OpSend, "c", trace.SyncRelease, 0},
		{2, trace.OpRecv, "c", trace.SyncAcquire, 7},
		{2, trace.OpRecv, "c", trace.SyncRelease, 0},
		{3, trace.OpSend, "c", trace.SyncAcquire, 0},
		{3, trace.OpUnlock, "m", trace.SyncRelease, 0},
		{3, trace.OpEnd, "", 0, 0},
		{2, trace.OpEnd, "", 0, 0},
	}
	return buildTrace(t, gs, append(evs, extra...))
}

func TestCheckBlocking(t *testing.T) {
	claim := func(evs []int, w ...int) *Schedule {
		return &Schedule{Kind: Deadlock, Events: evs, Witness: w}
	}
	base := lockedSend(t, nil)
	// g4, created by the harness and owned by no test, takes m after
	// everything.
	harnessLocks := lockedSend(t, []bgo{{1, "", false}},
		bev{1, trace.OpGo, "", 0, 4}, bev{4, trace.OpStart, "", 0, 1},
		bev{4, trace.OpLock, "m", trace.SyncAcquire, 0}, bev{4, trace.OpUnlock, "m", trace.SyncRelease, 0}, bev{4, trace.OpEnd, "", 0, 0})
	// g4, the test's, started by the harness, still runs at the end.
	alive := lockedSend(t, []bgo{{1, "TestX", false}},
		bev{1, trace.OpGo, "", 0, 4}, bev{4, trace.OpStart, "", 0, 1}, bev{4, trace.OpRead, "x", 0, 0})
	// g4, made by the runtime, never touches m or c.
	runtimeG := lockedSend(t, []bgo{{1, "TestX", true}},
		bev{1, trace.OpGo, "", 0, 4}, bev{4, trace.OpStart, "", 0, 1}, bev{4, trace.OpRead, "x", 0, 0})
	// c buffered: its operations begin with an acquire.
	buffered := buildTrace(t, []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}}, []bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1}, {2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{2, trace.OpLock, "m", trace.SyncAcquire, 0}, {2, trace.OpUnlock, "m", trace.SyncRelease, 0},
		{3, trace.OpLock, "m", trace.SyncAcquire, 0},
		{3, trace.OpSend, "c", trace.SyncAcquire, 0}, {3, trace.OpSend, "c", trace.SyncRelease, 0},
		{2, trace.OpRecv, "c", trace.SyncAcquire, 0}, {2, trace.OpRecv, "c", trace.SyncRelease, 0},
		{3, trace.OpUnlock, "m", trace.SyncRelease, 0}, {3, trace.OpEnd, "", 0, 0}, {2, trace.OpEnd, "", 0, 0},
	})
	for _, tc := range []struct {
		name string
		t    *trace.Trace
		s    *Schedule
		want string // "" means accepted
	}{
		{"send held, lock waits", base, claim([]int{7, 4}, 0, 1, 2, 3, 6), ""},
		{"listed the other way round", base, claim([]int{4, 7}, 0, 1, 2, 3, 6), ""},
		{"prefix form", base, &Schedule{Kind: Deadlock, Events: []int{7, 4}, Prefix: 6, Stops: []int{4}, Witness: []int{6}}, ""},
		{"the lock is free", base, claim([]int{8, 6}, 0, 1, 2, 3, 4, 5), "no goroutine holds its lock"},
		{"the partner is ready", base, claim([]int{7, 8}, 0, 1, 2, 3, 4, 5, 6), "is its partner, ready"},
		{"a goroutine left out", base, claim([]int{7}, 0, 1, 2, 3, 6), "goroutine 2 can go on"},
		{"not the next event", base, claim([]int{10, 4}, 0, 1, 2, 3, 6), "next event after the schedule is not 10"},
		{"half an operation", base, claim([]int{10, 4}, 0, 1, 2, 3, 6, 7), "not the first event of its channel operation"},
		{"one goroutine twice", base, claim([]int{7, 4, 4}, 0, 1, 2, 3, 6), "listed twice"},
		{"a buffered channel", buffered, claim([]int{7, 4}, 0, 1, 2, 3, 6), "not show channel"},
		{"the harness takes the lock later", harnessLocks, claim([]int{7, 4}, 0, 1, 2, 3, 6), "operates on object"},
		{"a goroutine alive at the end", alive, claim([]int{7, 4}, 0, 1, 2, 3, 6, 14, 15, 16), "goroutine 4 has not ended"},
		{"a goroutine not yet created", alive, claim([]int{7, 4}, 0, 1, 2, 3, 6), ""},
		{"a runtime goroutine", runtimeG, claim([]int{7, 4}, 0, 1, 2, 3, 6, 14, 15, 16), ""},
		{"infeasible", base, claim([]int{7, 8}, 0, 1, 2, 3, 6, 4), "acquired while held"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tc.t.Events)
			err := NewChecker(tc.t, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// TestCheckLeak: g1 is the harness, g2 a test's own goroutine, g3 the
// test's worker, which sends (4, in user code), goes on inside the
// runtime (5) and never ends; g2 ends (6).
func TestCheckLeak(t *testing.T) {
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
	user := b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestX.func1", File: "/src/p/p_test.go", Line: 12}})
	lib := b.Stacks().Intern([]trace.Frame{{Func: "runtime.chansend", File: "/goroot/src/runtime/chan.go", Line: 176}})
	harness := b.Stacks().Intern([]trace.Frame{{Func: "testing.(*T).Run", File: "/goroot/src/testing/testing.go", Line: 2101}})
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, harness)
	b.SetGoroutine(g2, "TestX", "")
	g3 := b.Goroutine(g2, user)
	b.SetGoroutine(g3, "TestX", "")
	x := b.Object(trace.ObjVar, 0x100, 8, "x")
	for _, e := range []trace.Event{
		{G: g1, Op: trace.OpGo, Peer: int32(g2), Stack: harness},
		{G: g2, Op: trace.OpStart, Peer: int32(g1)},
		{G: g2, Op: trace.OpGo, Peer: int32(g3), Stack: user},
		{G: g3, Op: trace.OpStart, Peer: int32(g2)},
		{G: g3, Op: trace.OpRead, Obj: x, Addr: 0x100, Size: 8, Stack: user},
		{G: g3, Op: trace.OpRead, Obj: x, Addr: 0x100, Size: 8, Stack: lib},
		{G: g2, Op: trace.OpEnd},
	} {
		b.Add(e)
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	leak := func(evs []int, prefix int, w ...int) *Schedule {
		return &Schedule{Kind: Leak, Events: evs, Prefix: prefix, Witness: w}
	}
	for _, tc := range []struct {
		name string
		s    *Schedule
		want string // "" means accepted
	}{
		{"the whole run", leak([]int{4}, 6, 6), ""},
		{"the runtime's last event", leak([]int{5}, 6, 6), ""},
		{"not its last in user code", leak([]int{3}, 6, 6), "not goroutine 3's last in the user's code"},
		{"an ended goroutine", leak([]int{2}, 6, 6), "goroutine 2 ended"},
		{"the harness", leak([]int{0}, 6, 6), "belongs to no test"},
		{"a cut run", leak([]int{4}, 4, 4), "does not run all of goroutine 3's events"},
		{"no event", leak(nil, 6, 6), "leak needs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tr.Events)
			err := NewChecker(tr, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// TestCheckCondWait: g2 (the test) starts g3, which locks m and waits on
// the Cond (4 lock, 5 Wait's unlock), g2 then locks m, signals and
// unlocks (6, 7, 8); g3 wakes (9), relocks (10) and unlocks (11); both
// end. Claimed: g2's section first, then g3's up to Wait's unlock, and g3
// never wakes; g2 has ended.
func TestCheckCondWait(t *testing.T) {
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
	user := b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 12}})
	wait := b.Stacks().Intern([]trace.Frame{{Func: "sync.(*Cond).Wait", File: "/goroot/src/sync/cond.go", Line: 71}, {Func: "example.com/p.TestX.func1", File: "/src/p/p_test.go", Line: 20}})
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, user)
	g3 := b.Goroutine(g2, user)
	b.SetGoroutine(g2, "TestX", "")
	b.SetGoroutine(g3, "TestX", "")
	m := b.Object(trace.ObjMutex, 0x100, 8, "m")
	cd := b.Object(trace.ObjCond, 0x200, 8, "c")
	for _, e := range []trace.Event{
		{G: g1, Op: trace.OpGo, Peer: int32(g2), Stack: user},
		{G: g2, Op: trace.OpStart, Peer: int32(g1)},
		{G: g2, Op: trace.OpGo, Peer: int32(g3), Stack: user},
		{G: g3, Op: trace.OpStart, Peer: int32(g2)},
		{G: g3, Op: trace.OpLock, Obj: m, Addr: 0x100, Sync: trace.SyncAcquire, Stack: user},
		{G: g3, Op: trace.OpUnlock, Obj: m, Addr: 0x100, Sync: trace.SyncRelease, Stack: wait},
		{G: g2, Op: trace.OpLock, Obj: m, Addr: 0x100, Sync: trace.SyncAcquire, Stack: user},
		{G: g2, Op: trace.OpCondSignal, Obj: cd, Addr: 0x200, Sync: trace.SyncReleaseMerge, Stack: user},
		{G: g2, Op: trace.OpUnlock, Obj: m, Addr: 0x100, Sync: trace.SyncRelease, Stack: user},
		{G: g3, Op: trace.OpCondWait, Obj: cd, Addr: 0x200, Sync: trace.SyncAcquire, Stack: wait},
		{G: g3, Op: trace.OpLock, Obj: m, Addr: 0x100, Sync: trace.SyncAcquire, Stack: wait},
		{G: g3, Op: trace.OpUnlock, Obj: m, Addr: 0x100, Sync: trace.SyncRelease, Stack: user},
		{G: g3, Op: trace.OpEnd},
		{G: g2, Op: trace.OpEnd},
	} {
		b.Add(e)
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	claim := func(evs []int, w ...int) *Schedule { return &Schedule{Kind: Deadlock, Events: evs, Witness: w} }
	for _, tc := range []struct {
		name string
		s    *Schedule
		want string // "" means accepted
	}{
		{"signal before the wait's section", claim([]int{9}, 0, 1, 2, 3, 6, 7, 8, 13, 4, 5), ""},
		{"signal after the wait registered", claim([]int{9}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 13), "signal 7 comes after"},
		{"the waiter has not waited yet", claim([]int{5}, 0, 1, 2, 3, 6, 7, 8, 13, 4), "not an operation known to block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tr.Events)
			err := NewChecker(tr, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// TestCheckBlockingThree: a channel deadlock through three goroutines.
// g2 (the test) audits (6, 7) and receives on c; g3 takes a then m (8-11);
// g4 takes m and sends on c while holding it (12, 13; the rendezvous 13,
// 14, 15, 16), unlocks (17); all end (18-20). Claimed: g3 holds a, g4
// holds m; g4 waits to send, g2 to take a, g3 to take m.
func TestCheckBlockingThree(t *testing.T) {
	tr := buildTrace(t, []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}, {2, "TestX", false}}, []bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1},
		{2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{2, trace.OpGo, "", 0, 4}, {4, trace.OpStart, "", 0, 2},
		{2, trace.OpLock, "ma", trace.SyncAcquire, 0}, {2, trace.OpUnlock, "ma", trace.SyncRelease, 0},
		{3, trace.OpLock, "ma", trace.SyncAcquire, 0}, {3, trace.OpLock, "mm", trace.SyncAcquire, 0},
		{3, trace.OpUnlock, "mm", trace.SyncRelease, 0}, {3, trace.OpUnlock, "ma", trace.SyncRelease, 0},
		{4, trace.OpLock, "mm", trace.SyncAcquire, 0},
		{4, trace.OpSend, "c", trace.SyncRelease, 0},
		{2, trace.OpRecv, "c", trace.SyncAcquire, 13}, {2, trace.OpRecv, "c", trace.SyncRelease, 0},
		{4, trace.OpSend, "c", trace.SyncAcquire, 0},
		{4, trace.OpUnlock, "mm", trace.SyncRelease, 0},
		{4, trace.OpEnd, "", 0, 0}, {3, trace.OpEnd, "", 0, 0}, {2, trace.OpEnd, "", 0, 0},
	})
	claim := func(evs []int, w ...int) *Schedule { return &Schedule{Kind: Deadlock, Events: evs, Witness: w} }
	for _, tc := range []struct {
		name string
		s    *Schedule
		want string // "" means accepted
	}{
		{"each waits for the next", claim([]int{13, 6, 9}, 0, 1, 2, 3, 4, 5, 8, 12), ""},
		{"the third goroutine left out", claim([]int{13, 6}, 0, 1, 2, 3, 4, 5, 8, 12), "goroutine 3 can go on"},
		{"the receiver's lock is free", claim([]int{13, 6, 8}, 0, 1, 2, 3, 4, 5, 12), "no goroutine holds its lock"},
		{"the receiver took its lock", claim([]int{13, 7, 8}, 0, 1, 2, 3, 4, 5, 6, 12), "not an operation known to block"},
		{"infeasible: a held lock taken", claim([]int{13, 7, 9}, 0, 1, 2, 3, 4, 5, 8, 12, 6), "acquired while held"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tr.Events)
			err := NewChecker(tr, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// TestCheckBlockingBuffered: a receive on a buffered channel under a
// lock. g3 takes m, unlocks and sends on c (4, 5, 6: one release-acquire
// of a buffer slot); g2 takes m and receives the value (7, 8), unlocks
// (9); both end. Claimed: g2 holds m at its receive with the buffer
// empty, g3 waits for m.
func TestCheckBlockingBuffered(t *testing.T) {
	evs := []bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1},
		{2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{3, trace.OpLock, "m", trace.SyncAcquire, 0}, {3, trace.OpUnlock, "m", trace.SyncRelease, 0},
		{3, trace.OpSend, "c", trace.SyncReleaseAcquire, 0},
		{2, trace.OpLock, "m", trace.SyncAcquire, 0},
		{2, trace.OpRecv, "c", trace.SyncReleaseAcquire, 6},
		{2, trace.OpUnlock, "m", trace.SyncRelease, 0},
		{3, trace.OpEnd, "", 0, 0}, {2, trace.OpEnd, "", 0, 0},
	}
	gs := []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}}
	tr := buildTrace(t, gs, evs)
	// The same run with a zero-sized element type: each operation is an
	// acquire and a release, and the buffer is not judged.
	zero := append([]bev(nil), evs[:6]...)
	zero = append(zero, bev{3, trace.OpSend, "c", trace.SyncAcquire, 0}, bev{3, trace.OpSend, "c", trace.SyncRelease, 0})
	zero = append(zero, evs[7:]...)
	ztr := buildTrace(t, gs, zero)
	claim := func(evs []int, w ...int) *Schedule { return &Schedule{Kind: Deadlock, Events: evs, Witness: w} }
	for _, tc := range []struct {
		name string
		t    *trace.Trace
		s    *Schedule
		want string // "" means accepted
	}{
		{"empty buffer, sender waits for the lock", tr, claim([]int{8, 4}, 0, 1, 2, 3, 7), ""},
		{"the value is in the buffer", tr, claim([]int{8, 10}, 0, 1, 2, 3, 4, 5, 6, 7), "holds 1 values"},
		{"the sender is not blocked", tr, claim([]int{8}, 0, 1, 2, 3, 7), "goroutine 3 can go on"},
		{"zero-sized elements", ztr, claim([]int{9, 4}, 0, 1, 2, 3, 8), "not show channel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tc.t.Events)
			err := NewChecker(tc.t, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// bufRun: g3 takes m and lets it go (4, 5); g2 takes m (6) and sends on
// c, of capacity 1 (7); if twice, g3's receive (8) makes room for g2's
// second send (9), g2 lets m go (10) and g3 receives again (11);
// otherwise g2 lets m go (8) and g3 receives (9). Sent once, the run
// does not show the capacity.
func bufRun(t *testing.T, twice bool) *trace.Trace {
	evs := []bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1},
		{2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{3, trace.OpLock, "m", trace.SyncAcquire, 0}, {3, trace.OpUnlock, "m", trace.SyncRelease, 0},
		{2, trace.OpLock, "m", trace.SyncAcquire, 0},
		{2, trace.OpSend, "c", trace.SyncReleaseAcquire, 0},
	}
	if twice {
		evs = append(evs, bev{3, trace.OpRecv, "c", trace.SyncReleaseAcquire, 7}, bev{2, trace.OpSend, "c", trace.SyncReleaseAcquire, 0},
			bev{2, trace.OpUnlock, "m", trace.SyncRelease, 0}, bev{3, trace.OpRecv, "c", trace.SyncReleaseAcquire, 9})
	} else {
		evs = append(evs, bev{2, trace.OpUnlock, "m", trace.SyncRelease, 0}, bev{3, trace.OpRecv, "c", trace.SyncReleaseAcquire, 7})
	}
	evs = append(evs, bev{2, trace.OpEnd, "", 0, 0}, bev{3, trace.OpEnd, "", 0, 0})
	return buildTrace(t, []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}}, evs)
}

// TestCheckBlockingBufferedRing: sends on a full buffer and receives on
// an empty one, the buffer judged as a ring (bufchan.go).
//
// full: bufRun's, sending twice. Claimed: g2 holds m at its second send
// with the buffer full, g3 waits for m.
//
// ring: c has two slots; g3 sends on slot 0 (6), g4 on slot 1 (7), g2
// receives both (8, 9), g3 sends on slot 0 again (10), g2 receives it
// (11). A schedule of g4's send alone runs a send that is not the
// channel's first: in it g2's receive 8 takes g4's value from slot 1.
func TestCheckBlockingBufferedRing(t *testing.T) {
	full, once := bufRun(t, true), bufRun(t, false)
	ring := buildTrace(t, []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}, {2, "TestX", false}}, []bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1},
		{2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{2, trace.OpGo, "", 0, 4}, {4, trace.OpStart, "", 0, 2},
		{3, trace.OpSend, "c#0", trace.SyncReleaseAcquire, 0},
		{4, trace.OpSend, "c#1", trace.SyncReleaseAcquire, 0},
		{2, trace.OpRecv, "c#0", trace.SyncReleaseAcquire, 6},
		{2, trace.OpRecv, "c#1", trace.SyncReleaseAcquire, 7},
		{3, trace.OpSend, "c#0", trace.SyncReleaseAcquire, 0},
		{2, trace.OpRecv, "c#0", trace.SyncReleaseAcquire, 10},
		{3, trace.OpEnd, "", 0, 0}, {4, trace.OpEnd, "", 0, 0}, {2, trace.OpEnd, "", 0, 0},
	})
	claim := func(evs []int, w ...int) *Schedule { return &Schedule{Kind: Deadlock, Events: evs, Witness: w} }
	for _, tc := range []struct {
		name string
		t    *trace.Trace
		s    *Schedule
		want string // "" means accepted
	}{
		{"full buffer, the receiver waits for the lock", full, claim([]int{9, 4}, 0, 1, 2, 3, 6, 7), ""},
		{"the buffer has room", full, claim([]int{7, 4}, 0, 1, 2, 3, 6), "has room"},
		{"capacity not shown", once, claim([]int{7, 4}, 0, 1, 2, 3, 6), "not show the channel's capacity"},
		{"a later send alone", ring, claim([]int{8, 6}, 0, 1, 2, 3, 4, 5, 7), "not the run's first"},
		{"the receive's value in the other slot", ring, claim([]int{9, 10}, 0, 1, 2, 3, 4, 5, 6, 7, 8), "holds 1 values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tc.t.Events)
			err := NewChecker(tc.t, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}
