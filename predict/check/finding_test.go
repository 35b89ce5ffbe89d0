package check

import (
	"testing"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
)

// A race between two cleanups belongs to the test that wrote them, not to
// the test that happened to be running when the collector ran them.
func TestCleanupRaceBelongsToItsTest(t *testing.T) {
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
	st := b.Stacks()
	at := func(fn, file string, line int) trace.StackID {
		return st.Push(0, trace.Frame{Func: fn, File: file, Line: line})
	}
	testA := b.Goroutine(0, 0)
	b.SetGoroutine(testA, "TestA", "")
	testB := b.Goroutine(0, 0) // ran and ended before the collector did
	b.SetGoroutine(testB, "TestB", "")
	b.Add(trace.Event{Op: trace.OpStart, G: testB})
	b.Add(trace.Event{Op: trace.OpEnd, G: testB})
	b.Add(trace.Event{Op: trace.OpStart, G: testA})
	createGs := at("runtime.(*cleanupQueue).createGs", "/goroot/src/runtime/mcleanup.go", 600)
	var ws []int
	for k := 0; k < 2; k++ {
		g := b.Goroutine(testA, createGs)
		b.SetGoroutine(g, "TestA", "") // the running test
		b.Add(trace.Event{Op: trace.OpGo, G: testA, Peer: int32(g), Stack: createGs})
		b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(testA)})
		ws = append(ws, b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: 0x1000, Size: 8,
			Stack: at("example.TestB.func1", "/src/example/f_test.go", 12)}))
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	f, ok := userFinding(tr, &predict.Finding{Kind: predict.KindRace, Events: ws}, nil, newTraceIndex(tr))
	if !ok || f.Test != "TestB" {
		t.Errorf("finding of test %q (kept %v), want TestB", f.Test, ok)
	}
	// A goroutine the test started keeps its tree's test.
	tr.Goroutines[3].Create = at("example.TestA", "/src/example/f_test.go", 20)
	tr.Goroutines[4].Create = tr.Goroutines[3].Create
	if f, _ := userFinding(tr, &predict.Finding{Kind: predict.KindRace, Events: ws}, nil, newTraceIndex(tr)); f.Test != "TestA" {
		t.Errorf("finding of test %q, want TestA", f.Test)
	}
}
