// This file implements a synthetic trace shaped like the bench harness's
// stress-chan suite (issue 13): producers hand heap messages to consumers
// over buffered channels, every channel operation a release-acquire on
// its buffer slot, and the payload is handed over only through the
// channel. All goroutines come to know of all: the case for the dense
// mirrors (clock_vc.go) and for taking the cone from must-happen-before
// (analyze.go's buildCone, through needCone).
//
//	go test -run XXX -bench ChanStress ./predict

package predict

import (
	"context"
	"math/rand"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func synthChan(producers, channels, sends int, seed int64) *trace.Trace {
	r := rand.New(rand.NewSource(seed))
	b := trace.NewBuilder(trace.Header{Format: "synthetic"})
	st := b.Stacks()
	stack := func(line int) trace.StackID {
		return st.Push(0, trace.Frame{Func: "synth.chan", File: "/synth/chan.go", Line: line})
	}
	sGo, sSend, sWrite, sRecv, sRead, sDone, sWait := stack(10), stack(11), stack(12), stack(13), stack(14), stack(15), stack(16)
	const (
		chanBase = 0x300000
		msgBase  = 0x10000000
		wgAddr   = 0x400000
		slots    = 16
	)
	wg := b.Object(trace.ObjWaitGroup, wgAddr, 8, "")
	main := b.Goroutine(0, 0)
	type ch struct {
		q          []uint64 // messages in the buffer
		sent, recv int
	}
	chans := make([]ch, channels)
	slot := func(c, n int) uint64 { return chanBase + uint64(c)*slots*8 + uint64(n%slots)*8 }
	var prods, cons []trace.GoID
	left := make([]int, producers)
	for k := range left {
		left[k] = sends / producers
		if k < sends%producers {
			left[k]++
		}
	}
	for k := 0; k < producers; k++ {
		g := b.Goroutine(main, sGo)
		b.AddValue(trace.Event{Op: trace.OpWGAdd, G: main, Obj: wg, Addr: wgAddr, Sync: trace.SyncReleaseMerge, Stack: sGo}, 1, uint64(k)<<32)
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(g), Stack: sGo})
		b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(main), Stack: sGo})
		prods = append(prods, g)
	}
	for c := 0; c < channels; c++ {
		g := b.Goroutine(main, sGo)
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(g), Stack: sGo})
		b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(main), Stack: sGo})
		cons = append(cons, g)
	}
	msg := uint64(msgBase)
	active := producers
	for done := 0; done < sends; {
		if r.Intn(2) == 0 && active > 0 { // a producer sends, if its channel has room
			k := r.Intn(producers)
			if left[k] == 0 {
				continue
			}
			c := (k + left[k]) % channels
			if len(chans[c].q) == slots {
				continue
			}
			g := prods[k]
			b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: msg, Size: 8, Stack: sWrite})
			b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: msg + 8, Size: 8, Stack: sWrite})
			b.Add(trace.Event{Op: trace.OpSend, G: g, Addr: slot(c, chans[c].sent), Sync: trace.SyncReleaseAcquire, Peer: -1, Stack: sSend})
			chans[c].q = append(chans[c].q, msg)
			chans[c].sent++
			msg += 64
			if left[k]--; left[k] == 0 {
				b.AddValue(trace.Event{Op: trace.OpWGDone, G: g, Obj: wg, Addr: wgAddr, Sync: trace.SyncReleaseMerge, Stack: sDone}, ^uint64(0), 0)
				b.Add(trace.Event{Op: trace.OpEnd, G: g, Stack: sDone})
				active--
			}
			continue
		}
		c := r.Intn(channels) // a consumer receives, if its channel holds one
		if len(chans[c].q) == 0 {
			continue
		}
		g := cons[c]
		m := chans[c].q[0]
		chans[c].q = chans[c].q[1:]
		b.Add(trace.Event{Op: trace.OpRecv, G: g, Addr: slot(c, chans[c].recv), Sync: trace.SyncReleaseAcquire, Peer: -1, Stack: sRecv})
		chans[c].recv++
		b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: m, Size: 8, Stack: sRead})
		b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: m + 8, Size: 8, Stack: sRead})
		done++
	}
	b.Add(trace.Event{Op: trace.OpWGWait, G: main, Obj: wg, Addr: wgAddr, Sync: trace.SyncAcquire, Stack: sWait})
	for _, g := range cons {
		b.Add(trace.Event{Op: trace.OpEnd, G: g, Stack: sDone})
	}
	t, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return t
}

// On a channel-only trace the cone's clocks are must-happen-before's:
// the analysis takes them instead of replaying the trace again, and the
// misuse layer's closures (which need the cone) still run.
func TestChanStressConeFromMHB(t *testing.T) {
	tr := synthChan(300, 30, 6000, 1)
	c := newCTP(tr)
	m := newMemory(c)
	o := Options{}
	e, err := prePass(context.Background(), tr, c, m, o.defaults())
	if err != nil {
		t.Fatal(err)
	}
	if !e.mhb.rfImplied || e.mhb.acq != nil {
		t.Fatalf("must-happen-before pass: read-from implied %v, rises kept %v; want implied, none kept (the cone reads them from the history)", e.mhb.rfImplied, e.mhb.acq != nil)
	}
	if err := e.needCone(); err != nil {
		t.Fatal(err)
	}
	if e.cone.h != e.mhb.h || e.cone.acq == nil {
		t.Fatalf("the cone was replayed again (%v), or has no rises at release-acquire events (%v), though must-happen-before implies it", e.cone.h != e.mhb.h, e.cone.acq == nil)
	}
	res, err := Analyze(context.Background(), tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding on a race-free trace: %s", f.Kind)
	}
}

func BenchmarkChanStress(b *testing.B) {
	tr := synthChan(1000, 100, 50_000, 1)
	run := func() {
		if _, err := Analyze(context.Background(), tr, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	timeEvents(b, len(tr.Events), run)
	b.ReportMetric(float64(peak(run))/float64(len(tr.Events)), "peak-heap-B/event")
}
