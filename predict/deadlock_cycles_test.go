// This file tests the search for blocking cycles of any length
// (deadlock_cycles.go) on built traces: rings of k pipelines, each
// sender holding its lock across an unbuffered send whose receiver first
// takes the next pipeline's lock, are proved for every k the search
// covers (2k goroutines: up to maxBlockingCycle, past the sites a pattern
// key holds), and so are rings whose senders wait on full buffers, the
// witness accepted by the checker; a ring with one sender that unlocks
// first, and one longer than maxBlockingCycle goroutines, are not
// reported.

package predict

import (
	"context"
	"fmt"
	"testing"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// pipelineRing builds the run: the test goroutine starts, per pipeline
// i < k, a sender S_i and a receiver R_i. Every R_i first takes and lets
// go lock L_{(i+1) mod k}; then every S_i takes L_i and sends on C_i,
// which R_i receives, and S_i lets L_i go after the send, or before it
// when i is in unlockFirst. Each event has a site of its own.
//
// With buffered, each C_i has a buffer of one value (its one slot in a
// heap allocation of its own): S_i sends twice and R_i receives twice,
// each operation one release-acquire of the slot, and in the cycle S_i
// waits at its second send, on a full buffer.
func pipelineRing(t *testing.T, k int, unlockFirst map[int]bool, buffered bool) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	line := 10
	stack := func() trace.StackID {
		line++
		return b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestRing", File: "/src/p/p_test.go", Line: line}})
	}
	user := stack()
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, user)
	b.SetGoroutine(g2, "TestRing", "")
	addr := map[trace.ObjID]uint64{}
	add := func(g trace.GoID, op trace.Op, obj trace.ObjID, sync trace.SyncKind, peer int32) int32 {
		i := int32(b.Len())
		b.Add(trace.Event{G: g, Op: op, Obj: obj, Addr: addr[obj], Sync: sync, Peer: peer, Stack: stack()})
		return i
	}
	add(g1, trace.OpGo, 0, 0, int32(g2))
	add(g2, trace.OpStart, 0, 0, int32(g1))
	var s, r []trace.GoID
	var locks, chans []trace.ObjID
	for i := range k {
		m := b.Object(trace.ObjMutex, uint64(0x100+16*i), 8, fmt.Sprintf("L%d", i))
		ca := uint64(0x1000 + 16*i)
		if buffered {
			ca = trace.LifeAddr(uint64(i+1), 0x60)
		}
		c := b.Object(trace.ObjChan, ca, 8, fmt.Sprintf("C%d", i))
		addr[m], addr[c] = uint64(0x100+16*i), ca
		locks, chans = append(locks, m), append(chans, c)
		for _, gs := range []*[]trace.GoID{&s, &r} {
			g := b.Goroutine(g2, user)
			b.SetGoroutine(g, "TestRing", "")
			add(g2, trace.OpGo, 0, 0, int32(g))
			add(g, trace.OpStart, 0, 0, int32(g2))
			*gs = append(*gs, g)
		}
	}
	add(g2, trace.OpEnd, 0, 0, 0)
	for i := range k {
		m := locks[(i+1)%k]
		add(r[i], trace.OpLock, m, trace.SyncAcquire, 0)
		add(r[i], trace.OpUnlock, m, trace.SyncRelease, 0)
	}
	for i := range k {
		add(s[i], trace.OpLock, locks[i], trace.SyncAcquire, 0)
		if unlockFirst[i] {
			add(s[i], trace.OpUnlock, locks[i], trace.SyncRelease, 0)
		}
		if buffered {
			for range 2 {
				send := add(s[i], trace.OpSend, chans[i], trace.SyncReleaseAcquire, 0)
				add(r[i], trace.OpRecv, chans[i], trace.SyncReleaseAcquire, send)
			}
		} else {
			send := add(s[i], trace.OpSend, chans[i], trace.SyncRelease, 0)
			add(r[i], trace.OpRecv, chans[i], trace.SyncAcquire, send)
			add(r[i], trace.OpRecv, chans[i], trace.SyncRelease, 0)
			add(s[i], trace.OpSend, chans[i], trace.SyncAcquire, 0)
		}
		if !unlockFirst[i] {
			add(s[i], trace.OpUnlock, locks[i], trace.SyncRelease, 0)
		}
		add(s[i], trace.OpEnd, 0, 0, 0)
		add(r[i], trace.OpEnd, 0, 0, 0)
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBlockingCycles(t *testing.T) {
	for _, tc := range []struct {
		k           int
		unlockFirst map[int]bool
		buffered    bool
		want        bool
	}{
		{2, nil, false, true},
		{3, nil, false, true},
		{4, nil, false, true},
		{3, map[int]bool{1: true}, false, false},
		{4, map[int]bool{3: true}, false, false},
		// Longer than a pattern key's sites (longKey).
		{maxCycle + 1, nil, false, true},
		{16, nil, false, true},
		{16, map[int]bool{9: true}, false, false},
		{33, nil, false, false}, // 66 goroutines, beyond maxBlockingCycle
		// Sends on full buffers (item 4's buffered channels).
		{1, nil, true, true},
		{2, nil, true, true},
		{3, nil, true, true},
		{3, map[int]bool{2: true}, true, false},
	} {
		t.Run(fmt.Sprintf("k=%d unlockFirst=%v buffered=%v", tc.k, tc.unlockFirst, tc.buffered), func(t *testing.T) {
			tr := pipelineRing(t, tc.k, tc.unlockFirst, tc.buffered)
			res, err := Analyze(context.Background(), tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var dl []Finding
			for _, f := range res.Findings {
				if f.Kind == KindDeadlock {
					dl = append(dl, f)
				}
			}
			if !tc.want {
				if len(dl) != 0 {
					t.Fatalf("deadlocks %+v, want none", dl)
				}
				return
			}
			if len(dl) != 1 || !dl[0].Predicted || len(dl[0].Events) != 2*tc.k {
				t.Fatalf("deadlocks %+v, want one cycle of %d goroutines", dl, 2*tc.k)
			}
			// The cycle alternates a send and the next pipeline's lock.
			sends, lockWaits := 0, 0
			for _, i := range dl[0].Events {
				switch tr.Events[i].Op {
				case trace.OpSend:
					sends++
				case trace.OpLock:
					lockWaits++
				}
			}
			if sends != tc.k || lockWaits != tc.k {
				t.Errorf("blocked events %v: %d sends, %d locks, want %d of each", dl[0].Events, sends, lockWaits, tc.k)
			}
			if err := CheckWitness(tr, &dl[0], Options{}); err != nil {
				t.Errorf("witness rejected: %v", err)
			}
		})
	}
}

// rwCycle builds the run of a read/write cycle through RWMutexes a and
// b: M (the test goroutine) read-locks b and locks a, then lets both go;
// W locks and unlocks b; R read-locks a, then b (after letting a go
// first, when fixed), and lets them go. In the schedule where M holds b
// for reading, R holds a for reading and W's Lock of b waits, R's RLock
// of b waits behind W, W for M, M for R.
func rwCycle(t *testing.T, fixed bool) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	line := 10
	stack := func() trace.StackID {
		line++
		return b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestRW", File: "/src/p/p_test.go", Line: line}})
	}
	user := stack()
	g1 := b.Goroutine(0, 0)
	m := b.Goroutine(g1, user)
	w := b.Goroutine(m, user)
	r := b.Goroutine(m, user)
	for _, g := range []trace.GoID{m, w, r} {
		b.SetGoroutine(g, "TestRW", "")
	}
	la := b.Object(trace.ObjRWMutex, 0x100, 24, "a")
	lb := b.Object(trace.ObjRWMutex, 0x200, 24, "b")
	addr := map[trace.ObjID]uint64{la: 0x100, lb: 0x200}
	add := func(g trace.GoID, op trace.Op, obj trace.ObjID, peer int32) {
		sync := trace.SyncKind(0)
		switch op {
		case trace.OpLock, trace.OpRLock:
			sync = trace.SyncAcquire
		case trace.OpUnlock, trace.OpRUnlock:
			sync = trace.SyncRelease
		}
		b.Add(trace.Event{G: g, Op: op, Obj: obj, Addr: addr[obj], Sync: sync, Peer: peer, Stack: stack()})
	}
	add(g1, trace.OpGo, 0, int32(m))
	add(m, trace.OpStart, 0, int32(g1))
	add(m, trace.OpGo, 0, int32(w))
	add(w, trace.OpStart, 0, int32(m))
	add(m, trace.OpGo, 0, int32(r))
	add(r, trace.OpStart, 0, int32(m))
	add(m, trace.OpRLock, lb, 0)
	add(m, trace.OpLock, la, 0)
	add(m, trace.OpUnlock, la, 0)
	add(m, trace.OpRUnlock, lb, 0)
	add(w, trace.OpLock, lb, 0)
	add(w, trace.OpUnlock, lb, 0)
	add(r, trace.OpRLock, la, 0)
	if fixed {
		add(r, trace.OpRUnlock, la, 0)
	}
	add(r, trace.OpRLock, lb, 0)
	add(r, trace.OpRUnlock, lb, 0)
	if !fixed {
		add(r, trace.OpRUnlock, la, 0)
	}
	for _, g := range []trace.GoID{w, r, m} {
		add(g, trace.OpEnd, 0, 0)
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBlockingCyclesRWMutex(t *testing.T) {
	twinCycle(t, rwCycle, map[trace.Op]int{trace.OpRLock: 1, trace.OpLock: 2}) // R's RLock of b and two Locks
}

// twinCycle analyses the runs that build makes, with the bug and fixed:
// the fixed one has no finding, the other one deadlock, a cycle of
// every goroutine it lists, whose blocked events have the ops of want
// (op: how many), its witness accepted by the checker.
func twinCycle(t *testing.T, build func(t *testing.T, fixed bool) *trace.Trace, want map[trace.Op]int) {
	t.Helper()
	n := 0
	for _, k := range want {
		n += k
	}
	for _, fixed := range []bool{false, true} {
		tr := build(t, fixed)
		res, err := Analyze(context.Background(), tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fixed {
			if len(res.Findings) != 0 {
				t.Errorf("fixed: findings %+v", res.Findings)
			}
			continue
		}
		if len(res.Findings) != 1 || res.Findings[0].Kind != KindDeadlock || len(res.Findings[0].Events) != n {
			t.Fatalf("findings %+v, want one deadlock of %d goroutines", res.Findings, n)
		}
		f := &res.Findings[0]
		ops := map[trace.Op]int{}
		for _, i := range f.Events {
			ops[tr.Events[i].Op]++
		}
		if fmt.Sprint(ops) != fmt.Sprint(want) || len(f.WaitsFor) != n {
			t.Errorf("blocked events %v (waits for %v), want %v in a cycle", f.Events, f.WaitsFor, want)
		}
		if err := CheckWitness(tr, f, Options{}); err != nil {
			t.Errorf("witness rejected: %v", err)
		}
	}
}

// condCycle builds the run of a cycle through a Cond.Wait: S (started
// by the test goroutine W) takes and lets go of lock outer; W takes
// outer (and, when fixed, lets it go), takes mu, reads the condition
// and waits on the Cond (Wait's unlock of mu); S takes mu, writes the
// condition, signals and lets mu go; W wakes, relocks mu, reads the
// condition, lets mu and outer go. In the schedule where W waits
// holding outer, S waits for outer and never signals.
func condCycle(t *testing.T, fixed bool) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
	line := 10
	stack := func() trace.StackID {
		line++
		return b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestCond", File: "/src/p/p_test.go", Line: line}})
	}
	user := stack()
	wait := b.Stacks().Intern([]trace.Frame{{Func: "sync.(*Cond).Wait", File: "/goroot/src/sync/cond.go", Line: 71},
		{Func: "example.com/p.TestCond", File: "/src/p/p_test.go", Line: 5}})
	g1 := b.Goroutine(0, 0)
	w := b.Goroutine(g1, user)
	s := b.Goroutine(w, user)
	b.SetGoroutine(w, "TestCond", "")
	b.SetGoroutine(s, "TestCond", "")
	outer := b.Object(trace.ObjMutex, 0x100, 8, "outer")
	mu := b.Object(trace.ObjMutex, 0x200, 8, "mu")
	cd := b.Object(trace.ObjCond, 0x300, 8, "cond")
	addr := map[trace.ObjID]uint64{outer: 0x100, mu: 0x200, cd: 0x300}
	add := func(g trace.GoID, op trace.Op, obj trace.ObjID, st trace.StackID) {
		sync := trace.SyncKind(0)
		switch op {
		case trace.OpLock, trace.OpCondWait:
			sync = trace.SyncAcquire
		case trace.OpUnlock:
			sync = trace.SyncRelease
		case trace.OpCondSignal:
			sync = trace.SyncReleaseMerge
		}
		if st == 0 {
			st = stack()
		}
		b.Add(trace.Event{G: g, Op: op, Obj: obj, Addr: addr[obj], Sync: sync, Stack: st})
	}
	b.Add(trace.Event{G: g1, Op: trace.OpGo, Peer: int32(w), Stack: user})
	b.Add(trace.Event{G: w, Op: trace.OpStart, Peer: int32(g1)})
	b.Add(trace.Event{G: w, Op: trace.OpGo, Peer: int32(s), Stack: user})
	b.Add(trace.Event{G: s, Op: trace.OpStart, Peer: int32(w)})
	add(s, trace.OpLock, outer, 0)
	add(s, trace.OpUnlock, outer, 0)
	add(w, trace.OpLock, outer, 0)
	if fixed {
		add(w, trace.OpUnlock, outer, 0)
	}
	ready := func(g trace.GoID, op trace.Op) { // the condition, in a loop of W's
		b.Add(trace.Event{G: g, Op: op, Addr: 0x400, Size: 1, Stack: stack()})
	}
	add(w, trace.OpLock, mu, 0)
	ready(w, trace.OpRead)
	add(w, trace.OpUnlock, mu, wait)
	add(s, trace.OpLock, mu, 0)
	ready(s, trace.OpWrite)
	add(s, trace.OpCondSignal, cd, 0)
	add(s, trace.OpUnlock, mu, 0)
	add(w, trace.OpCondWait, cd, wait)
	add(w, trace.OpLock, mu, wait)
	ready(w, trace.OpRead)
	add(w, trace.OpUnlock, mu, 0)
	if !fixed {
		add(w, trace.OpUnlock, outer, 0)
	}
	b.Add(trace.Event{G: s, Op: trace.OpEnd})
	b.Add(trace.Event{G: w, Op: trace.OpEnd})
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBlockingCyclesCond(t *testing.T) {
	twinCycle(t, condCycle, map[trace.Op]int{trace.OpCondWait: 1, trace.OpLock: 1}) // W's Wait, S's Lock of outer
}

// selectCycle builds the run of a cycle through a select: R (started by
// the test goroutine G, as is Q) takes and lets go of lock m, then
// receives on C; G takes m and, in a select (runtime.selectgo), sends on
// C, lets m go. Q closes channel quit at line 99 after G's select, when
// closer. In the schedule where G holds m in the select, R waits for m;
// the select is stuck if no case but its send can proceed.
func selectCycle(t *testing.T, closer bool) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
	line := 10
	stack := func() trace.StackID {
		line++
		return b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestSel", File: "/src/p/p_test.go", Line: line}})
	}
	user := stack()
	sel := b.Stacks().Intern([]trace.Frame{{Func: "runtime.selectgo", File: "/goroot/src/runtime/select.go", Line: 527},
		{Func: "example.com/p.TestSel", File: "/src/p/p_test.go", Line: 50}})
	g1 := b.Goroutine(0, 0)
	g := b.Goroutine(g1, user)
	r := b.Goroutine(g, user)
	q := b.Goroutine(g, user)
	for _, x := range []trace.GoID{g, r, q} {
		b.SetGoroutine(x, "TestSel", "")
	}
	m := b.Object(trace.ObjMutex, 0x100, 8, "m")
	ch := b.Object(trace.ObjChan, 0x200, 8, "C")
	quit := b.Object(trace.ObjChan, 0x300, 8, "quit")
	add := func(x trace.GoID, op trace.Op, obj trace.ObjID, addr uint64, sync trace.SyncKind, st trace.StackID) int32 {
		i := int32(b.Len())
		if st == 0 {
			st = stack()
		}
		b.Add(trace.Event{G: x, Op: op, Obj: obj, Addr: addr, Sync: sync, Stack: st})
		return i
	}
	b.Add(trace.Event{G: g1, Op: trace.OpGo, Peer: int32(g), Stack: user})
	b.Add(trace.Event{G: g, Op: trace.OpStart, Peer: int32(g1)})
	for _, x := range []trace.GoID{r, q} {
		b.Add(trace.Event{G: g, Op: trace.OpGo, Peer: int32(x), Stack: user})
		b.Add(trace.Event{G: x, Op: trace.OpStart, Peer: int32(g)})
	}
	add(r, trace.OpLock, m, 0x100, trace.SyncAcquire, 0)
	add(r, trace.OpUnlock, m, 0x100, trace.SyncRelease, 0)
	add(g, trace.OpLock, m, 0x100, trace.SyncAcquire, 0)
	send := add(g, trace.OpSend, ch, 0x200, trace.SyncRelease, sel)
	b.Add(trace.Event{G: r, Op: trace.OpRecv, Obj: ch, Addr: 0x200, Sync: trace.SyncAcquire, Peer: send, Stack: stack()})
	add(r, trace.OpRecv, ch, 0x200, trace.SyncRelease, 0)
	add(g, trace.OpSend, ch, 0x200, trace.SyncAcquire, sel)
	add(g, trace.OpUnlock, m, 0x100, trace.SyncRelease, 0)
	if closer {
		add(q, trace.OpClose, quit, 0x300, trace.SyncRelease, b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestSel.func2", File: "/src/p/p_test.go", Line: 99}}))
	}
	for _, x := range []trace.GoID{r, q, g} {
		b.Add(trace.Event{G: x, Op: trace.OpEnd})
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBlockingCyclesSelect(t *testing.T) {
	// The select's other case receives from quit, which only a close at
	// p_test.go:99 could complete.
	cases := func(*trace.Trace, int) ([]witness.SelectCase, bool) {
		return []witness.SelectCase{{Name: "quit", Partners: []trace.Frame{{File: "p_test.go", Line: 99}}}}, true
	}
	unknown := func(*trace.Trace, int) ([]witness.SelectCase, bool) { return nil, false }
	for _, tc := range []struct {
		name   string
		closer bool
		cases  func(*trace.Trace, int) ([]witness.SelectCase, bool)
		want   bool
	}{
		{"no case can proceed", false, cases, true},
		{"quit is closed by a goroutine that can act", true, cases, false},
		{"the select's cases are not known", false, unknown, false},
		{"no static analysis", false, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := selectCycle(t, tc.closer)
			opts := Options{SelectCases: tc.cases}
			res, err := Analyze(context.Background(), tr, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want {
				if len(res.Findings) != 0 {
					t.Errorf("findings %+v, want none", res.Findings)
				}
				return
			}
			if len(res.Findings) != 1 || res.Findings[0].Kind != KindDeadlock || len(res.Findings[0].Events) != 2 {
				t.Fatalf("findings %+v, want one deadlock of two goroutines", res.Findings)
			}
			f := &res.Findings[0]
			if tr.Events[f.Events[0]].Op != trace.OpSend || len(f.WaitsFor) != 2 || len(f.Stuck) != 1 || f.Stuck[0].Event != f.Events[0] {
				t.Errorf("finding %+v, want the select's send first, in a cycle, its other cases told", f)
			}
			if err := CheckWitness(tr, f, opts); err != nil {
				t.Errorf("witness rejected: %v", err)
			}
		})
	}
}
