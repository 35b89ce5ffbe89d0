// This file implements Analyze, the pipeline of the UCG paper's §5 for one
// trace: pre-pass (CTP, locations, vector clocks), candidates through the
// lockset and must-happen-before filters, Universal Causality Graphs in
// batches, witness search with gini, and the independent witness check
// (maximal-causal-models Theorem 2) before anything is reported.

package predict

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// engine holds the analysis state of one trace.
type engine struct {
	ctx  context.Context
	opts Options
	t    *trace.Trace
	c    *ctp
	m    *memory
	mhb  *clocks // must-happen-before
	cone *clocks // must-happen-before plus kept read-from, once needCone has made it
	// coneOnce makes the cone once for the engine and its copies: the
	// race layers and the blocking and misuse layers run on two
	// goroutines (Analyze), and either may need it first.
	coneOnce *coneOnce
	work     [][2]int32 // closeInto's worklist, reused: each goroutine's engine copy has its own
	dec      []centry   // closeInto's decoded rises, reused likewise

	relaxed bitset // plain reads that may see another writer (relevance.go)

	// govern, if not nil, pauses the must-happen-before pass of a large
	// trace while the SHB layer runs beside it and memory is short
	// (analyze_beside.go).
	govern *governor

	// lg holds, per lock kept as a lock, the goroutines with critical
	// sections of it (lockGoroutines, cut.go), made when first asked.
	lg map[trace.ObjID][]int32

	writes   map[gl][]int32 // (location as ObjID, goroutine) -> shared writes
	writersG map[int32][]int32
	rels     map[addrG][]int32 // (sync address, goroutine) -> releases (not atomics)
	relsG    map[uint64][]int32
}

type addrG struct {
	a uint64
	g int32
}

// keepsWriter reports whether a witness keeps the writer of event i: it
// reads a shared location, and it is an atomic or a plain read that
// relevance.go does not relax.
func (e *engine) keepsWriter(i int32) bool {
	ev := &e.c.ev[i]
	if !isRead(ev.Op) || !e.m.shared(i) {
		return false
	}
	return ev.Op != trace.OpRead || !e.relaxed.has(i)
}

func (e *engine) indexWrites() {
	if e.writes != nil {
		return
	}
	e.writes = make(map[gl][]int32)
	e.writersG = make(map[int32][]int32)
	e.rels = make(map[addrG][]int32)
	e.relsG = make(map[uint64][]int32)
	c := e.c
	for i := range c.ev {
		ev := &c.ev[i]
		g := int32(ev.G)
		if isWrite(ev.Op) && e.m.shared(int32(i)) {
			k := gl{g, trace.ObjID(e.m.loc[i])}
			if len(e.writes[k]) == 0 {
				e.writersG[e.m.loc[i]] = append(e.writersG[e.m.loc[i]], g)
			}
			e.writes[k] = append(e.writes[k], int32(i))
		}
		if k := c.syncKind(i); k.Releases() && !ev.Op.IsAtomic() {
			a := c.syncAddr(i)
			key := addrG{a, g}
			if len(e.rels[key]) == 0 {
				e.relsG[a] = append(e.relsG[a], g)
			}
			e.rels[key] = append(e.rels[key], int32(i))
		}
	}
}

func (e *engine) writerGoroutines(loc int32) []int32 { e.indexWrites(); return e.writersG[loc] }
func (e *engine) writesOf(loc, g int32) []int32 {
	e.indexWrites()
	return e.writes[gl{g, trace.ObjID(loc)}]
}
func (e *engine) releaserGoroutines(a uint64) []int32 { e.indexWrites(); return e.relsG[a] }
func (e *engine) releasesOf(a uint64, g int32) []int32 {
	e.indexWrites()
	return e.rels[addrG{a, g}]
}

// coneOnce is the causal cone's pass, run once.
type coneOnce struct {
	once sync.Once
	cone *clocks
	err  error
}

// needCone makes e.cone, by the causal cone's pass the first time any
// copy of the engine asks.
func (e *engine) needCone() error {
	if e.cone != nil {
		return nil
	}
	e.coneOnce.once.Do(func() { e.coneOnce.cone, e.coneOnce.err = e.buildCone() })
	e.cone = e.coneOnce.cone
	return e.coneOnce.err
}

// fork returns a copy of e for another goroutine: it shares the trace,
// the passes' clocks and the cone (made once), which are only read once
// made, and has scratch of its own.
func (e *engine) fork() *engine {
	f := *e
	f.work, f.dec = nil, nil
	return &f
}

// newEngine closes control relevance over read-from and runs both
// vector-clock passes of the seer analysis.
func newEngine(ctx context.Context, t *trace.Trace, c *ctp, m *memory, o Options) (*engine, error) {
	e, err := prePass(ctx, t, c, m, o)
	if err != nil {
		return nil, err
	}
	return e, e.needCone()
}

// prePass closes control relevance over read-from and runs the
// must-happen-before pass, which is all the candidate filters need.
func prePass(ctx context.Context, t *trace.Trace, c *ctp, m *memory, o Options) (*engine, error) {
	e, err := relevance(ctx, t, c, m, o)
	if err != nil {
		return nil, err
	}
	return e, e.buildMHB()
}

// relevance makes the engine and closes control relevance over read-from.
func relevance(ctx context.Context, t *trace.Trace, c *ctp, m *memory, o Options) (*engine, error) {
	e := &engine{ctx: ctx, opts: o, t: t, c: c, m: m, coneOnce: new(coneOnce)}
	var err error
	if e.relaxed, err = relaxedReads(ctx, t, m.loc, func(l int32) trace.Span { return m.locs[l].Span },
		func(l int32) bool { return m.locs[l].shared() }, &o); err != nil {
		return nil, err
	}
	return e, nil
}

// buildMHB runs the must-happen-before pass.
func (e *engine) buildMHB() error {
	if g := e.opts.given; g != nil && g.mhb != nil {
		// The longer trace's pass stopped after this prefix: its
		// clocks are this trace's (historyBudgetError), once indexed.
		h, err := g.mhb.result()
		if err != nil {
			return err
		}
		e.mhb = &clocks{c: e.c, h: h, rfImplied: g.rfImplied}
		return nil
	}
	var err error
	mode := clockMode{rfCheck: true, relaxed: e.relaxed, budget: e.opts.HistoryBudget}
	mode.arena = e.opts.arena
	mode.govern = e.govern
	if useChains {
		mode.chains = newChainMap(e.c) // clock_chain.go
	}
	e.mhb, err = newClocks(e.ctx, e.c, e.m, mode)
	return err
}

// buildCone runs the causal cone's pass (must-happen-before plus the
// read-from of every read whose value matters), which plans need: only
// once a candidate has survived the filters, as most runs have none.
// Callers go through needCone.
func (e *engine) buildCone() (*clocks, error) {
	if e.mhb != nil && e.mhb.rfImplied {
		// Every read the cone keeps already knows its writer in
		// must-happen-before (data handed over only through channels,
		// say): the cone's pass would join nothing more, and its clocks
		// are must-happen-before's. The rises at release-acquire events,
		// which that pass did not keep, are read back from its history.
		return &clocks{c: e.c, h: e.mhb.h, acq: risesFromLog(e.c, e.mhb.h)}, nil
	}
	// The cone's history is made and read beside must-happen-before's,
	// of which the later layers read a few states: the pages of its
	// arena go back to the kernel (clock_rises_file.go).
	e.opts.arena.drop()
	mode := clockMode{rf: true, relaxed: e.relaxed, acqRises: true, arena: e.opts.coneArena}
	if useChains {
		mode.chains = newChainMap(e.c) // clock_chain.go, read through clock_chain_cone.go
	}
	return newClocks(e.ctx, e.c, e.m, mode)
}

// concurrentPassesBelow is the number of events below which Analyze runs
// the SHB layer's passes and the must-happen-before pass at once: their
// peaks per event, measured on a trace whose goroutines all talk to all
// (bench/RESULTS.md, "Figures once in comments"), let the
// default 1 GiB budget afford both up to a million events. A variable
// for the tests, which run both ways.
var concurrentPassesBelow = 1 << 20

// collect runs the garbage collector between the passes of a large
// trace. A pass's temporaries (clock copies, sweep lists, append growth)
// die with it; collected at once, they never add to the next pass's peak,
// whereas GOGC's goal lets the heap reach twice what is live, and the
// trace alone is most of that. The big arrays hold no pointers, so a
// collection marks little against what a pass of a quarter of a million
// events takes. With the two passes on two goroutines, the SHB pass's
// clocks are collected as it ends, which lowered the peak in paired
// whole-process runs (bench/RESULTS.md, "Figures once in
// comments").
func collect(t *trace.Trace) {
	if len(t.Events) >= 1<<18 {
		runtime.GC()
	}
}

// Analyze predicts the concurrency bugs of t that another schedule of the
// recorded run would show: data races (KindRace), atomicity violations
// (KindAtomicity), deadlocks (KindDeadlock: lock-order, channel and Cond),
// leaks after a select's other case (KindLeak, given Options.SelectLeak)
// and misuse of channels, WaitGroups and mutexes (KindSendOnClosed,
// KindCloseOfClosed, KindNegativeWaitGroup, KindWaitGroupReuse,
// KindUnlockOfUnlocked); the goroutines the run itself left blocked are
// ObservedBlocked's. With the seer analysis every finding carries a
// witness schedule that CheckWitness accepts; a witness it rejects is a
// bug in seer and makes Analyze return an error. Analyze returns ctx's
// error if ctx is cancelled.
//
// When the history is cut (Stats.HistoryCut), t holds only the events
// before the cut while they are analysed (Trace.Park), and a trace of
// concurrentPassesBelow events or more has no values while its first
// passes run (Trace.ParkValues): nothing else may read t while Analyze
// runs. It is whole again when Analyze returns.
func Analyze(ctx context.Context, t *trace.Trace, opts Options) (res *Result, err error) {
	if t == nil {
		return nil, errors.New("predict: nil trace")
	}
	a := &analysis{ctx: ctx, o: opts.defaults(), t: t, start: time.Now()}
	own := a.o.arena == nil && a.o.Analysis == AnalysisSeer && len(t.Events) >= arenaMinEvents
	// The values parked while the whole trace's passes run are back by
	// then (mustHappenBefore), but for an error or a panic before. After
	// an error the SHB layer run beside the must-happen-before pass
	// (analyze_beside.go) may still run: it reads t, so it is waited for
	// first (below concurrentPassesBelow events no values are parked,
	// and mustHappenBefore waits for the SHB layer on every return). A
	// panic waits for every goroutine of the call and frees the arena
	// (settle).
	returned := false
	defer func() {
		if !returned {
			a.settle(own) // analyze_panic.go
			return
		}
		if a.beside && a.waitSHB != nil {
			a.waitSHB()
		}
		if rerr := a.restoreValues(); rerr != nil && err == nil {
			res, err = nil, rerr
		}
	}()
	if own {
		a.o.arena, a.o.coneArena = new(riseArena), new(riseArena) // clock_rises_file.go
	}
	res, err = a.run()
	a.endWhole() // a panic of the caller's work goes out through settle
	returned = true
	// The index of a cut history may still be written (history_cut.go)
	// if the analysis ended before the prefix's read it.
	if a.waitIndex != nil {
		a.waitIndex()
	}
	if (a.o.arena != nil || err != nil) && a.waitSide != nil {
		// After an error the side layers may still run, reading the
		// history (the arena's): none is left behind.
		a.waitSide()
	}
	if own {
		a.o.freeArenas()
	}
	return res, err
}

// run is Analyze's analysis, its phases in order.
func (a *analysis) run() (*Result, error) {
	ctx, t := a.ctx, a.t
	a.res = &Result{Stats: Stats{Analysis: a.o.Analysis, Events: len(t.Events), Goroutines: t.NumGoroutines()}}
	a.prePass()
	a.startWhole() // analyze_whole.go
	switch a.o.Analysis {
	case AnalysisHB, AnalysisSHB:
		err := baseline(ctx, a.c, a.m, &a.o, a.res)
		a.res.Stats.Total = time.Since(a.start)
		return a.res, err
	case AnalysisSeer:
	default:
		return nil, fmt.Errorf("predict: unknown analysis %q", a.o.Analysis)
	}
	var err error
	if a.e, err = relevance(ctx, t, a.c, a.m, a.o); err != nil {
		return nil, err
	}
	if err := a.startSHB(); err != nil {
		return nil, err
	}
	if err := a.mustHappenBefore(); err != nil {
		if hb := (*historyBudgetError)(nil); errors.As(err, &hb) {
			return a.cutHistory(hb)
		}
		return nil, err
	}
	if err := a.sweep(); err != nil {
		return nil, err
	}
	if err := a.coneLayers(); err != nil {
		return nil, err
	}
	items, err := a.ucg()
	if err != nil {
		return nil, err
	}
	if err := a.witnesses(items); err != nil {
		return nil, err
	}
	if err := a.observed(); err != nil {
		return nil, err
	}
	if err := a.joinSide(); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	sortFindings(a.res.Findings)
	a.res.Stats.Total = time.Since(a.start)
	return a.res, nil
}

// fullTrace is what analyzePrefix keeps of the whole trace's analysis:
// what the checker needs, and the whole trace's funnel so far.
type fullTrace struct {
	t        *trace.Trace
	loc      []int32
	spans    []trace.Span
	relaxed  bitset
	stats    Stats
	shb      Stage
	observed map[trace.ObjID]bool // the CTP's observed locks
}

// parkTail says whether analyzePrefix parks the events past the cut
// while the prefix is analysed (Trace.Park); tests turn it off to compare.
var parkTail = true

// analyzePrefix finishes Analyze when the must-happen-before pass's
// history outgrew Options.HistoryBudget at event at: every later layer
// runs on the trace's first at events, a run of the program in its own
// right (the analysis of a trace whose recording was cut there), and the
// SHB layer's findings on the whole trace, shb, are reported as they are;
// the prefix's analysis skips their pairs of sites. SHB keeps no history,
// so no race it proves is lost to the budget: what the report can lack is
// only what a deeper layer would have proved after event at. The SHB
// findings' witnesses are checked first, on the whole trace; the events
// after at are then parked in a file, beside the prefix's analysis
// (parkBeside), until it ends.
func analyzePrefix(ctx context.Context, full fullTrace, o Options, hb *historyBudgetError, shb []Finding, start time.Time) (res *Result, err error) {
	t, at := full.t, hb.At
	sub := o
	sub.HistoryBudget = 0 // the prefix's history is the one that was made
	sub.WhileWhole = nil  // the whole trace's, run by the caller's Analyze
	sub.given = &givenSHB{stage: full.shb, mhb: hb.Index, rfImplied: hb.RFImplied, observed: full.observed}
	hb.Index = nil
	for i := range shb {
		ev := shb[i].Events
		sub.given.sites = append(sub.given.sites, [2]trace.Frame{t.Site(&t.Events[ev[0]]), t.Site(&t.Events[ev[1]])})
	}
	// The SHB findings' witnesses are checked on the whole trace first:
	// then nothing reads the events past the cut until Analyze returns,
	// and they are parked (Trace.Park) beside the prefix's analysis.
	t0 := time.Now()
	if len(shb) > 0 {
		chk := witness.NewChecker(t, full.loc, full.spans)
		chk.Relax(full.relaxed.has)
		chk.ValueFree(o.valueFree(t))
		chk.SelectCases(o.selectCases(t))
		if err := checkAll(ctx, chk, shb); err != nil {
			return nil, err
		}
	}
	checked := time.Since(t0)
	full.loc, full.spans = nil, nil
	prefix := t.Prefix(at) // before Park shortens t's tables
	parking := func() (*trace.Parked, error) { return nil, nil }
	if parkTail {
		parking = parkBeside(t, at) // history_cut_park.go
	}
	returned := false
	defer func() {
		var parked *trace.Parked
		var perr error
		if returned {
			parked, perr = parking()
		} else {
			// A panic in the prefix's analysis goes on once the tail is
			// back, rather than a panic of Park's (analyze_panic.go).
			quietly(func() { parked, perr = parking() })
		}
		if perr != nil && err == nil {
			res, err = nil, perr
		}
		if rerr := parked.Restore(); rerr != nil && err == nil {
			res, err = nil, fmt.Errorf("predict: reading back the trace's events after the cut: %w", rerr)
		}
	}()
	res, err = Analyze(ctx, prefix, sub)
	returned = true
	if err != nil {
		return nil, err
	}
	st := &res.Stats
	st.Check += checked
	st.Events, st.Goroutines = full.stats.Events, full.stats.Goroutines
	st.Locations, st.SharedLocations = full.stats.Locations, full.stats.SharedLocations
	st.HistoryCut = at
	for i := range st.Stages {
		if st.Stages[i].Name == "observed" {
			for _, f := range shb {
				st.Stages[i].Races += int64(f.Count)
				st.Stages[i].RaceSites++
			}
		}
	}
	res.Findings = append(res.Findings, shb...)
	sortFindings(res.Findings)
	st.Total = time.Since(start)
	return res, nil
}

// checkAll checks every finding's witness with chk, the findings being
// independent claims, on as many goroutines as GOMAXPROCS (the checker's
// methods are safe for that). It returns ctx's error if cancelled, and
// otherwise the rejection of the first finding, in order, whose witness
// chk rejects: the same as checking them one by one.
func checkAll(ctx context.Context, chk *witness.Checker, fs []Finding) error {
	errs := make([]error, len(fs))
	var next atomic.Int64
	var waits []func()
	for w := min(runtime.GOMAXPROCS(0), len(fs)); w > 0; w-- {
		waits = append(waits, goroutine(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(fs) || ctx.Err() != nil {
					return
				}
				fd := &fs[i]
				if err := chk.Check(fd.claim()); err != nil {
					errs[i] = fmt.Errorf("predict: internal error: witness for %s %v rejected: %v", fd.Kind, fd.Events, err)
				}
			}
		}))
	}
	for _, wait := range waits {
		wait()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// goroutine runs f on a goroutine of its own. The returned wait blocks
// until f has returned and, if f panicked, panics again on the caller's
// goroutine, with f's value and stack: a panic in the engine (a bug in
// seer) then reaches Analyze's caller, which may recover it (the
// language server does), rather than ending the process.
func goroutine(f func()) (wait func()) {
	done := make(chan struct{})
	var p any
	var stack []byte
	var end func()
	if trackGoroutine != nil {
		end = trackGoroutine() // the tests' count (analyze_panic.go)
	}
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				p, stack = r, debug.Stack()
			}
		}()
		if end != nil {
			defer end()
		}
		f()
	}()
	return func() {
		<-done
		if p != nil {
			panic(fmt.Sprintf("%v\n\non a goroutine of predict.Analyze:\n%s", p, stack))
		}
	}
}

// sideResult is what the layers after the races found: their findings
// and funnel rows, in the order the layers ran.
type sideResult struct {
	findings []Finding
	stages   []Stage
	err      error
}

// sideLayers runs the layers that do not depend on the race layers, in
// this order: lock-order deadlocks (deadlock_lockorder.go), with the clocks the
// races use; channel deadlocks (deadlock_channel.go); leaks after a select's
// other case (leak_select.go); channel, WaitGroup and mutex misuse
// (misuse.go); nil dereferences and indexes (nilderef.go, given the
// static half).
func (e *engine) sideLayers() sideResult {
	var r sideResult
	// SPDOffline (deadlock_spd.go) proves the lock-order deadlocks the
	// lock-order layer's budgets leave: longer cycles, later instances.
	spd := func() ([]Finding, Stage, error) { return e.spdLayer(r.findings) }
	layers := []func() ([]Finding, Stage, error){e.deadlockLayer, spd, e.blockingLayer, e.leakLayer}
	if e.opts.NoDeadlocks {
		layers = nil
	}
	if !e.opts.NoMisuse {
		layers = append(layers, e.misuseLayer)
	}
	if e.opts.NilStore != nil && e.opts.NilUse != nil {
		layers = append(layers, e.nilDerefLayer)
	}
	for _, l := range layers {
		fs, st, err := l()
		if err != nil {
			r.err = err
			return r
		}
		r.findings = append(r.findings, fs...)
		r.stages = append(r.stages, st)
	}
	return r
}

// observedRaces sets Predicted for race findings: false when the two
// accesses are concurrent under the run's own happens-before, locks
// included (what ThreadSanitizer sees). race_observed.go answers 64 findings
// per walk of the trace between their accesses.
func (e *engine) observedRaces(fs []Finding) error {
	var idx []int
	var qs []hbQuery
	flush := func() {
		bits := hbBefore(e.c, qs)
		for k, i := range idx {
			fs[i].Predicted = bits&(1<<uint(k)) != 0
		}
		idx, qs = idx[:0], qs[:0]
	}
	for i := range fs {
		if fs[i].Kind != KindRace {
			continue
		}
		if e.ctx.Err() != nil {
			return e.ctx.Err()
		}
		a, b := int32(fs[i].Events[0]), int32(fs[i].Events[1])
		if b < a {
			a, b = b, a
		}
		if e.c.ev[a].G == e.c.ev[b].G {
			fs[i].Predicted = true // ordered by program order
			continue
		}
		idx, qs = append(idx, i), append(qs, hbQuery{a, b})
		if len(qs) == 64 {
			flush()
		}
	}
	flush()
	return nil
}

// witnessFor tries the plans of a candidate and returns a witness. rp,
// if not nil, is a race's plan already made for the UCG (the search may
// move its barriers: it is used once).
func (e *engine) witnessFor(cd cand, rp *plan, res *Result) *schedule {
	var plans []*plan
	if cd.kind == 'r' {
		if rp != nil {
			plans = append(plans, rp)
		} else if p := e.racePlan(cd, false); p != nil {
			plans = append(plans, p)
		}
	} else {
		if isRead(e.c.ev[cd.ev[1]].Op) {
			if p := e.atomicityPlan(cd, 1, false); p != nil {
				plans = append(plans, p)
			}
		}
		if p := e.atomicityPlan(cd, 2, false); p != nil {
			plans = append(plans, p)
		}
	}
	for _, p := range plans {
		// First with every section as the run left it at the body's end;
		// if that fails, with growable goroutines' sections closed.
		q := e.closedPlan(p)
		for _, p := range []*plan{p, q} {
			if p == nil {
				continue
			}
			r, w := e.search(p)
			// No witness with the prefix in observed order: give the
			// solver more of the run to reorder, up to MaxWindow.
			for k := 0; k < maxWidenings && r == encInfeasible && e.widen(p); k++ {
				r, w = e.search(p)
			}
			switch r {
			case encWitness:
				return w
			case encUnknown:
				res.Stats.SolverUnknown++
			}
		}
	}
	return nil
}

func evInts(cd cand) []int {
	if cd.kind == 'r' {
		return []int{int(cd.ev[0]), int(cd.ev[1])}
	}
	return []int{int(cd.ev[0]), int(cd.ev[1]), int(cd.ev[2])}
}

// sortFindings orders findings by kind, in descending order of the kind's
// name (so "waitgroup-reuse" comes first, "race" after "send-on-closed",
// and "atomicity" last: a fixed order, not a ranking), then by their
// events, earliest first; the sort is stable.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(a, b int) bool {
		if fs[a].Kind != fs[b].Kind {
			return fs[a].Kind > fs[b].Kind
		}
		ea, eb := fs[a].Events, fs[b].Events
		for k := 0; k < len(ea) && k < len(eb); k++ {
			if ea[k] != eb[k] {
				return ea[k] < eb[k]
			}
		}
		return false
	})
}
