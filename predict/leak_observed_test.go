package predict

import (
	"context"
	"errors"
	"reflect"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

// blockedRun is synth.Blocked: a test that returns while workers
// goroutines sit blocked in a send, with filler events of the test's
// between every two of theirs, and each worker's write.
func blockedRun(workers, filler int) (*trace.Trace, []int) {
	t, writes, err := synthtrace.Blocked(workers, filler)
	if err != nil {
		panic(err)
	}
	return t, writes
}

func TestObservedBlockedReportsLastUserEvent(t *testing.T) {
	tr, writes := blockedRun(50, 20)
	fs := ObservedBlocked(tr, false)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want one for the 50 workers: %+v", len(fs), fs)
	}
	f := fs[0]
	if f.Kind != KindLeak || f.Count != 50 || len(f.Events) != 1 || f.Events[0] != writes[0] {
		t.Errorf("finding %s, count %d, events %v; want a leak of 50 goroutines at event %d (the first worker's write)",
			f.Kind, f.Count, f.Events, writes[0])
	}
	if got := BlockedIn(tr, writes[0]); got != "send" {
		t.Errorf("BlockedIn = %q, want send", got)
	}
}

// ObservedBlockedContext finds what ObservedBlocked and ObservedLeft
// find, and stops with its context's error, finding nothing, once it is
// cancelled.
func TestObservedBlockedContextStops(t *testing.T) {
	tr, _ := blockedRun(50, 20)
	left := func(g trace.GoID) bool { return g%2 == 0 }
	for _, tc := range []struct {
		name string
		hung bool
		left func(trace.GoID) bool
		want []Finding
	}{
		{"blocked", false, nil, ObservedBlocked(tr, false)},
		{"hung", true, nil, ObservedBlocked(tr, true)},
		{"left", false, left, ObservedLeft(tr, left)},
	} {
		got, err := ObservedBlockedContext(context.Background(), tr, tc.hung, tc.left)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, error %v; want %+v", tc.name, got, err, tc.want)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if got, err := ObservedBlockedContext(ctx, tr, tc.hung, tc.left); got != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("%s, cancelled: %+v, error %v; want none and %v", tc.name, got, err, context.Canceled)
		}
	}
}

// BenchmarkObservedBlocked is a run of 20,000 blocked goroutines in 2
// million events: a walk of the trace per goroutine made it 54 s long (35
// ms in one pass).
func BenchmarkObservedBlocked(b *testing.B) {
	tr, _ := blockedRun(20_000, 100)
	b.ResetTimer()
	for range b.N {
		if fs := ObservedBlocked(tr, false); len(fs) != 1 || fs[0].Count != 20_000 {
			b.Fatalf("findings %+v", fs)
		}
	}
}

// condRun builds the trace of a test whose goroutine starts a goroutine
// that parks in Cond.Wait and, if awake, another that is still running
// (its last event shows no blocking call) when the process exits.
func condRun(awake bool) *trace.Trace {
	const goroot = "/goroot"
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: goroot})
	st := b.Stacks()
	runner := st.Push(0, trace.Frame{Func: "testing.tRunner", File: goroot + "/src/testing/testing.go", Line: 1})
	user := st.Push(runner, trace.Frame{Func: "example.com/p.TestCond", File: "/src/p/p_test.go", Line: 10})
	worker := st.Push(0, trace.Frame{Func: "example.com/p.TestCond.func1", File: "/src/p/p_test.go", Line: 12})
	wait := st.Push(worker, trace.Frame{Func: "sync.(*Cond).Wait", File: goroot + "/src/sync/cond.go", Line: 3})
	main := b.Goroutine(0, 0)
	b.SetGoroutine(main, "TestCond", "")
	x := b.Object(trace.ObjVar, 0x1000, 8, "")
	start := func() trace.GoID {
		g := b.Goroutine(main, user)
		b.SetGoroutine(g, "TestCond", "")
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(g), Stack: user, Sync: trace.SyncRelease})
		b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(main), Stack: worker, Sync: trace.SyncAcquire})
		return g
	}
	waiter := start()
	b.Add(trace.Event{Op: trace.OpWrite, G: waiter, Addr: 0x1000, Size: 8, Obj: x, Stack: worker})
	b.Add(trace.Event{Op: trace.OpRead, G: waiter, Addr: 0x1000, Size: 8, Obj: x, Stack: wait})
	if awake {
		g := start()
		b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: 0x1000, Size: 8, Obj: x, Stack: worker})
	}
	b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: 0x1000, Size: 8, Obj: x, Stack: user})
	t, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return t
}

// A goroutine left in Cond.Wait is a leak only when no goroutine of its
// test is still awake to signal it (net/http's connection reader wakes
// its server goroutine once its read returns, after the test may have).
func TestObservedCondWaitNeedsNoWaker(t *testing.T) {
	if fs := ObservedBlocked(condRun(false), false); len(fs) != 1 || fs[0].Kind != KindLeak {
		t.Errorf("no goroutine awake: findings %+v, want one leak", fs)
	}
	if fs := ObservedBlocked(condRun(true), false); len(fs) != 0 {
		t.Errorf("a goroutine of the test awake: findings %+v, want none", fs)
	}
}
