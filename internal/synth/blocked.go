// This file generates the trace of a test that leaks goroutines blocked in
// a send (predict's ObservedBlocked case), at any number of them.

package synth

import (
	"fmt"

	"github.com/seer-tools/seer/trace"
)

// Blocked returns the trace of this test, which returns while its workers
// goroutines sit blocked for ever in a send that nothing receives:
//
//	func TestBlocked(t *testing.T) { // p_test.go:10
//		ch := make(chan int)
//		for range workers {
//			go func() { // p_test.go:12
//				x = 1
//				ch <- 1
//			}()
//			for range filler {
//				_ = x
//			}
//		}
//		_ = x
//	}
//
// with each worker's events made before the next one starts, the test's
// reads between its write and its send (the send's own event, chansend's
// read of the channel, has runtime frames only). It also returns each
// worker's write, in order: its goroutine's last event with a frame of
// the test's file. The trace's GOROOT is /goroot.
func Blocked(workers, filler int) (*trace.Trace, []int, error) {
	if workers < 1 || filler < 0 {
		return nil, nil, fmt.Errorf("synth.Blocked: %d workers, %d filler reads: want at least 1 and 0", workers, filler)
	}
	const goroot = "/goroot"
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: goroot})
	st := b.Stacks()
	runner := st.Push(0, trace.Frame{Func: "testing.tRunner", File: goroot + "/src/testing/testing.go", Line: 1})
	user := st.Push(runner, trace.Frame{Func: "example.com/p.TestBlocked", File: "/src/p/p_test.go", Line: 10})
	worker := st.Push(0, trace.Frame{Func: "example.com/p.TestBlocked.func1", File: "/src/p/p_test.go", Line: 12})
	send := st.Push(st.Push(0, trace.Frame{Func: "runtime.chansend", File: goroot + "/src/runtime/chan.go", Line: 2}),
		trace.Frame{Func: "runtime.chansend1", File: goroot + "/src/runtime/chan.go", Line: 1})
	main := b.Goroutine(0, 0)
	b.SetGoroutine(main, "TestBlocked", "")
	x := b.Object(trace.ObjVar, 0x1000, 8, "")
	ch := b.Object(trace.ObjVar, 0x2000, 8, "")
	var writes []int
	for range workers {
		g := b.Goroutine(main, user)
		b.SetGoroutine(g, "TestBlocked", "")
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(g), Stack: user, Sync: trace.SyncRelease})
		b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(main), Stack: worker, Sync: trace.SyncAcquire})
		writes = append(writes, b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: 0x1000, Size: 8, Obj: x, Stack: worker}))
		for range filler {
			b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: 0x1000, Size: 8, Obj: x, Stack: user})
		}
		b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: 0x2000, Size: 8, Obj: ch, Stack: send})
	}
	b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: 0x1000, Size: 8, Obj: x, Stack: user})
	t, err := b.Trace()
	return t, writes, err
}
