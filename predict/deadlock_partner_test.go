// This file tests the taken-partner layer (deadlock_partner.go) on built
// traces: the test's send, whose one-shot receiver a helper's send can
// take first, is a predicted deadlock whose witness the checker accepts;
// with the receive's value used, with no static answer, or with the
// helper started only after the test's send, nothing is reported.

package predict

import (
	"context"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// takenPartnerRun builds the run: g1 (the harness) starts the test g2,
// which starts the worker g3 and (early, or only after its send when
// late) the helper g4. g2's send on c meets g3's receive (g3 parked
// first), then g4's send meets g2's receive; every goroutine ends, the
// worker after a last step tail (none when OpInvalid): a WaitGroup.Done
// on wg, or a read of x, which the test wrote. When second, the worker
// arrived second at its rendezvous with the test, as the helper did at
// its own.
func takenPartnerRun(t *testing.T, late, second bool, tail trace.Op) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	at := func(fn string, line int) trace.StackID {
		return b.Stacks().Intern([]trace.Frame{{Func: "example.com/p." + fn, File: "/src/p/p_test.go", Line: line}})
	}
	test, worker, helper := at("TestX", 19), at("TestX.func1", 12), at("TestX.func2", 16)
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, test)
	g3 := b.Goroutine(g2, test)
	g4 := b.Goroutine(g2, test)
	for _, g := range []trace.GoID{g2, g3, g4} {
		b.SetGoroutine(g, "TestX", "")
	}
	c := b.Object(trace.ObjChan, 0x200, 8, "c")
	wg := b.Object(trace.ObjWaitGroup, 0x300, 8, "wg")
	add := func(g trace.GoID, st trace.StackID, op trace.Op, sync trace.SyncKind, peer int32) int32 {
		n := int32(b.Len())
		ev := trace.Event{G: g, Op: op, Sync: sync, Peer: peer, Stack: st}
		switch op {
		case trace.OpSend, trace.OpRecv:
			ev.Obj, ev.Addr = c, 0x200
		case trace.OpWGAdd, trace.OpWGDone:
			ev.Obj, ev.Addr = wg, 0x300
		case trace.OpRead, trace.OpWrite:
			ev.Addr, ev.Size = 0x400, 8
		}
		b.Add(ev)
		return n
	}
	add(g1, test, trace.OpGo, 0, int32(g2))
	add(g2, test, trace.OpStart, 0, int32(g1))
	if tail == trace.OpRead {
		add(g2, test, trace.OpWrite, 0, 0)
	}
	add(g2, test, trace.OpGo, 0, int32(g3))
	add(g3, worker, trace.OpStart, 0, int32(g2))
	if !late {
		add(g2, test, trace.OpGo, 0, int32(g4))
		add(g4, helper, trace.OpStart, 0, int32(g2))
	}
	if second {
		add(g3, worker, trace.OpRecv, trace.SyncRelease, 0)
		s := add(g2, test, trace.OpSend, trace.SyncAcquire, 0)
		add(g2, test, trace.OpSend, trace.SyncRelease, 0)
		add(g3, worker, trace.OpRecv, trace.SyncAcquire, s)
	} else {
		s := add(g2, test, trace.OpSend, trace.SyncRelease, 0)
		add(g3, worker, trace.OpRecv, trace.SyncAcquire, s)
		add(g3, worker, trace.OpRecv, trace.SyncRelease, 0)
		add(g2, test, trace.OpSend, trace.SyncAcquire, 0)
	}
	switch tail {
	case trace.OpWGDone:
		add(g3, worker, trace.OpWGDone, trace.SyncReleaseMerge, 0)
	case trace.OpRead:
		add(g3, worker, trace.OpRead, 0, 0)
	}
	add(g3, worker, trace.OpEnd, 0, 0)
	if late {
		add(g2, test, trace.OpGo, 0, int32(g4))
		add(g4, helper, trace.OpStart, 0, int32(g2))
	}
	h := add(g4, helper, trace.OpSend, trace.SyncRelease, 0)
	add(g2, test, trace.OpRecv, trace.SyncAcquire, h)
	add(g2, test, trace.OpRecv, trace.SyncRelease, 0)
	add(g4, helper, trace.OpSend, trace.SyncAcquire, 0)
	add(g4, helper, trace.OpEnd, 0, 0)
	add(g2, test, trace.OpEnd, 0, 0)
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTakenPartnerLayer(t *testing.T) {
	worker := func(tr *trace.Trace, recv int) bool { return tr.Site(&tr.Events[recv]).Line == 12 }
	for _, tc := range []struct {
		name   string
		late   bool
		second bool
		tail   trace.Op
		free   func(*trace.Trace, int) bool
		want   bool
		// closures is the blocking row's count: a worker whose end needs
		// another goroutine is refused before its closure
		// (partnerTails), so that it costs no causal cone.
		closures int64
	}{
		{"the helper takes the worker", false, false, 0, worker, true, 2},
		{"the worker arrived second in the run", false, true, 0, worker, true, 2},
		{"the worker ends with wg.Done", false, false, trace.OpWGDone, worker, true, 2},
		{"the worker reads what the test wrote: not judged", false, false, trace.OpRead, worker, false, 0},
		{"the worker uses its value", false, false, 0, func(*trace.Trace, int) bool { return false }, false, 0},
		{"no source", false, false, 0, nil, false, 0},
		{"the helper starts after the send", true, false, 0, worker, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := takenPartnerRun(t, tc.late, tc.second, tc.tail)
			opts := Options{RecvValueFree: tc.free}
			if st := stage(analyze(t, tr, opts), "blocking"); st.Deadlocks != tc.closures {
				t.Errorf("blocking row: %d closures, want %d", st.Deadlocks, tc.closures)
			}
			f, ok := testSendBlocked(t, tr, opts, tc.want)
			if !ok {
				return
			}
			if err := CheckWitness(tr, &f, Options{}); err == nil {
				t.Errorf("witness accepted with no static answer on the receive")
			}
		})
	}
}

// testSendBlocked analyses tr with opts and, when want, checks that the
// one deadlock found is predicted, blocks the test's (goroutine 2's) send
// alone and has a witness the checker accepts with opts, and returns it;
// otherwise checks that there is no deadlock.
func testSendBlocked(t *testing.T, tr *trace.Trace, opts Options, want bool) (Finding, bool) {
	t.Helper()
	res, err := Analyze(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []Finding
	for _, f := range res.Findings {
		if f.Kind == KindDeadlock {
			got = append(got, f)
		}
	}
	if !want {
		if len(got) != 0 {
			t.Fatalf("findings %+v, want none", got)
		}
		return Finding{}, false
	}
	if len(got) != 1 || !got[0].Predicted {
		t.Fatalf("findings %+v, want one predicted deadlock", res.Findings)
	}
	f := got[0]
	if len(f.Events) != 1 || tr.Events[f.Events[0]].Op != trace.OpSend || tr.Events[f.Events[0]].G != 2 {
		t.Errorf("blocked %v, want the test's send", f.Events)
	}
	if err := CheckWitness(tr, &f, opts); err != nil {
		t.Errorf("witness rejected: %v", err)
	}
	return f, true
}
