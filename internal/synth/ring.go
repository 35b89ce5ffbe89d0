// Package synth generates large traces of Go programs whose shape the
// benchmarks and the stop tests need at a size no recorded test has
// (issue 31). Each trace is what seer record makes of the program its
// function's comment shows: the same operations, with the same
// happens-before meanings (trace/classify.go), in one schedule that the
// program could run.
//
// Entry points: Ring, Blocked.
package synth

import (
	"fmt"

	"github.com/seer-tools/seer/trace"
)

// Ring returns the trace of a ring of workers goroutines passing tokens
// over buffered channels for rounds rounds, each round of each worker
// starting a short-lived goroutine that closes a done channel (issue 31's
// case: Ring(1000, 50) has 51,001 goroutines and about 0.6M events):
//
//	chans := make([]chan int, n) // each made with capacity 1
//	for i := range n {
//		wg.Add(1)
//		go func() {
//			defer wg.Done()
//			for range rounds {
//				v := <-chans[i]
//				done := make(chan struct{})
//				go func() { close(done) }()
//				<-done
//				chans[(i+1)%n] <- v + 1
//			}
//		}()
//	}
//	for i := range chans {
//		chans[i] <- i
//	}
//	wg.Wait()
//
// The schedule runs the workers in turn, each as far as its channels let
// it: a full channel blocks its sender, an empty one its receiver. The
// trace is race-free.
func Ring(workers, rounds int) (*trace.Trace, error) {
	if workers < 2 || rounds < 1 {
		return nil, fmt.Errorf("synth.Ring: %d workers, %d rounds: want at least 2 and 1", workers, rounds)
	}
	b := trace.NewBuilder(trace.Header{Format: "synthetic"})
	st := b.Stacks()
	stack := func(line int) trace.StackID {
		return st.Push(0, trace.Frame{Func: "synth.ring", File: "/synth/ring.go", Line: line})
	}
	sGo, sRecv, sChild, sClose, sWait, sSend, sDone, sAdd, sInit := stack(20), stack(21), stack(22), stack(23), stack(24), stack(25), stack(26), stack(27), stack(28)
	const (
		sliceAddr = 0x1000000 // chans' backing array, 8 bytes an element
		chanBase  = 0x2000000 // channel i at chanBase + 64i
		doneBase  = 0x4000000 // a done channel and its closure's variable: 64 bytes each
		wgAddr    = 0x3000000
	)
	chanAddr := func(i int) uint64 { return chanBase + 64*uint64(i) }
	wg := b.Object(trace.ObjWaitGroup, wgAddr, 16, "wg")
	chans := make([]trace.ObjID, workers)
	for i := range chans {
		chans[i] = b.Object(trace.ObjChan, chanAddr(i), 0, "")
	}
	slice := b.Object(trace.ObjHeap, sliceAddr, 8*uint64(workers), "chans")
	main := b.Goroutine(0, 0)
	for i := range workers {
		b.Add(trace.Event{Op: trace.OpWrite, G: main, Addr: sliceAddr + 8*uint64(i), Size: 8, Obj: slice, Stack: sInit})
	}
	// send records a send on channel c; the receive that takes its value
	// names it (Event.Peer).
	buf := make([]int32, workers) // the send whose value channel i holds, or -1
	send := func(g trace.GoID, c int) {
		buf[c] = int32(b.Add(trace.Event{Op: trace.OpSend, G: g, Addr: chanAddr(c), Obj: chans[c], Sync: trace.SyncReleaseAcquire, Stack: sSend}))
	}
	ws := make([]trace.GoID, workers)
	for i := range ws {
		b.AddValue(trace.Event{Op: trace.OpWGAdd, G: main, Obj: wg, Addr: wgAddr, Sync: trace.SyncReleaseMerge, Stack: sAdd}, 1, uint64(i))
		ws[i] = b.Goroutine(main, sGo)
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(ws[i]), Stack: sGo})
		b.Add(trace.Event{Op: trace.OpStart, G: ws[i], Peer: int32(main)})
	}
	for i := range buf {
		send(main, i)
	}
	var (
		round = make([]int, workers)  // rounds finished
		hold  = make([]bool, workers) // has a token to send on
		left  = workers
		done  = uint64(doneBase)
	)
	for left > 0 {
		for i, g := range ws {
			next := (i + 1) % workers
			if round[i] == rounds {
				continue
			}
			if !hold[i] && buf[i] >= 0 {
				b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: sliceAddr + 8*uint64(i), Size: 8, Obj: slice, Stack: sRecv})
				b.Add(trace.Event{Op: trace.OpRecv, G: g, Addr: chanAddr(i), Obj: chans[i], Peer: buf[i], Sync: trace.SyncReleaseAcquire, Stack: sRecv})
				buf[i] = -1
				hold[i] = true
				d := b.Object(trace.ObjChan, done, 0, "")
				v := b.Object(trace.ObjHeap, done+8, 8, "")
				b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: done + 8, Size: 8, Obj: v, Stack: sChild})
				c := b.Goroutine(g, sChild)
				b.Add(trace.Event{Op: trace.OpGo, G: g, Peer: int32(c), Stack: sChild})
				b.Add(trace.Event{Op: trace.OpStart, G: c, Peer: int32(g)})
				b.Add(trace.Event{Op: trace.OpRead, G: c, Addr: done + 8, Size: 8, Obj: v, Stack: sClose})
				b.Add(trace.Event{Op: trace.OpClose, G: c, Addr: done, Obj: d, Sync: trace.SyncRelease, Stack: sClose})
				b.Add(trace.Event{Op: trace.OpRecv, G: g, Addr: done, Obj: d, Peer: -1, Sync: trace.SyncAcquire, Stack: sWait})
				b.Add(trace.Event{Op: trace.OpEnd, G: c})
				done += 64
			}
			if hold[i] && buf[next] < 0 {
				b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: sliceAddr + 8*uint64(next), Size: 8, Obj: slice, Stack: sSend})
				send(g, next)
				hold[i] = false
				if round[i]++; round[i] == rounds {
					b.AddValue(trace.Event{Op: trace.OpWGDone, G: g, Obj: wg, Addr: wgAddr, Sync: trace.SyncReleaseMerge, Stack: sDone}, ^uint64(0), 0)
					b.Add(trace.Event{Op: trace.OpEnd, G: g})
					left--
				}
			}
		}
	}
	b.Add(trace.Event{Op: trace.OpWGWait, G: main, Obj: wg, Addr: wgAddr, Sync: trace.SyncAcquire, Stack: sWait})
	return b.Trace()
}
