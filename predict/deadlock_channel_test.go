// This file tests the channel-deadlock layer on built traces: a lock held
// across an unbuffered send whose receiver took the lock first is
// proved, and the twin that unlocks before sending is not.

package predict

import (
	"context"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// lockAcrossSend builds the run: g1 (the harness) starts the test g2,
// which starts g3. g2 takes m and lets it go, then receives on c; g3
// takes m and sends on c, releasing m after the send (held) or before
// it (fixed); then both end.
func lockAcrossSend(t *testing.T, held bool) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	user := b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 10}})
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, user)
	g3 := b.Goroutine(g2, user)
	b.SetGoroutine(g2, "TestX", "")
	b.SetGoroutine(g3, "TestX", "")
	m := b.Object(trace.ObjMutex, 0x100, 8, "m")
	c := b.Object(trace.ObjChan, 0x200, 8, "c")
	add := func(g trace.GoID, op trace.Op, obj trace.ObjID, sync trace.SyncKind, peer int32) {
		addr := map[trace.ObjID]uint64{m: 0x100, c: 0x200}[obj]
		b.Add(trace.Event{G: g, Op: op, Obj: obj, Addr: addr, Sync: sync, Peer: peer, Stack: user})
	}
	add(g1, trace.OpGo, 0, 0, int32(g2))
	add(g2, trace.OpStart, 0, 0, int32(g1))
	add(g2, trace.OpGo, 0, 0, int32(g3))
	add(g3, trace.OpStart, 0, 0, int32(g2))
	add(g2, trace.OpLock, m, trace.SyncAcquire, 0)
	add(g2, trace.OpUnlock, m, trace.SyncRelease, 0)
	add(g3, trace.OpLock, m, trace.SyncAcquire, 0)
	if !held {
		add(g3, trace.OpUnlock, m, trace.SyncRelease, 0)
	}
	send := b.Len()
	add(g3, trace.OpSend, c, trace.SyncRelease, 0)
	add(g2, trace.OpRecv, c, trace.SyncAcquire, int32(send))
	add(g2, trace.OpRecv, c, trace.SyncRelease, 0)
	add(g3, trace.OpSend, c, trace.SyncAcquire, 0)
	if held {
		add(g3, trace.OpUnlock, m, trace.SyncRelease, 0)
	}
	add(g3, trace.OpEnd, 0, 0, 0)
	add(g2, trace.OpEnd, 0, 0, 0)
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBlockingLayer(t *testing.T) {
	for _, held := range []bool{true, false} {
		tr := lockAcrossSend(t, held)
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
		if !held {
			if len(dl) != 0 {
				t.Errorf("fixed twin: deadlocks %+v", dl)
			}
			continue
		}
		// g3's send (7) waits for a receiver; g2's lock (4) for m.
		if len(dl) != 1 || len(dl[0].Events) != 2 || dl[0].Events[0] != 7 || dl[0].Events[1] != 4 || !dl[0].Predicted {
			t.Fatalf("deadlocks %+v, want the send 7 and the lock 4", dl)
		}
		if err := CheckWitness(tr, &dl[0], Options{}); err != nil {
			t.Errorf("witness rejected: %v", err)
		}
		var row *Stage
		for k := range res.Stats.Stages {
			if res.Stats.Stages[k].Name == "blocking" {
				row = &res.Stats.Stages[k]
			}
		}
		if row == nil || row.Cycles != 1 || row.DeadlockSites != 1 {
			t.Errorf("blocking row %+v, want 1 pattern, 1 proved", row)
		}
	}
}

// lockAcrossSends builds n copies of lockAcrossSend's held pattern, each
// on its own lock and channel, one after the other in one test: the
// analysis must prove each, not only the first channel's
// (TestBlockingLayer has one pattern alone). The blocking layer and the
// cycles layer (deadlock_cycles.go) both prove this shape, so the test
// holds the two together, not the blocking layer alone.
func lockAcrossSends(t *testing.T, n int) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	user := b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 10}})
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, user)
	b.SetGoroutine(g2, "TestX", "")
	at := user
	add := func(g trace.GoID, op trace.Op, obj trace.ObjID, addr uint64, sync trace.SyncKind, peer int32) {
		b.Add(trace.Event{G: g, Op: op, Obj: obj, Addr: addr, Sync: sync, Peer: peer, Stack: at})
	}
	add(g1, trace.OpGo, 0, 0, 0, int32(g2))
	add(g2, trace.OpStart, 0, 0, 0, int32(g1))
	for k := range n {
		// Each pattern at lines of its own: findings are one per site pair.
		at = b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 20 + 10*k}})
		ma, ca := uint64(0x100+0x20*k), uint64(0x1000+0x20*k)
		m := b.Object(trace.ObjMutex, ma, 8, "m")
		c := b.Object(trace.ObjChan, ca, 8, "c")
		g3 := b.Goroutine(g2, user)
		b.SetGoroutine(g3, "TestX", "")
		add(g2, trace.OpGo, 0, 0, 0, int32(g3))
		add(g3, trace.OpStart, 0, 0, 0, int32(g2))
		add(g2, trace.OpLock, m, ma, trace.SyncAcquire, 0)
		add(g2, trace.OpUnlock, m, ma, trace.SyncRelease, 0)
		add(g3, trace.OpLock, m, ma, trace.SyncAcquire, 0)
		send := b.Len()
		add(g3, trace.OpSend, c, ca, trace.SyncRelease, 0)
		add(g2, trace.OpRecv, c, ca, trace.SyncAcquire, int32(send))
		add(g2, trace.OpRecv, c, ca, trace.SyncRelease, 0)
		add(g3, trace.OpSend, c, ca, trace.SyncAcquire, 0)
		add(g3, trace.OpUnlock, m, ma, trace.SyncRelease, 0)
		add(g3, trace.OpEnd, 0, 0, 0, 0)
	}
	add(g2, trace.OpEnd, 0, 0, 0, 0)
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestBlockingLayerEveryPattern checks that the analysis proves each of
// several lock-across-send patterns of one run, at lines of their own,
// each with its witness.
func TestBlockingLayerEveryPattern(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		tr := lockAcrossSends(t, n)
		res, err := Analyze(context.Background(), tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sends := map[int]bool{}
		for _, f := range res.Findings {
			if f.Kind != KindDeadlock {
				continue
			}
			if err := CheckWitness(tr, &f, Options{}); err != nil {
				t.Errorf("n=%d: witness rejected: %v", n, err)
			}
			sends[f.Events[0]] = true
		}
		if len(sends) != n {
			t.Errorf("n=%d: %d deadlocks proved (first events %v), want one per pattern", n, len(sends), sends)
		}
	}
}
