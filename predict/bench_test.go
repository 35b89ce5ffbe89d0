// This file implements the synthetic trace generator for benchmarks and
// the benchmarks themselves: events per second per stage and peak memory.
//
//	go test -run XXX -bench . ./predict

package predict

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

// synthParams shape a synthetic trace: a main goroutine starts the
// workers and waits for them on a WaitGroup-like release-merge/acquire;
// workers mostly touch their own variables, take locks around shared
// ones, send to each other through release/acquire signals, use atomics,
// and now and then touch a shared variable without its lock.
type synthParams struct {
	goroutines, locks, vars, events int
	racy                            float64 // share of shared accesses made without the lock
	seed                            int64
	// pool makes the workers a worker pool: they receive jobs that main
	// sent before starting them, hand results to main, and touch the
	// shared atomic counter once in a hundred events. Without it, workers
	// signal random neighbours and hit the counters every ten events: all
	// goroutines then talk to all, which makes vector clocks dense (the
	// worst case, Θ(events × goroutines) for any exact clock history).
	pool bool
}

func synth(p synthParams) *trace.Trace {
	r, b, stack := synthStart(p.seed, "synth.worker", "/synth/worker.go")
	stacks := make([]trace.StackID, 64)
	for i := range stacks {
		stacks[i] = stack(10 + i)
	}
	main := b.Goroutine(0, 0)
	const (
		varBase   = 0x100000
		localBase = 0x10000000
		lockBase  = 0x200000
		sigBase   = 0x300000
		wgAddr    = 0x400000
	)
	lockObj := make([]trace.ObjID, p.locks)
	for i := range lockObj {
		lockObj[i] = b.Object(trace.ObjMutex, lockBase+uint64(8*i), 8, "")
	}
	wg := b.Object(trace.ObjWaitGroup, wgAddr, 8, "")
	const jobs, results = sigBase + 0x1000, sigBase + 0x2000
	if p.pool {
		for j := 0; j < 16; j++ {
			b.Add(trace.Event{Op: trace.OpSend, G: main, Addr: jobs, Sync: trace.SyncReleaseMerge, Stack: stacks[51]})
		}
	}
	gs := make([]trace.GoID, p.goroutines)
	for i := range gs {
		gs[i] = b.Goroutine(main, stacks[0])
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(gs[i]), Stack: stacks[0]})
	}
	holder := make([]trace.GoID, p.locks)
	type wstate struct {
		started bool
		held    int // lock index + 1
		inCS    int // accesses left in the section
	}
	ws := make([]wstate, len(gs))
	perG := p.events / max(1, len(gs))
	done := 0
	left := make([]int, len(gs))
	for i := range left {
		left[i] = perG
	}
	active := len(gs)
	for active > 0 {
		k := r.Intn(len(gs))
		if left[k] == 0 {
			continue
		}
		g := gs[k]
		w := &ws[k]
		if !w.started {
			w.started = true
			b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(main), Stack: stacks[1]})
		}
		// A burst of events from this goroutine.
		for n := 1 + r.Intn(8); n > 0 && left[k] > 0; n-- {
			left[k]--
			done++
			if left[k] == 0 {
				if w.held > 0 {
					holder[w.held-1] = 0
					b.Add(trace.Event{Op: trace.OpUnlock, G: g, Obj: lockObj[w.held-1], Addr: lockBase + uint64(8*(w.held-1)), Sync: trace.SyncRelease, Stack: stacks[3]})
					w.held = 0
				}
				b.Add(trace.Event{Op: trace.OpWGDone, G: g, Obj: wg, Addr: wgAddr, Sync: trace.SyncReleaseMerge, Stack: stacks[2]})
				b.Add(trace.Event{Op: trace.OpEnd, G: g, Stack: stacks[2]})
				active--
				break
			}
			if w.held > 0 {
				l := w.held - 1
				if w.inCS == 0 {
					holder[l] = 0
					w.held = 0
					b.Add(trace.Event{Op: trace.OpUnlock, G: g, Obj: lockObj[l], Addr: lockBase + uint64(8*l), Sync: trace.SyncRelease, Stack: stacks[3]})
					continue
				}
				w.inCS--
				v := l*p.vars/max(1, p.locks) + r.Intn(max(1, p.vars/max(1, p.locks)))
				op := trace.OpRead
				if r.Intn(3) == 0 {
					op = trace.OpWrite
				}
				b.Add(trace.Event{Op: op, G: g, Addr: varBase + uint64(8*v), Size: 8, Stack: stacks[4+v%20]})
				continue
			}
			switch x := r.Intn(100); {
			case x < 60: // local variable
				op := trace.OpRead
				if r.Intn(2) == 0 {
					op = trace.OpWrite
				}
				b.Add(trace.Event{Op: op, G: g, Addr: localBase + uint64(k)*4096 + uint64(8*r.Intn(16)), Size: 8, Stack: stacks[30+r.Intn(10)]})
			case x < 75 && p.locks > 0: // lock a shared group
				l := r.Intn(p.locks)
				if holder[l] != 0 {
					continue
				}
				holder[l] = g
				w.held, w.inCS = l+1, 1+r.Intn(4)
				b.Add(trace.Event{Op: trace.OpLock, G: g, Obj: lockObj[l], Addr: lockBase + uint64(8*l), Sync: trace.SyncAcquire, Stack: stacks[5]})
			case x < 80: // shared access without the lock
				if r.Float64() < p.racy*20 {
					v := r.Intn(max(1, p.vars))
					b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: varBase + uint64(8*v), Size: 8, Stack: stacks[40+v%10]})
				} else {
					b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: localBase + uint64(k)*4096, Size: 8, Stack: stacks[50]})
				}
			case x < 90 && p.pool: // take a job / hand over a result
				if r.Intn(2) == 0 {
					b.Add(trace.Event{Op: trace.OpSend, G: g, Addr: results, Sync: trace.SyncReleaseMerge, Stack: stacks[51]})
				} else {
					b.Add(trace.Event{Op: trace.OpRecv, G: g, Addr: jobs, Sync: trace.SyncAcquire, Peer: -1, Stack: stacks[52]})
				}
			case x >= 91 && p.pool: // local work
				b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: localBase + uint64(k)*4096 + 8, Size: 8, Stack: stacks[33]})
			case x < 90: // signal a neighbour / wait for one
				s := sigBase + uint64(8*(k%16))
				if r.Intn(2) == 0 {
					b.Add(trace.Event{Op: trace.OpSend, G: g, Addr: s, Sync: trace.SyncRelease, Stack: stacks[51]})
				} else {
					b.Add(trace.Event{Op: trace.OpRecv, G: g, Addr: s, Sync: trace.SyncAcquire, Peer: -1, Stack: stacks[52]})
				}
			default: // atomic counter
				op := []trace.Op{trace.OpAtomicLoad, trace.OpAtomicRMW, trace.OpAtomicStore}[r.Intn(3)]
				b.Add(trace.Event{Op: op, G: g, Addr: 0x500000 + uint64(8*r.Intn(4)), Size: 8, Stack: stacks[53]})
			}
		}
	}
	b.Add(trace.Event{Op: trace.OpWGWait, G: main, Obj: wg, Addr: wgAddr, Sync: trace.SyncAcquire, Stack: stacks[2]})
	if p.pool {
		b.Add(trace.Event{Op: trace.OpRecv, G: main, Addr: results, Sync: trace.SyncAcquire, Peer: -1, Stack: stacks[52]})
	}
	// main reads the results
	for v := 0; v < p.vars; v++ {
		b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: varBase + uint64(8*v), Size: 8, Stack: stacks[60]})
	}
	t, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return t
}

// peakRSS returns the process's peak resident set while f runs, from
// Linux's VmHWM after resetting it (clear_refs 5), or 0 where that is not
// available. Unlike peak's sampling, it cannot miss a short peak.
func peakRSS(f func()) uint64 {
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		f()
		return 0
	}
	f()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// timeEvents times b.N calls of run over a trace of n events, reports
// events per second, and stops the timer.
func timeEvents(b *testing.B, n int, run func()) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.StopTimer()
}

// peak samples the heap while f runs.
func peak(f func()) uint64 {
	var max atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > max.Load() {
				max.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return max.Load()
}

var benchTraces = map[string]synthParams{
	"1M-8g":           {goroutines: 8, locks: 4, vars: 64, events: 1_000_000, racy: 0.0002, seed: 1},
	"1M-2000g-pool":   {goroutines: 2000, locks: 16, vars: 256, events: 1_000_000, racy: 0.0002, seed: 2, pool: true},
	"200k-5000g-pool": {goroutines: 5000, locks: 8, vars: 128, events: 200_000, racy: 0.0005, seed: 3, pool: true},
	"200k-1000g-mesh": {goroutines: 1000, locks: 8, vars: 128, events: 200_000, racy: 0.0005, seed: 4},
}

var benchNames = []string{"1M-8g", "1M-2000g-pool", "200k-5000g-pool", "200k-1000g-mesh"}

func BenchmarkPrePass(b *testing.B) {
	for _, name := range benchNames {
		tr := synth(benchTraces[name])
		b.Run(name, func(b *testing.B) {
			run := func() {
				c := newCTP(tr)
				m := newMemory(c)
				if _, err := newClocks(context.Background(), c, m, clockMode{}); err != nil {
					b.Fatal(err)
				}
			}
			timeEvents(b, len(tr.Events), run)
			b.ReportMetric(float64(peak(run))/(1<<20), "peak-MiB")
		})
	}
}

func BenchmarkAnalyze(b *testing.B) {
	for _, name := range benchNames {
		tr := synth(benchTraces[name])
		b.Run(name, func(b *testing.B) {
			var res *Result
			var prePass time.Duration // the fastest of the timed runs
			run := func() {
				var err error
				res, err = Analyze(context.Background(), tr, Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run()
				if i == 0 || res.Stats.PrePass < prePass {
					prePass = res.Stats.PrePass
				}
			}
			b.ReportMetric(float64(len(tr.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.StopTimer()
			// The stages are timed on the runs above: peak's sampler stops
			// the world every 20 ms (ReadMemStats), which would count.
			b.ReportMetric(float64(len(tr.Events))/prePass.Seconds(), "prepass-events/s")
			s := res.Stats
			b.ReportMetric(s.Cone.Seconds(), "cone-s")
			b.ReportMetric(float64(peak(run))/(1<<20), "peak-MiB")
			b.ReportMetric(float64(len(res.Findings)), "findings")
			for _, st := range s.Stages {
				b.ReportMetric(st.Time.Seconds(), st.Name+"-s")
			}
			b.ReportMetric(s.Check.Seconds(), "check-s")
		})
	}
}

// BenchmarkAnalyze10M measures time and peak heap (the trace included) on
// ten million events, the size of a large package's test run:
//
//	go test -run XXX -bench Analyze10M -benchtime 1x ./predict
func BenchmarkAnalyze10M(b *testing.B) {
	for _, name := range []string{"10M-8g", "10M-2000g-pool"} {
		p := benchTraces[strings.Replace(name, "10M", "1M", 1)]
		p.events *= 10
		tr := synth(p)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		traceMiB := float64(ms.HeapAlloc) / (1 << 20)
		b.Run(name, func(b *testing.B) {
			var res *Result
			var top uint64
			for i := 0; i < b.N; i++ {
				top = max(top, peak(func() {
					var err error
					if res, err = Analyze(context.Background(), tr, Options{}); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(len(tr.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(top)/(1<<20), "peak-MiB")
			b.ReportMetric(traceMiB, "trace-MiB")
			b.ReportMetric(float64(len(tr.Events))/res.Stats.PrePass.Seconds(), "prepass-events/s")
			b.ReportMetric(res.Stats.Cone.Seconds(), "cone-s")
			b.ReportMetric(float64(len(res.Findings)), "findings")
		})
	}
}

// TestSynthAnalyze runs the pipeline on a mid-size synthetic trace and
// checks that it finds the planted races and stays within time.
func TestSynthAnalyze(t *testing.T) {
	tr := synth(synthParams{goroutines: 50, locks: 4, vars: 32, events: 60_000, racy: 0.001, seed: 5})
	start := time.Now()
	res, err := Analyze(context.Background(), tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var races int
	for _, f := range res.Findings {
		if f.Kind == KindRace {
			races++
		}
	}
	if races == 0 {
		t.Errorf("no race found in a trace with unprotected writes")
	}
	t.Logf("%d events: %d findings in %v", len(tr.Events), len(res.Findings), time.Since(start))
	var buf strings.Builder
	res.Stats.Print(&buf)
	t.Log("\n" + buf.String())
}
