// This file benchmarks the blocking layer (deadlock_channel.go, with the
// cycle search of deadlock_cycles.go) on a trace built to make the
// wait-for graph dense: every sender holds one global lock across its
// unbuffered sends and every receiver takes that lock before it
// receives, so each lock request has every send as a holder. The run
// orders every receiver's section before its sender's (no cycle is
// real past the first of each pair, and a gate lock rules out the
// longer ones), so the search does its whole work and proves little.
// In the "after" variant the receivers take the lock after they
// receive: the fixed two-goroutine shape has no candidate there and
// leaves the closure budget to the cycle search, whose graph is as dense.
// In the "buffered" variant each channel has a buffer of one value, in a
// heap allocation of its own, every send and receive one release-acquire
// of its slot: every send is a request of the cycle search on a full
// buffer (witness.BufChans), as dense.
//
//	go test -run XXX -bench BlockingLayerDense -benchtime 1x ./predict

package predict

import (
	"fmt"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// gateSynth builds the trace: pairs sender/receiver goroutines, rounds
// rendezvous each, every sender holding the global lock g across its
// send, every receiver taking g before it receives.
func gateSynth(pairs, rounds int, after, buffered bool) *trace.Trace {
	b := trace.NewBuilder(trace.Header{Format: "synthetic"})
	st := b.Stacks()
	stack := func(line int) trace.StackID {
		return st.Push(0, trace.Frame{Func: "synth.gate", File: "/synth/gate.go", Line: line})
	}
	sGo, sLock, sUnlock, sSend, sRecv, sRLock, sRUnlock := stack(10), stack(11), stack(12), stack(13), stack(14), stack(15), stack(16)
	main := b.Goroutine(0, 0)
	b.SetGoroutine(main, "TestGate", "")
	g := b.Object(trace.ObjMutex, 0x100, 8, "g")
	var s, r []trace.GoID
	var chans []trace.ObjID
	for i := range pairs {
		c := b.Object(trace.ObjChan, chanAddr(i, buffered), 8, "")
		chans = append(chans, c)
		for _, gs := range []*[]trace.GoID{&s, &r} {
			x := b.Goroutine(main, sGo)
			b.SetGoroutine(x, "TestGate", "")
			b.Add(trace.Event{G: main, Op: trace.OpGo, Peer: int32(x), Stack: sGo})
			b.Add(trace.Event{G: x, Op: trace.OpStart, Peer: int32(main), Stack: sGo})
			*gs = append(*gs, x)
		}
	}
	for range rounds {
		for i := range pairs {
			caddr := chanAddr(i, buffered)
			rsection := func() {
				b.Add(trace.Event{G: r[i], Op: trace.OpLock, Obj: g, Addr: 0x100, Sync: trace.SyncAcquire, Stack: sRLock})
				b.Add(trace.Event{G: r[i], Op: trace.OpUnlock, Obj: g, Addr: 0x100, Sync: trace.SyncRelease, Stack: sRUnlock})
			}
			if !after {
				rsection()
			}
			b.Add(trace.Event{G: s[i], Op: trace.OpLock, Obj: g, Addr: 0x100, Sync: trace.SyncAcquire, Stack: sLock})
			send := int32(b.Len())
			if buffered {
				b.Add(trace.Event{G: s[i], Op: trace.OpSend, Obj: chans[i], Addr: caddr, Sync: trace.SyncReleaseAcquire, Stack: sSend})
				b.Add(trace.Event{G: r[i], Op: trace.OpRecv, Obj: chans[i], Addr: caddr, Sync: trace.SyncReleaseAcquire, Peer: send, Stack: sRecv})
			} else {
				b.Add(trace.Event{G: s[i], Op: trace.OpSend, Obj: chans[i], Addr: caddr, Sync: trace.SyncRelease, Stack: sSend})
				b.Add(trace.Event{G: r[i], Op: trace.OpRecv, Obj: chans[i], Addr: caddr, Sync: trace.SyncAcquire, Peer: send, Stack: sRecv})
				b.Add(trace.Event{G: r[i], Op: trace.OpRecv, Obj: chans[i], Addr: caddr, Sync: trace.SyncRelease, Stack: sRecv})
				b.Add(trace.Event{G: s[i], Op: trace.OpSend, Obj: chans[i], Addr: caddr, Sync: trace.SyncAcquire, Stack: sSend})
			}
			b.Add(trace.Event{G: s[i], Op: trace.OpUnlock, Obj: g, Addr: 0x100, Sync: trace.SyncRelease, Stack: sUnlock})
			if after {
				rsection()
			}
		}
	}
	t, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return t
}

// chanAddr is the address of pair i's channel: for a buffered one, its
// one slot, after the header of its heap allocation.
func chanAddr(i int, buffered bool) uint64 {
	if buffered {
		return trace.LifeAddr(uint64(i+1), 0x60)
	}
	return uint64(0x1000 + 16*i)
}

// BenchmarkBlockingLayerDense times the blocking layer, the engine and
// its causal cone built before.
func BenchmarkBlockingLayerDense(b *testing.B) {
	gateCases(b, []gateCase{{64, 64, false, false}, {256, 64, false, false}, {1024, 16, false, false}, {64, 64, true, false}, {256, 64, true, false}, {1024, 16, true, false},
		{64, 64, false, true}, {1024, 16, false, true}}, func(b *testing.B, tr *trace.Trace, e *engine) {
		var fs []Finding
		var st Stage
		cpu0 := cpuTime()
		timeEvents(b, len(tr.Events), func() {
			var err error
			if fs, st, err = e.blockingLayer(); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(len(fs)), "deadlocks")
		b.ReportMetric(float64(st.Cycles), "patterns")
		b.ReportMetric(float64(st.Deadlocks), "tried")
	})
}

// gateCase is one trace of gateSynth.
type gateCase struct {
	pairs, rounds   int
	after, buffered bool
}

// gateCases runs bench on each case's trace and engine, its causal cone
// built.
func gateCases(b *testing.B, cases []gateCase, bench func(b *testing.B, tr *trace.Trace, e *engine)) {
	for _, p := range cases {
		name := fmt.Sprintf("%dpairs-%drounds", p.pairs, p.rounds)
		if p.after {
			name += "-after"
		}
		if p.buffered {
			name += "-buffered"
		}
		b.Run(name, func(b *testing.B) {
			tr := gateSynth(p.pairs, p.rounds, p.after, p.buffered)
			e := testEngine(b, tr)
			if err := e.needCone(); err != nil {
				b.Fatal(err)
			}
			bench(b, tr, e)
		})
	}
}

// BenchmarkBlockingCyclesDense times the cycle search alone, its closure
// budget whole, on BenchmarkBlockingLayerDense's traces.
func BenchmarkBlockingCyclesDense(b *testing.B) {
	gateCases(b, []gateCase{{64, 64, false, false}, {1024, 16, false, false}, {64, 64, true, false}, {1024, 16, true, false}, {64, 64, false, true}, {1024, 16, false, true}}, func(b *testing.B, tr *trace.Trace, e *engine) {
		co := newChanOps(e.c)
		var l *chanLayer
		cpu0 := cpuTime()
		timeEvents(b, len(tr.Events), func() {
			l = &chanLayer{e: e, co: co, proved: make(map[patternKey]bool), proved3: make(map[patternKey]bool)}
			if err := l.blockingCycles(); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(len(l.out)), "deadlocks")
		b.ReportMetric(float64(l.n.patterns), "patterns")
		b.ReportMetric(float64(l.n.closures), "tried")
	})
}
