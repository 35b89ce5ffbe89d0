// This file tests the SHB layer's batched check (race_shb_fold.go)
// against the check of every group it replaced, on traces with thousands
// of goroutines per location, shaped like a pool that starts a goroutine
// per task: the same pairs of sites, in the same order, with the same
// closest pairs and counts, for a small share of the work.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// visitFlat is the check the batches replaced: access i against every
// group of its location, in the order they were made.
func (f *shbFinds) visitFlat(i int32, cur vclock, d []int32) {
	c, m, t := f.c, f.m, f.tab
	if !m.shared(i) {
		return
	}
	ev := &c.ev[i]
	x := shbAccess{i: i, g: int32(ev.G), site: c.site(i), w: isWrite(ev.Op), at: ev.Op.IsAtomic(), cur: cur, d: d}
	l := m.loc[i]
	own := -1
	gs := t.groupsOf(l)
	f.checked += int64(len(gs))
	for k := range gs {
		gr := &gs[k]
		if gr.g == x.g {
			own = k
			continue
		}
		if write, plain := gr.masks.write != 0, gr.masks.plain != 0; !(x.w || write) || x.at && !plain {
			continue // no entry of the group conflicts with this access
		}
		if known := x.knows(gr.g); gr.maxPos > known {
			f.scan(&x, gr, known)
		}
	}
	t.record(l, x.g, own, i, c.pos[i], x.site, x.w, x.at)
	t.retire(l, i)
}

// synthStart starts a synthetic trace: the random source of seed, the
// builder, and what makes the stack of one frame of fn in file, at a line.
func synthStart(seed int64, fn, file string) (*rand.Rand, *trace.Builder, func(line int) trace.StackID) {
	b := trace.NewBuilder(trace.Header{Format: "synthetic"})
	st := b.Stacks()
	return rand.New(rand.NewSource(seed)), b, func(line int) trace.StackID {
		return st.Push(0, trace.Frame{Func: fn, File: file, Line: line})
	}
}

// poolParams shape poolTrace.
type poolParams struct {
	tasks, live int     // goroutines started, and at most running at once
	waitEvery   int     // main waits for the tasks so far every that many starts
	racy        float64 // the share of tasks that write the statistic without the lock
	seed        int64
}

// poolTrace is a pool that starts a goroutine per task, pond's way: main
// writes a configuration, then starts the tasks, up to p.live running at
// once, and now and then waits for all of them so far (a WaitGroup) and
// reads what they wrote. Each task reads the configuration, bumps an
// atomic counter, writes a result slot under a mutex, sometimes writes a
// statistic without it (the races), and sometimes hands its result to a
// collector goroutine over a channel; the collector reads the statistic.
func poolTrace(p poolParams) *trace.Trace {
	r, b, stack := synthStart(p.seed, "synth.pool", "/synth/pool.go")
	const (
		config  = 0x100000
		counter = 0x100100
		result  = 0x100200
		stat    = 0x100300
		mu      = 0x200000
		wgAddr  = 0x300000
		results = 0x400000
	)
	muObj := b.Object(trace.ObjMutex, mu, 8, "")
	wg := b.Object(trace.ObjWaitGroup, wgAddr, 8, "")
	main := b.Goroutine(0, 0)
	coll := b.Goroutine(main, stack(1))
	b.Add(trace.Event{Op: trace.OpWrite, G: main, Addr: config, Size: 8, Stack: stack(2)})
	b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(coll), Stack: stack(1)})
	b.Add(trace.Event{Op: trace.OpStart, G: coll, Peer: int32(main), Stack: stack(1)})
	var live []*synthProg
	held := false // the mutex
	started := 0
	for started < p.tasks || len(live) > 0 {
		if started < p.tasks && len(live) < p.live && r.Intn(3) == 0 {
			if started > 0 && started%p.waitEvery == 0 {
				b.Add(trace.Event{Op: trace.OpWGWait, G: main, Obj: wg, Addr: wgAddr, Sync: trace.SyncAcquire, Stack: stack(3)})
				b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: result, Size: 8, Stack: stack(4)})
				b.Add(trace.Event{Op: trace.OpWrite, G: main, Addr: stat, Size: 8, Stack: stack(5)})
			}
			g := b.Goroutine(main, stack(6))
			b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(g), Stack: stack(6)})
			started++
			t := &synthProg{}
			t.prog = append(t.prog,
				trace.Event{Op: trace.OpStart, G: g, Peer: int32(main), Stack: stack(6)},
				trace.Event{Op: trace.OpRead, G: g, Addr: config, Size: 8, Stack: stack(10)},
				trace.Event{Op: trace.OpAtomicRMW, G: g, Addr: counter, Size: 8, Stack: stack(11)},
				trace.Event{Op: trace.OpLock, G: g, Obj: muObj, Addr: mu, Sync: trace.SyncAcquire, Stack: stack(12)},
				trace.Event{Op: trace.OpRead, G: g, Addr: result, Size: 8, Stack: stack(13)},
				trace.Event{Op: trace.OpWrite, G: g, Addr: result, Size: 8, Stack: stack(14)},
				trace.Event{Op: trace.OpUnlock, G: g, Obj: muObj, Addr: mu, Sync: trace.SyncRelease, Stack: stack(15)})
			if r.Float64() < p.racy {
				t.prog = append(t.prog, trace.Event{Op: trace.OpWrite, G: g, Addr: stat, Size: 8, Stack: stack(16 + r.Intn(3))})
			}
			if r.Intn(4) == 0 {
				t.prog = append(t.prog, trace.Event{Op: trace.OpSend, G: g, Addr: results, Sync: trace.SyncRelease, Stack: stack(20)})
			}
			t.prog = append(t.prog,
				trace.Event{Op: trace.OpAtomicLoad, G: g, Addr: counter, Size: 8, Stack: stack(21)},
				trace.Event{Op: trace.OpWGDone, G: g, Obj: wg, Addr: wgAddr, Sync: trace.SyncReleaseMerge, Stack: stack(22)},
				trace.Event{Op: trace.OpEnd, G: g, Stack: stack(23)})
			live = append(live, t)
			continue
		}
		if r.Intn(20) == 0 {
			// The collector takes a result if one was sent, and reads
			// the statistic.
			b.Add(trace.Event{Op: trace.OpRecv, G: coll, Addr: results, Sync: trace.SyncAcquire, Peer: -1, Stack: stack(30)})
			b.Add(trace.Event{Op: trace.OpRead, G: coll, Addr: stat, Size: 8, Stack: stack(31)})
			b.Add(trace.Event{Op: trace.OpRead, G: coll, Addr: result, Size: 8, Stack: stack(32)})
			continue
		}
		if len(live) == 0 {
			continue
		}
		live = stepProgs(r, b, live, &held)
	}
	b.Add(trace.Event{Op: trace.OpWGWait, G: main, Obj: wg, Addr: wgAddr, Sync: trace.SyncAcquire, Stack: stack(3)})
	b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: stat, Size: 8, Stack: stack(40)})
	tr, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return tr
}

// synthProg is what a synthetic goroutine has left to do.
type synthProg struct{ prog []trace.Event }

// stepProgs adds the next event of a random one of live, unless it is a
// Lock of the one mutex, held (by *held), and returns live without it if
// it is done.
func stepProgs(r *rand.Rand, b *trace.Builder, live []*synthProg, held *bool) []*synthProg {
	k := r.Intn(len(live))
	t := live[k]
	e := t.prog[0]
	switch e.Op {
	case trace.OpLock:
		if *held {
			return live
		}
		*held = true
	case trace.OpUnlock:
		*held = false
	}
	b.Add(e)
	if t.prog = t.prog[1:]; len(t.prog) == 0 {
		live = append(live[:k], live[k+1:]...)
	}
	return live
}

// workerParams shape workerTrace.
type workerParams struct {
	workers, tasks int     // long-lived workers, and the tasks each runs
	racy           float64 // the share of tasks that write the statistic without the lock
	seed           int64
}

// workerTrace is a pool of long-lived workers, ants's way: main fills
// in the pool (one write of its four words, which makes them one
// location), starts the workers, and waits for them (a WaitGroup). Each
// worker runs its tasks one after another, and for each adds to the
// running count and reads it back atomically (word 0), reads the
// settings (word 1), loads the state atomically (word 3), takes a spin
// lock by CAS (a word of its own) and the mutex it stands for, and
// reads and writes the queue under them; some tasks write the statistic
// (word 2) without the lock (the races), and some read it. Every
// worker's group of the pool stays open until its last task.
func workerTrace(p workerParams) *trace.Trace {
	r, b, stack := synthStart(p.seed, "synth.workers", "/synth/workers.go")
	const (
		pool  = 0x100000 // running, settings, statistic, state
		spin  = 0x100100
		queue = 0x100200
		mu    = 0x200000
		wgAt  = 0x300000
	)
	muObj := b.Object(trace.ObjMutex, mu, 8, "")
	wg := b.Object(trace.ObjWaitGroup, wgAt, 8, "")
	main := b.Goroutine(0, 0)
	b.Add(trace.Event{Op: trace.OpWrite, G: main, Addr: pool, Size: 32, Stack: stack(1)})
	var live []*synthProg
	for range p.workers {
		g := b.Goroutine(main, stack(2))
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(g), Stack: stack(2)})
		w := &synthProg{prog: []trace.Event{{Op: trace.OpStart, G: g, Peer: int32(main), Stack: stack(2)}}}
		for range p.tasks {
			w.prog = append(w.prog,
				trace.Event{Op: trace.OpAtomicRMW, G: g, Addr: pool, Size: 4, Stack: stack(10)},
				trace.Event{Op: trace.OpRead, G: g, Addr: pool + 8, Size: 8, Stack: stack(11)},
				trace.Event{Op: trace.OpAtomicLoad, G: g, Addr: pool + 24, Size: 4, Stack: stack(12)},
				trace.Event{Op: trace.OpAtomicRMW, G: g, Addr: spin, Size: 4, Stack: stack(13)},
				trace.Event{Op: trace.OpLock, G: g, Obj: muObj, Addr: mu, Sync: trace.SyncAcquire, Stack: stack(14)},
				trace.Event{Op: trace.OpRead, G: g, Addr: queue, Size: 8, Stack: stack(15)},
				trace.Event{Op: trace.OpWrite, G: g, Addr: queue, Size: 8, Stack: stack(16)},
				trace.Event{Op: trace.OpUnlock, G: g, Obj: muObj, Addr: mu, Sync: trace.SyncRelease, Stack: stack(17)},
				trace.Event{Op: trace.OpAtomicStore, G: g, Addr: spin, Size: 4, Stack: stack(18)})
			if r.Float64() < p.racy {
				w.prog = append(w.prog, trace.Event{Op: trace.OpWrite, G: g, Addr: pool + 16, Size: 8, Stack: stack(20 + r.Intn(3))})
			}
			if r.Intn(8) == 0 {
				w.prog = append(w.prog, trace.Event{Op: trace.OpRead, G: g, Addr: pool + 16, Size: 8, Stack: stack(25)})
			}
			w.prog = append(w.prog, trace.Event{Op: trace.OpAtomicLoad, G: g, Addr: pool, Size: 4, Stack: stack(26)})
		}
		w.prog = append(w.prog,
			trace.Event{Op: trace.OpWGDone, G: g, Obj: wg, Addr: wgAt, Sync: trace.SyncReleaseMerge, Stack: stack(27)},
			trace.Event{Op: trace.OpEnd, G: g, Stack: stack(28)})
		live = append(live, w)
	}
	held := false // the mutex
	for len(live) > 0 {
		live = stepProgs(r, b, live, &held)
	}
	b.Add(trace.Event{Op: trace.OpWGWait, G: main, Obj: wg, Addr: wgAt, Sync: trace.SyncAcquire, Stack: stack(3)})
	b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: pool + 16, Size: 8, Stack: stack(4)})
	tr, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return tr
}

// shbFindsOf runs the SHB layer's first pass over tr with the batched
// check, or the flat one.
func shbFindsOf(tb testing.TB, tr *trace.Trace, flat bool) *shbFinds {
	c := newCTP(tr)
	m := newMemory(c)
	f := newSHBFinds(c, m)
	mode := clockMode{locks: true, serial: true, rf: true, want: map[int32][]int32{}, visit: f.visit}
	if flat {
		mode.visit = f.visitFlat
	}
	if _, err := newClocks(context.Background(), c, m, mode); err != nil {
		tb.Fatal(err)
	}
	f.sortKeys()
	return f
}

// The open bags (race_shb_open.go) are compared at every size of a
// location's top (shbOpenAt 0), at the default, and never made, each
// with open groups bagged at once or only once idle (shbOpenIdle); the
// workers' traces must also save most of the work where bags are made.
func TestSHBBatchesLikeFlat(t *testing.T) {
	type tc struct {
		name string
		tr   *trace.Trace
		// many: thousands of goroutines per location, where the batches
		// must save most of the work; workers: hundreds of long-lived
		// goroutines per location, where the open bags must.
		many, workers bool
	}
	var tests []tc
	for seed := int64(1); seed <= 3; seed++ {
		tests = append(tests,
			tc{name: "pool", tr: poolTrace(poolParams{tasks: 3000, live: 8, waitEvery: 100, racy: 0.01, seed: seed}), many: true},
			tc{name: "pool-wide", tr: poolTrace(poolParams{tasks: 2000, live: 200, waitEvery: 500, racy: 0.05, seed: seed}), many: true},
			tc{name: "pool-nowait", tr: poolTrace(poolParams{tasks: 1000, live: 4, waitEvery: 1 << 30, racy: 0.02, seed: seed})},
			tc{name: "workers", tr: workerTrace(workerParams{workers: 300, tasks: 12, racy: 0.01, seed: seed}), workers: true},
			tc{name: "workers-few", tr: workerTrace(workerParams{workers: 40, tasks: 30, racy: 0.05, seed: seed})})
	}
	for k, tr := range randomTraces(41, 80, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 2 + r.Intn(12), vars: 1 + r.Intn(4), locks: r.Intn(3), sigs: r.Intn(4),
			ops: 10 + r.Intn(60), atomics: r.Intn(2) == 0, cut: 0.01}
	}, true) {
		tests = append(tests, tc{name: "random" + string(rune('a'+k%26)), tr: tr})
	}
	defer func(n int, idle uint8) { shbOpenAt, shbOpenIdle = n, idle }(shbOpenAt, shbOpenIdle)
	for _, open := range []struct {
		at   int
		idle uint8
	}{{0, 0}, {0, shbOpenIdle}, {shbOpenAt, 0}, {shbOpenAt, shbOpenIdle}, {shbOpenAt, 255}, {1 << 30, 0}} {
		at := open.at
		shbOpenAt, shbOpenIdle = at, open.idle
		name := fmt.Sprintf("open bags at %d, idle %d", at, open.idle)
		pairs, opened := 0, 0
		for k, tc := range tests {
			got, want := shbFindsOf(t, tc.tr, false), shbFindsOf(t, tc.tr, true)
			if got.total != want.total || !reflect.DeepEqual(got.keys, want.keys) {
				t.Fatalf("%s, trace %d (%s): batched found %d pairs at %d pairs of sites, flat %d at %d (or in another order)",
					name, k, tc.name, got.total, len(got.keys), want.total, len(want.keys))
			}
			for _, key := range want.keys {
				if g, w := *got.bests[key], *want.bests[key]; g != w {
					t.Fatalf("%s, trace %d (%s): pair of sites %v: batched %+v, flat %+v", name, k, tc.name, key, g, w)
				}
			}
			pairs += len(want.keys)
			opened += got.opens
			if tc.many && 10*got.checked > want.checked {
				t.Errorf("%s, trace %d (%s): the batched check looked at %d nodes, the flat one at %d groups: not a tenth",
					name, k, tc.name, got.checked, want.checked)
			}
			if tc.workers && at < 1<<30 && open.idle < 255 && 4*got.checked > want.checked {
				t.Errorf("%s, trace %d (%s): the batched check looked at %d nodes, the flat one at %d groups: not a quarter",
					name, k, tc.name, got.checked, want.checked)
			}
		}
		if pairs == 0 {
			t.Fatal("no pair of sites races: the test says nothing")
		}
		if (opened == 0) != (at == 1<<30) {
			t.Errorf("%s: %d groups put in open bags", name, opened)
		}
	}
}

// The batches and bags are dropped with their location, at its last
// access, like the groups (TestSHBTableDrops): after a whole trace the
// table holds nothing, and the pools' room left behind is all of them.
// So are the open bags (race_shb_open.go), with their table of places.
func TestSHBBatchesDrop(t *testing.T) {
	defer func(n int) { shbOpenAt = n }(shbOpenAt)
	shbOpenAt = 0
	for seed := int64(1); seed <= 2; seed++ {
		f := shbFindsOf(t, poolTrace(poolParams{tasks: 500, live: 50, waitEvery: 60, racy: 0.05, seed: seed}), false)
		tab := f.tab
		if tab.deadG != len(tab.groups) || tab.deadE != len(tab.ents) || len(tab.index) != 0 {
			t.Errorf("seed %d: left behind %d of %d nodes, %d of %d entries, %d index keys",
				seed, tab.deadG, len(tab.groups), tab.deadE, len(tab.ents), len(tab.index))
		}
		if len(tab.opens) != 0 || len(tab.openAt) != 0 || tab.open.count() != 0 || f.opens == 0 {
			t.Errorf("seed %d: %d open groups bagged, %d locations' open bags and %d places left behind, %d marked",
				seed, f.opens, len(tab.opens), len(tab.openAt), tab.open.count())
		}
		batches, bags := 0, 0
		for _, gr := range tab.groups {
			switch {
			case gr.batch && gr.g < 0:
				bags++
			case gr.batch:
				batches++
			}
		}
		if batches == 0 || bags == 0 {
			t.Errorf("seed %d: %d batches, %d bags made: the test says little", seed, batches, bags)
		}
	}
}

// BenchmarkSHBPool times the SHB layer's first pass over a pool of
// 10,000 task goroutines, with the batched check and the flat one, and
// counts the nodes (groups, batches, bags) their accesses looked at.
//
//	go test -run XXX -bench SHBPool ./predict
func BenchmarkSHBPool(b *testing.B) {
	tr := poolTrace(poolParams{tasks: 10_000, live: 16, waitEvery: 200, racy: 0.01, seed: 1})
	for _, flat := range []bool{false, true} {
		name := "batched"
		if flat {
			name = "flat"
		}
		b.Run(name, func(b *testing.B) {
			var f *shbFinds
			for range b.N {
				f = shbFindsOf(b, tr, flat)
			}
			b.ReportMetric(float64(len(tr.Events)), "events")
			b.ReportMetric(float64(f.checked), "nodes-looked-at")
		})
	}
}

// BenchmarkSHBWorkers times the SHB layer's first pass over a pool of
// 1,000 long-lived workers with open bags (race_shb_open.go) and
// without, and counts the nodes their accesses looked at.
//
//	go test -run XXX -bench SHBWorkers ./predict
func BenchmarkSHBWorkers(b *testing.B) {
	tr := workerTrace(workerParams{workers: 1000, tasks: 20, racy: 0.002, seed: 1})
	defer func(n int) { shbOpenAt = n }(shbOpenAt)
	for _, at := range []int{shbOpenAt, 1 << 30} {
		name := "open-bags"
		if at == 1<<30 {
			name = "no-open-bags"
		}
		b.Run(name, func(b *testing.B) {
			shbOpenAt = at
			var f *shbFinds
			for range b.N {
				f = shbFindsOf(b, tr, false)
			}
			b.ReportMetric(float64(len(tr.Events)), "events")
			b.ReportMetric(float64(f.checked), "nodes-looked-at")
		})
	}
}
