// This file implements the lock-heavy synthetic traces of the deadlock
// benchmarks and the benchmark comparing today's lock-order layer
// (deadlock_lockorder.go) with SPDOffline's (deadlock_spd.go) on them:
//
//	go test -run XXX -bench LockOrderLayers -benchtime 1x ./predict

package predict

import (
	"fmt"
	"math/rand"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

// lockSynthParams shape a lock-heavy trace: workers take single locks,
// nest two locks of one group of eight in the group's order (no cycle),
// signal neighbours, and now and then, worker k takes cycle lock k mod
// cycle then the next one: a lock-order cycle through cycle locks. Until
// late is done, each cycle section is followed by a signal that the next
// cycle worker waits for first, so only the late instances deadlock.
type lockSynthParams struct {
	goroutines, locks, events, cycle int
	late                             float64
	seed                             int64
}

func lockSynth(p lockSynthParams) *trace.Trace {
	r := rand.New(rand.NewSource(p.seed))
	b := trace.NewBuilder(trace.Header{Format: "synthetic"})
	st := b.Stacks()
	stacks := make([]trace.StackID, 256)
	for i := range stacks {
		stacks[i] = st.Push(0, trace.Frame{Func: "synth.locker", File: "/synth/locker.go", Line: 10 + i})
	}
	const (
		lockBase  = 0x200000
		cycBase   = 0x280000
		localBase = 0x10000000
		sigBase   = 0x300000
		ordBase   = 0x380000
	)
	mk := func(base uint64, n int) ([]trace.ObjID, []uint64) {
		objs, addrs := make([]trace.ObjID, n), make([]uint64, n)
		for i := range objs {
			addrs[i] = base + uint64(8*i)
			objs[i] = b.Object(trace.ObjMutex, addrs[i], 8, "")
		}
		return objs, addrs
	}
	lockObj, lockAddr := mk(lockBase, p.locks)
	cycObj, cycAddr := mk(cycBase, p.cycle)
	main := b.Goroutine(0, 0)
	gs := make([]trace.GoID, p.goroutines)
	for i := range gs {
		gs[i] = b.Goroutine(main, stacks[0])
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(gs[i]), Stack: stacks[0]})
		b.Add(trace.Event{Op: trace.OpStart, G: gs[i], Peer: int32(main), Stack: stacks[1]})
	}
	lock := func(g trace.GoID, o trace.ObjID, a uint64, s int) {
		b.Add(trace.Event{Op: trace.OpLock, G: g, Obj: o, Addr: a, Sync: trace.SyncAcquire, Stack: stacks[s]})
	}
	unlock := func(g trace.GoID, o trace.ObjID, a uint64, s int) {
		b.Add(trace.Event{Op: trace.OpUnlock, G: g, Obj: o, Addr: a, Sync: trace.SyncRelease, Stack: stacks[s]})
	}
	access := func(g trace.GoID, k int) {
		b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: localBase + uint64(k)*4096 + uint64(8*r.Intn(16)), Size: 8, Stack: stacks[2]})
	}
	cycDone := make([]int, p.cycle) // cycle sections of each member so far
	for n := 0; n < p.events; {
		k := r.Intn(len(gs))
		g := gs[k]
		before := b.Len()
		switch x := r.Intn(1000); {
		case x < 500:
			access(g, k)
		case x < 750: // one lock
			l := r.Intn(p.locks)
			lock(g, lockObj[l], lockAddr[l], 3+l%32)
			access(g, k)
			unlock(g, lockObj[l], lockAddr[l], 40)
		case x < 850: // two locks of one group, in the group's order
			grp := r.Intn(max(1, p.locks/8)) * 8
			a := grp + r.Intn(7)
			c := a + 1 + r.Intn(7-(a-grp))
			if c >= p.locks {
				continue
			}
			lock(g, lockObj[a], lockAddr[a], 50+a%32)
			lock(g, lockObj[c], lockAddr[c], 90+c%32)
			access(g, k)
			unlock(g, lockObj[c], lockAddr[c], 40)
			unlock(g, lockObj[a], lockAddr[a], 40)
		case x < 990: // signal a neighbour, or wait for one
			s := sigBase + uint64(8*(k%16))
			if r.Intn(2) == 0 {
				b.Add(trace.Event{Op: trace.OpSend, G: g, Addr: s, Sync: trace.SyncRelease, Stack: stacks[130]})
			} else {
				b.Add(trace.Event{Op: trace.OpRecv, G: g, Addr: s, Sync: trace.SyncAcquire, Peer: -1, Stack: stacks[131]})
			}
		default: // a cycle section
			j := k % p.cycle
			if k >= p.cycle*((len(gs))/p.cycle) {
				continue
			}
			early := float64(n) < p.late*float64(p.events)
			if early {
				// Wait for the previous member's last cycle section.
				b.Add(trace.Event{Op: trace.OpRecv, G: g, Addr: ordBase + uint64(8*((j+p.cycle-1)%p.cycle)), Sync: trace.SyncAcquire, Peer: -1, Stack: stacks[132]})
			}
			nx := (j + 1) % p.cycle
			lock(g, cycObj[j], cycAddr[j], 140+j)
			lock(g, cycObj[nx], cycAddr[nx], 200+j)
			access(g, k)
			unlock(g, cycObj[nx], cycAddr[nx], 40)
			unlock(g, cycObj[j], cycAddr[j], 40)
			cycDone[j]++
			if early {
				b.Add(trace.Event{Op: trace.OpSend, G: g, Addr: ordBase + uint64(8*j), Sync: trace.SyncRelease, Stack: stacks[133]})
			}
		}
		n += b.Len() - before
	}
	t, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return t
}

// BenchmarkLockOrderLayers times today's lock-order layer and SPDOffline's
// on lock-heavy traces, the engine and its causal cone built before.
func BenchmarkLockOrderLayers(b *testing.B) {
	for _, p := range []lockSynthParams{
		{goroutines: 64, locks: 256, events: 1_000_000, cycle: 3, late: 0, seed: 1},
		{goroutines: 64, locks: 256, events: 1_000_000, cycle: 3, late: 0.5, seed: 1},
		{goroutines: 64, locks: 256, events: 1_000_000, cycle: 6, late: 0.5, seed: 2},
		{goroutines: 256, locks: 1024, events: 5_000_000, cycle: 3, late: 0.5, seed: 3},
		{goroutines: 256, locks: 1024, events: 5_000_000, cycle: 6, late: 0.5, seed: 4},
		{goroutines: 256, locks: 1024, events: 10_000_000, cycle: 6, late: 0.5, seed: 5},
	} {
		name := fmt.Sprintf("%dM-%dg-%dlocks-cycle%d", p.events/1_000_000, p.goroutines, p.locks, p.cycle)
		if p.late == 0 {
			name += "-unordered" // every instance can deadlock: the lock-order layer proves it
		}
		b.Run(name, func(b *testing.B) {
			tr := lockSynth(p)
			e := testEngine(b, tr)
			if err := e.needCone(); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			for _, layer := range []struct {
				name string
				run  func() ([]Finding, Stage, error)
			}{{"lockorder", e.deadlockLayer}, {"spd", func() ([]Finding, Stage, error) { return e.spdLayer(nil) }}} {
				b.Run(layer.name, func(b *testing.B) {
					var fs []Finding
					var st Stage
					cpu0 := cpuTime()
					timeEvents(b, len(tr.Events), func() {
						var err error
						if fs, st, err = layer.run(); err != nil {
							b.Fatal(err)
						}
					})
					b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
					b.ReportMetric(float64(len(fs)), "deadlocks")
					b.ReportMetric(float64(st.Cycles), "patterns")
					b.ReportMetric(float64(st.Deadlocks), "tried")
					b.ReportMetric(float64(peak(func() { layer.run() }))/(1<<20), "peak-MiB")
				})
			}
		})
	}
}

// cpuTime returns the process's user and system time so far: on a
// machine shared with other work, the figure that wall time is not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLockSynthDeadlocks checks the benchmark's trace on a small scale:
// SPDOffline proves the planted cycle, whose early instances are ordered,
// with a witness the checker accepts.
func TestLockSynthDeadlocks(t *testing.T) {
	for _, cycle := range []int{3, 6} {
		tr := lockSynth(lockSynthParams{goroutines: 12, locks: 32, events: 20_000, cycle: cycle, late: 0.5, seed: 7})
		e := testEngine(t, tr)
		fs, _, err := e.spdLayer(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) == 0 || len(fs[0].Events) != cycle {
			t.Fatalf("cycle of %d: findings %v", cycle, fs)
		}
		checkWitnesses(t, tr, fs)
		old, _, err := e.deadlockLayer()
		if err != nil {
			t.Fatal(err)
		}
		checkWitnesses(t, tr, old)
		t.Logf("cycle of %d: SPDOffline %d deadlocks, today's layer %d", cycle, len(fs), len(old))
	}
}
