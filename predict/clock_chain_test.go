// This file tests the passes over chains of goroutines (clock_chain.go)
// against the passes over goroutines: on random spawn trees (goroutines
// that start children, wait for some to signal they are done, join some
// and start more), on pond-shaped traces (a dispatcher starting a worker
// per task, the workers merging into a WaitGroup the dispatcher waits
// on), on issue 31's ring and on the traces the differential tests share,
// every pass answers every query alike: how much of each goroutine each
// clock knows at each position (get, each, a cursor), before and
// concurrent on every pair of events, the clocks the SHB layer judges
// accesses by, the causal cone's closures and barriers (coneDiff), and
// Analyze's findings. With the ordering check turned
// off (chainsUnchecked) the answers must differ on some trace.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

// spawnParams shapes a random spawn tree (spawnTrace).
type spawnParams struct {
	maxG, ops, depth int
	// pond: a dispatcher starting a worker per task in rounds, the
	// workers merging into one WaitGroup it waits on between rounds.
	pond bool
}

// spawnTrace returns a random run of a program whose goroutines start
// children: each (but a few) may signal its parent it is done (a release on a done
// object of its own or a merge into a shared WaitGroup), sometimes with
// more events after, and then end (or not, when the run is cut); a
// parent may wait for the signal (an acquire) or join the child, and
// start more after. Locks are taken and released in one step, so that a
// goroutine blocks only on its children, which never wait on it.
func spawnTrace(r *rand.Rand, p spawnParams) *trace.Trace {
	type sop struct {
		kind byte // r w L (lock section) s a m x (on a sync object) A (atomic) f (fork) d (wait done) j (join)
		arg  int
	}
	type prog struct {
		ops                     []sop
		wg, after, ends, silent bool // signals by a merge into the WaitGroup; events after the signal; an exit event; no signal
	}
	var progs []*prog
	var gen func(depth int) int
	gen = func(depth int) int {
		id := len(progs)
		pr := &prog{wg: r.Intn(3) == 0, after: r.Intn(4) == 0, ends: r.Intn(10) < 9, silent: !p.pond && r.Intn(6) == 0}
		progs = append(progs, pr)
		n := 1 + r.Intn(p.ops)
		type later struct {
			at int
			op sop
		}
		var waits []later
		for k := 0; k < n; k++ {
			for q := 0; q < len(waits); q++ {
				if waits[q].at == k {
					pr.ops = append(pr.ops, waits[q].op)
				}
			}
			x := r.Intn(10)
			if p.pond && depth == 0 {
				x = 8 // the dispatcher only starts and waits
			}
			switch {
			case x < 3:
				pr.ops = append(pr.ops, sop{"rw"[r.Intn(2)], r.Intn(3)})
			case x < 4:
				pr.ops = append(pr.ops, sop{'L', r.Intn(2)})
			case x < 6:
				pr.ops = append(pr.ops, sop{"samx"[r.Intn(4)], r.Intn(2)})
			case x < 7:
				pr.ops = append(pr.ops, sop{'A', r.Intn(3)})
			default:
				if len(progs) >= p.maxG || depth >= p.depth {
					pr.ops = append(pr.ops, sop{'w', r.Intn(3)})
					continue
				}
				c := gen(depth + 1)
				pr.ops = append(pr.ops, sop{'f', c})
				cp := progs[c]
				at := k + 1 + r.Intn(3)
				switch w := r.Intn(6); {
				case p.pond && depth == 0:
					cp.wg = true
					waits = append(waits, later{at, sop{'d', c}})
				case w < 3 && !cp.silent:
					waits = append(waits, later{at, sop{'d', c}})
				case w < 4 && cp.ends:
					waits = append(waits, later{at, sop{'j', c}})
				}
				if p.pond && depth == 0 {
					n = max(n, k+3) // keep dispatching
					if n > p.ops*4 {
						n = k + 2
					}
				}
			}
		}
		for _, w := range waits {
			if w.at >= n {
				pr.ops = append(pr.ops, w.op)
			}
		}
		return id
	}
	gen(0)
	b := trace.NewBuilder(trace.Header{Format: "synthetic"})
	st := b.Stacks()
	stack := func(line int) trace.StackID {
		return st.Push(0, trace.Frame{Func: "spawn", File: "/spawn.go", Line: line})
	}
	objs := map[string]trace.ObjID{}
	addrs := map[string]uint64{}
	obj := func(kind trace.ObjKind, name string) (trace.ObjID, uint64) {
		if id, ok := objs[name]; ok {
			return id, addrs[name]
		}
		a := uint64(0x1000 + 64*len(objs))
		objs[name], addrs[name] = b.Object(kind, a, 8, name), a
		return objs[name], a
	}
	gs := make([]trace.GoID, len(progs))
	gs[0] = b.Goroutine(0, 0)
	pc := make([]int, len(progs))
	state := make([]int, len(progs)) // 0 not forked, 1 forked, 2 started, 3 signalled, 4 ended
	state[0] = 2
	signalled := make([]bool, len(progs))
	add := func(g int, e trace.Event) {
		e.G = gs[g]
		if e.Stack == 0 {
			e.Stack = stack(100*g + pc[g])
		}
		b.Add(e)
	}
	doneObj := func(c int) (trace.ObjID, uint64) {
		if progs[c].wg {
			return obj(trace.ObjSync, "wg")
		}
		return obj(trace.ObjSync, fmt.Sprintf("done%d", c))
	}
	// step runs goroutine g's next step, if it can.
	step := func(g int) bool {
		pr := progs[g]
		if state[g] == 1 {
			add(g, trace.Event{Op: trace.OpStart})
			state[g] = 2
			return true
		}
		if pc[g] == len(pr.ops) {
			switch {
			case g > 0 && !signalled[g] && !pr.silent:
				o, a := doneObj(g)
				if pr.wg {
					add(g, trace.Event{Op: trace.OpReleaseMerge, Obj: o, Addr: a, Sync: trace.SyncReleaseMerge})
				} else {
					add(g, trace.Event{Op: trace.OpRelease, Obj: o, Addr: a, Sync: trace.SyncRelease})
				}
				signalled[g] = true
				if pr.after {
					o, a := obj(trace.ObjVar, "v0")
					add(g, trace.Event{Op: trace.OpWrite, Obj: o, Addr: a, Size: 8})
				}
			case pr.ends && state[g] < 4:
				add(g, trace.Event{Op: trace.OpEnd})
				state[g] = 4
			default:
				return false
			}
			return true
		}
		op := pr.ops[pc[g]]
		switch op.kind {
		case 'd':
			if !signalled[op.arg] {
				return false
			}
		case 'j':
			if state[op.arg] != 4 {
				return false
			}
		}
		pc[g]++
		name := fmt.Sprint(op.arg)
		switch op.kind {
		case 'r', 'w':
			o, a := obj(trace.ObjVar, "v"+name)
			add(g, trace.Event{Op: map[byte]trace.Op{'r': trace.OpRead, 'w': trace.OpWrite}[op.kind], Obj: o, Addr: a, Size: 8})
		case 'A':
			o, a := obj(trace.ObjVar, "v"+name)
			add(g, trace.Event{Op: []trace.Op{trace.OpAtomicLoad, trace.OpAtomicStore, trace.OpAtomicRMW}[r.Intn(3)], Obj: o, Addr: a, Size: 8})
		case 'L':
			o, a := obj(trace.ObjRWMutex, "L"+name)
			add(g, trace.Event{Op: trace.OpLock, Obj: o, Addr: a, Sync: trace.SyncAcquire})
			v, va := obj(trace.ObjVar, "v"+fmt.Sprint(r.Intn(3)))
			add(g, trace.Event{Op: trace.OpWrite, Obj: v, Addr: va, Size: 8})
			add(g, trace.Event{Op: trace.OpUnlock, Obj: o, Addr: a, Sync: trace.SyncRelease})
		case 's', 'a', 'm', 'x':
			o, a := obj(trace.ObjSync, "S"+name)
			kind := map[byte][2]int{'s': {int(trace.OpRelease), int(trace.SyncRelease)}, 'a': {int(trace.OpAcquire), int(trace.SyncAcquire)},
				'm': {int(trace.OpReleaseMerge), int(trace.SyncReleaseMerge)}, 'x': {int(trace.OpReleaseAcquire), int(trace.SyncReleaseAcquire)}}[op.kind]
			add(g, trace.Event{Op: trace.Op(kind[0]), Obj: o, Addr: a, Sync: trace.SyncKind(kind[1])})
		case 'f':
			c := op.arg
			gs[c] = b.Goroutine(gs[g], stack(100*g+pc[g]))
			add(g, trace.Event{Op: trace.OpGo, Peer: int32(gs[c])})
			state[c] = 1
		case 'd':
			o, a := doneObj(op.arg)
			add(g, trace.Event{Op: trace.OpAcquire, Obj: o, Addr: a, Sync: trace.SyncAcquire})
		case 'j':
			add(g, trace.Event{Op: trace.OpJoin, Peer: int32(gs[op.arg])})
		}
		return true
	}
	for {
		var ready []int
		for g := range progs {
			if state[g] >= 1 && state[g] < 4 {
				ready = append(ready, g)
			}
		}
		r.Shuffle(len(ready), func(i, j int) { ready[i], ready[j] = ready[j], ready[i] })
		moved := false
		for _, g := range ready {
			if step(g) {
				moved = true
				break
			}
		}
		if !moved || r.Intn(400) == 0 {
			break
		}
	}
	t, err := b.Trace()
	if err != nil {
		panic(err)
	}
	return t
}

// chainTraces returns the traces the chain tests compare on.
func chainTraces(tb testing.TB) []*trace.Trace {
	r := rand.New(rand.NewSource(31))
	var traces []*trace.Trace
	for i := 0; i < 150; i++ {
		traces = append(traces, spawnTrace(r, spawnParams{maxG: 4 + r.Intn(12), ops: 2 + r.Intn(6), depth: 1 + r.Intn(3)}))
	}
	for i := 0; i < 20; i++ {
		traces = append(traces, spawnTrace(r, spawnParams{maxG: 10 + r.Intn(30), ops: 4, depth: 2, pond: true}))
	}
	traces = append(traces, randomTraces(37, 100, func(r *rand.Rand, i int) genParams { return syncParams(r) }, true)...)
	for _, shape := range [][2]int{{2, 3}, {30, 6}, {100, 4}} {
		tr, err := synthtrace.Ring(shape[0], shape[1])
		if err != nil {
			tb.Fatal(err)
		}
		traces = append(traces, tr)
	}
	saved, err := trace.ReadFile("../trace/testdata/format/small.v1.seertrace")
	if err != nil {
		tb.Fatal(err)
	}
	return append(traces, saved)
}

// chainModes are the relations the passes compute: must-happen-before
// (the analysis's, with its read-from check), observed happens-before,
// SHB, and the cone's.
var chainModes = []clockMode{{rfCheck: true}, {locks: true}, {locks: true, serial: true, rf: true}, {rf: true, acqRises: true}}

// chainDiff compares, on trace tr, each pass with chains against the pass
// over goroutines, and returns the first difference, or "" and how many
// goroutines continued a chain.
func chainDiff(tr *trace.Trace) (string, int) {
	c := newCTP(tr)
	m := newMemory(c)
	ctx := context.Background()
	handoffs := 0
	for _, mode := range chainModes {
		ref, err := newClocks(ctx, c, m, mode)
		if err != nil {
			return err.Error(), 0
		}
		cm := mode
		cm.chains = newChainMap(c)
		got, err := newClocks(ctx, c, m, cm)
		if err != nil {
			return err.Error(), 0
		}
		handoffs += cm.chains.handoffs
		if ref.rfImplied != got.rfImplied {
			return fmt.Sprintf("mode %+v: read-from implied %v, with chains %v", mode, ref.rfImplied, got.rfImplied), 0
		}
		// Large traces: every 7th position of every 3rd goroutine.
		step, gstep := int32(1), 1
		if len(c.ev) > 3000 {
			step, gstep = 7, 3
		}
		// The cone's closures over the pass, first: what a broken rule
		// for the cone's chains shows (TestChainsConeRule) (and over must-happen-before's
		// history when read-from is implied, as buildCone takes it).
		if mode.acqRises {
			if d := coneDiff(c, ref, got, step, gstep); d != "" {
				return fmt.Sprintf("mode %+v: %s", mode, d), 0
			}
		}
		if mode.rfCheck && got.rfImplied {
			cone, err := newClocks(ctx, c, m, clockMode{rf: true, acqRises: true})
			if err != nil {
				return err.Error(), 0
			}
			if d := coneDiff(c, cone, &clocks{c: c, h: got.h, acq: risesFromLog(c, got.h)}, step, gstep); d != "" {
				return fmt.Sprintf("must-happen-before's history as the cone's: %s", d), 0
			}
		}
		for g := 0; g < len(c.byG); g += gstep {
			g := int32(g)
			n := int32(len(c.byG[g]))
			for k := range c.byG {
				k := int32(k)
				a, b := ref.h.cursor(g, k), got.h.cursor(g, k)
				for p := int32(0); p <= n; p += step {
					x, y := ref.knows(g, p, k), got.knows(g, p, k)
					if x != y {
						return fmt.Sprintf("mode %+v: g%d after %d knows %d of g%d, with chains %d", mode, g, p, x, k, y), 0
					}
					if g != k {
						if x, y := a.valueAt(p), b.valueAt(p); x != y {
							return fmt.Sprintf("mode %+v: cursor of g%d over g%d at %d: %d, with chains %d", mode, g, k, p, x, y), 0
						}
					}
				}
			}
			for p := int32(0); p <= n; p += step {
				x, y := map[int32]int32{}, map[int32]int32{}
				ref.h.each(g, p, func(k, v int32) {
					if k != g {
						x[k] = v
					}
				})
				got.h.each(g, p, func(k, v int32) { y[k] = v })
				if !reflect.DeepEqual(x, y) {
					return fmt.Sprintf("mode %+v: g%d after %d: clock %v, with chains %v", mode, g, p, x, y), 0
				}
			}
		}
		// before and concurrent, on pairs of events (sampled on large
		// traces).
		pairs := 0
		for a := int32(0); int(a) < len(c.ev); a += step {
			for b := a + 1; int(b) < len(c.ev) && pairs < 200_000; b += step {
				pairs++
				if x, y := ref.before(a, b), got.before(a, b); x != y {
					return fmt.Sprintf("mode %+v: %d before %d: %v, with chains %v", mode, a, b, x, y), 0
				}
				if x, y := ref.concurrent(a, b), got.concurrent(a, b); x != y {
					return fmt.Sprintf("mode %+v: %d concurrent with %d: %v, with chains %v", mode, a, b, x, y), 0
				}
			}
		}
	}
	// The SHB layer's first pass keeps no history: the clocks it judges
	// accesses by, translated as its check translates them (shbAccess).
	mode := clockMode{locks: true, serial: true, rf: true, want: map[int32][]int32{}}
	judged := func(ch *chainMap) [][]int32 {
		out := make([][]int32, len(c.ev))
		mode.chains = ch
		mode.visit = func(i int32, cur vclock, d []int32) {
			x := shbAccess{i: i, g: int32(c.ev[i].G), cur: cur, d: d, ch: ch, pos: c.pos[i]}
			for h := range c.byG {
				if int32(h) != x.g {
					out[i] = append(out[i], x.knows(int32(h)))
				}
			}
		}
		if _, err := newClocks(ctx, c, m, mode); err != nil {
			panic(err)
		}
		return out
	}
	if len(c.ev)*len(c.byG) < 4_000_000 {
		ch := newChainMap(c)
		ref, got := judged(nil), judged(ch)
		for i := range ref {
			if !reflect.DeepEqual(ref[i], got[i]) {
				return fmt.Sprintf("SHB: the clock event %d is judged by: %v, with chains %v", i, ref[i], got[i]), 0
			}
		}
	}
	return "", handoffs
}

// coneDiff compares the readers of the cone's closures (solve_plan.go's
// closeInto and settle) on got, a pass with chains, against ref, the same
// relation's pass over goroutines: the cut closed from every position
// (every step-th of every gstep-th goroutine) and from random sequences
// of positions, and the first position of each clock that knows more of
// a goroutine than each count (rises and eachRisesMarked). It returns the
// first difference, or "".
func coneDiff(c *ctp, ref, got *clocks, step int32, gstep int) string {
	e := &engine{c: c}
	ng := len(c.byG)
	a, b := make([]int32, ng), make([]int32, ng)
	for g := 0; g < ng; g += gstep {
		for p := int32(0); p <= int32(len(c.byG[g])); p += step {
			clear(a)
			clear(b)
			e.closeInto(ref, a, int32(g), p)
			e.closeInto(got, b, int32(g), p)
			if !slices.Equal(a, b) {
				return fmt.Sprintf("the cone of g%d's first %d events: %v, with chains %v", g, p, a, b)
			}
		}
	}
	r := rand.New(rand.NewSource(int64(len(c.ev))))
	for try := 0; try < 20; try++ {
		clear(a)
		clear(b)
		for n := 1 + r.Intn(4); n > 0; n-- {
			g := int32(r.Intn(ng))
			p := int32(r.Intn(len(c.byG[g]) + 1))
			e.closeInto(ref, a, g, p)
			e.closeInto(got, b, g, p)
			if !slices.Equal(a, b) {
				return fmt.Sprintf("try %d: the cone after g%d's first %d events: %v, with chains %v", try, g, p, a, b)
			}
		}
	}
	// firsts lists, per goroutine k that g's clock ever knows of, the
	// first position that knows more than each count of k.
	firsts := func(k int32, rs knowsList) []int32 {
		var out []int32
		for v := int32(0); v < int32(len(c.byG[k])); v++ {
			out = append(out, rs.firstAbove(v))
		}
		return out
	}
	mark := make([]bool, ng)
	for k := range mark {
		mark[k] = true
	}
	for g := 0; g < ng; g += gstep {
		g := int32(g)
		x, y := map[int32][]int32{}, map[int32][]int32{}
		for k := int32(0); int(k) < ng; k++ {
			if k == g {
				continue
			}
			fx, fy := firsts(k, ref.h.rises(g, k)), firsts(k, got.h.rises(g, k))
			if !slices.Equal(fx, fy) {
				return fmt.Sprintf("the first positions of g%d knowing more of g%d: %v, with chains %v", g, k, fx, fy)
			}
		}
		for _, w := range []struct {
			h   *clocks
			out map[int32][]int32
		}{{ref, x}, {got, y}} {
			w.h.h.eachRisesMarked(g, mark, func(k int32, rs knowsList) {
				if f := firsts(k, rs); k != g && len(f) > 0 && f[0] >= 0 {
					w.out[k] = f
				}
			})
		}
		if !reflect.DeepEqual(x, y) {
			return fmt.Sprintf("the marked rises of g%d: %v, with chains %v", g, x, y)
		}
	}
	return ""
}

// Every pass answers alike with chains and without, and goroutines do
// continue chains on these traces.
// Besides the default joins, with a base made at every join, judged by
// its tag (clock_vc.go's knowsBase: a goroutine's own bases are not its
// predecessors' on its chain), sparse and through dense mirrors.
func TestChainsSameAnswers(t *testing.T) {
	handoffs := 0
	traces := chainTraces(t)
	for it, tr := range traces {
		diff, n := chainDiff(tr)
		if diff != "" {
			t.Fatalf("trace %d (%d events): %s", it, len(tr.Events), diff)
		}
		handoffs += n
		if len(tr.Events) > 20_000 {
			continue
		}
		for _, dense := range []bool{false, true} {
			withJoins(dense, true, func() { diff, _ = chainDiff(tr) })
			if diff != "" {
				t.Fatalf("trace %d (%d events), a base at every join, dense %v: %s", it, len(tr.Events), dense, diff)
			}
		}
	}
	if handoffs < 1000 {
		t.Fatalf("%d goroutines continued a chain: the chains went untested", handoffs)
	}
	t.Logf("%d goroutines continued a chain", handoffs)
}

// Without the ordering check a goroutine continues a chain whose last
// goroutine's events it does not all follow, and the answers differ: the
// comparison above sees a broken rule.
func TestChainsUncheckedDiffer(t *testing.T) {
	defer func() { chainsUnchecked = false }()
	chainsUnchecked = true
	r := rand.New(rand.NewSource(31))
	for i := 0; i < 150; i++ {
		tr := spawnTrace(r, spawnParams{maxG: 4 + r.Intn(12), ops: 2 + r.Intn(6), depth: 1 + r.Intn(3)})
		if diff, _ := chainDiff(tr); diff != "" {
			t.Logf("trace %d: %s", i, diff)
			return
		}
	}
	t.Fatal("chains without the ordering check answered alike on every trace")
}

// The cone's closures see a broken chain rule by themselves: without the
// ordering check, or with a write that a kept read joins taken for one
// that publishes nothing, a goroutine continues a chain whose last
// goroutine's events the cone's relation does not all order before it,
// and some cut differs from the one over goroutines.
func TestChainsConeRule(t *testing.T) {
	for _, broken := range []struct {
		name string
		knob *bool
	}{{"unchecked", &chainsUnchecked}, {"silent writes", &chainsSilentWrites}} {
		t.Run(broken.name, func(t *testing.T) {
			defer func() { *broken.knob = false }()
			*broken.knob = true
			for it, tr := range chainTraces(t) {
				if len(tr.Events) > 3000 {
					continue
				}
				c := newCTP(tr)
				m := newMemory(c)
				mode := clockMode{rf: true, acqRises: true}
				ref, err := newClocks(context.Background(), c, m, mode)
				if err != nil {
					t.Fatal(err)
				}
				mode.chains = newChainMap(c)
				got, err := newClocks(context.Background(), c, m, mode)
				if err != nil {
					t.Fatal(err)
				}
				if d := coneDiff(c, ref, got, 1, 1); d != "" {
					t.Logf("trace %d: %s", it, d)
					return
				}
			}
			t.Fatal("the cone's closures answered alike on every trace with the rule broken")
		})
	}
}

// Analyze finds the same with chains and without: every finding, its
// witness and the funnel's counts, and so do the baselines (happens-before
// and SHB as ThreadSanitizer and Mathur et al. compute them).
func TestChainsSameFindings(t *testing.T) {
	traces := chainTraces(t)
	analyze := func(tr *trace.Trace, chains bool, analysis string) *Result {
		defer func(u bool) { useChains = u }(useChains)
		useChains = chains
		res, err := Analyze(context.Background(), tr, Options{Analysis: analysis})
		if err != nil {
			t.Fatal(err)
		}
		for k := range res.Stats.Stages {
			res.Stats.Stages[k].Time = 0
		}
		return res
	}
	for it, tr := range traces {
		if len(tr.Events) > 20_000 {
			continue // the shared lock trace: long to analyze twice
		}
		for _, an := range []string{AnalysisSeer, AnalysisHB, AnalysisSHB} {
			ref, got := analyze(tr, false, an), analyze(tr, true, an)
			if !reflect.DeepEqual(ref.Findings, got.Findings) {
				t.Fatalf("trace %d, %s: %d findings, with chains %d:\n%v\nwith chains:\n%v", it, an, len(ref.Findings), len(got.Findings), ref.Findings, got.Findings)
			}
			if !reflect.DeepEqual(ref.Stats.Stages, got.Stats.Stages) {
				t.Fatalf("trace %d, %s: the funnel differs:\n%+v\nwith chains:\n%+v", it, an, ref.Stats.Stages, got.Stats.Stages)
			}
		}
	}
}

// BenchmarkPassChains times the must-happen-before, SHB and cone passes with
// chains and without on a saved trace: SEER_CHAINS_TRACE names it,
// SEER_CHAINS_EVENTS (if set) keeps only its first events (pond's trace
// from issue 31, whose whole analysis takes minutes). It reports how many
// goroutines continued a chain.
func BenchmarkPassChains(b *testing.B) {
	path := os.Getenv("SEER_CHAINS_TRACE")
	if path == "" {
		b.Skip("SEER_CHAINS_TRACE names no trace")
	}
	tr, err := trace.ReadFile(path)
	if tr == nil {
		b.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("SEER_CHAINS_EVENTS")); err == nil && n < len(tr.Events) {
		tr.Events = tr.Events[:n]
	}
	c := newCTP(tr)
	m := newMemory(c)
	for _, pm := range []struct {
		name string
		mode clockMode
	}{{"mhb", clockMode{rfCheck: true}}, {"shb", clockMode{locks: true, serial: true, rf: true, want: map[int32][]int32{}}},
		{"cone", clockMode{rf: true, acqRises: true}}} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/chains=%v", pm.name, on), func(b *testing.B) {
				handoffs := 0
				for range b.N {
					mode := pm.mode
					if on {
						mode.chains = newChainMap(c)
					}
					if _, err := newClocks(context.Background(), c, m, mode); err != nil {
						b.Fatal(err)
					}
					if on {
						handoffs = mode.chains.handoffs
					}
				}
				b.ReportMetric(float64(handoffs), "handoffs")
			})
		}
	}
}
