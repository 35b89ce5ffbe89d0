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

// The standard library's own package-level state, touched only from its
// own code, is never the user's atomicity violation; memory the user's
// code declared or allocated is, even when only library code touches it;
// and a data race is always reported.
func TestLibraryOwnState(t *testing.T) {
	for _, tc := range []struct {
		name     string
		obj      string // the variable's name
		alloc    bool   // a heap object
		fn, file string // innermost frame of both accesses
		race     bool   // a data race rather than an atomicity violation
		want     bool   // kept as the user's finding
	}{
		{"library state from the library", "syscall.forking", false, "syscall.acquireForkLock", "/goroot/src/syscall/forkpipe2.go", false, false},
		{"race on library state", "flag.CommandLine", false, "flag.(*FlagSet).Parse", "/goroot/src/flag/flag.go", true, true},
		{"library state from user code", "syscall.forking", false, "example.TestA.func1", "/src/example/f_test.go", false, true},
		{"user state from the library", "example.counter", false, "sync/atomic.AddInt64", "/goroot/src/sync/atomic/doc.go", false, true},
		{"another package's state", "os.Args", false, "syscall.acquireForkLock", "/goroot/src/syscall/forkpipe2.go", false, true},
		{"heap object", "", true, "bufio.(*Reader).Read", "/goroot/src/bufio/bufio.go", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
			st := b.Stacks()
			test := b.Goroutine(0, 0)
			b.SetGoroutine(test, "TestA", "")
			b.Add(trace.Event{Op: trace.OpStart, G: test})
			user := st.Push(0, trace.Frame{Func: "example.TestA.func1", File: "/src/example/f_test.go", Line: 9})
			at := user
			if tc.fn != "example.TestA.func1" {
				at = st.Push(user, trace.Frame{Func: tc.fn, File: tc.file, Line: 30})
			}
			obj := b.Object(trace.ObjVar, 0x1000, 8, tc.obj)
			if tc.alloc {
				b.SetObject(obj, "", user)
			}
			// Goroutine 2 writes twice, goroutine 3 once between: a race
			// takes the last two, an atomicity violation all three.
			var ws []int
			var gs []trace.GoID
			for k := 0; k < 2; k++ {
				g := b.Goroutine(test, user)
				b.SetGoroutine(g, "TestA", "")
				b.Add(trace.Event{Op: trace.OpGo, G: test, Peer: int32(g), Stack: user})
				b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(test)})
				gs = append(gs, g)
			}
			for _, g := range []trace.GoID{gs[0], gs[1], gs[0]} {
				ws = append(ws, b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: 0x1000, Size: 8, Obj: obj, Stack: at}))
			}
			tr, err := b.Trace()
			if err != nil {
				t.Fatal(err)
			}
			f := &predict.Finding{Kind: predict.KindAtomicity, Events: ws}
			if tc.race {
				f = &predict.Finding{Kind: predict.KindRace, Events: ws[1:]}
			}
			if _, ok := userFinding(tr, f, nil, newTraceIndex(tr)); ok != tc.want {
				t.Errorf("kept %v, want %v", ok, tc.want)
			}
		})
	}
}
