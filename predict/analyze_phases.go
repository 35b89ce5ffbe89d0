// This file implements the phases of Analyze (analyze.go), in the order
// it runs them: the pre-pass (the CTP and the locations), the SHB layer
// and the must-happen-before pass (on two goroutines below
// concurrentPassesBelow events, and beyond under a memory limit, the
// pass pausing while memory is short, analyze_beside.go), the layers
// after the races started beside the rest (sideLayers), the candidates'
// sweep, the cone layers (sync-preserving, reversal), the UCG, the
// witness search, the observed races, and the independent check. Each
// phase is a method of analysis, the state one Analyze call carries from
// phase to phase.
//
// Memory: a field is set to nil where the phase after it no longer needs
// it and the collector should be able to take it: the engine, the CTP,
// the locations, the candidates and the proofs before the checker builds
// its indices (check), and all of them before a trace whose history
// outgrew its budget is analysed again as a prefix (cutHistory). What
// only one phase needs is a local of that phase.

package predict

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// analysis is the state of one Analyze call between its phases.
type analysis struct {
	ctx   context.Context
	o     Options
	t     *trace.Trace
	start time.Time
	res   *Result

	c *ctp
	m *memory
	e *engine

	// The races the sound layers proved, per pair of sites, and the
	// pairs in the order they were proved (race_layers.go).
	proofs     map[siteKey]*proof
	proofOrder []siteKey

	// The SHB layer's row and error, written by its goroutine when
	// concurrent; waitSHB waits for it (and for the classes, when that
	// goroutine builds them).
	shbStage   Stage
	shbErr     error
	waitSHB    func()
	concurrent bool
	// beside: the trace is large, yet the SHB layer runs beside the
	// must-happen-before pass, governed by memory (analyze_beside.go);
	// what follows that pass waits for the SHB layer first.
	beside bool

	// cls holds the access classes and the lockset filter, made once by
	// whichever of the passes' goroutines finishes first (classes).
	cls *classesOnce
	cs  *candidates

	// side is what the layers after the races found, on their own
	// goroutine; waitSide waits for it.
	side     sideResult
	waitSide func()

	// waitMem waits for the pre-pass's locations (prePass).
	waitMem func()

	// waitWhole waits for the caller's work beside the passes over the
	// whole trace (Options.WhileWhole, analyze_whole.go), until endWhole.
	waitWhole func()

	// waitIndex, if not nil, waits for the index of the history the
	// must-happen-before pass's budget cut (history_cut.go), which may
	// be written to the arena on a goroutine of its own.
	waitIndex func()

	// nSHB counts the findings of the SHB layer, first among the
	// findings: observed by construction (witnesses, observed).
	nSHB int

	// values holds the trace's values while the whole trace's passes
	// run (analyze_values.go).
	values *trace.Parked
}

// classesOnce makes the candidates' access classes once.
type classesOnce struct {
	claim sync.Once
	cs    *candidates
	err   error
}

// ucgItem is a candidate on its way through the UCG to the witness
// search.
type ucgItem struct {
	cd   cand
	site *siteCands
	ok   bool
	plan *plan // a race's plan, the same for the UCG and the witness
}

// prePass builds the CTP and, on a second goroutine, the memory: the
// accesses grouped into locations, then the read-from. Both need the
// events only (newMemoryOf reads nothing of the CTP), so on a second core
// the memory takes nothing from the CTP's time, and the CTP and the
// grouping cost about as much. The memory's goroutine is goroutine's, so
// that a panic in it reaches Analyze's caller.
func (a *analysis) prePass() {
	t, o := a.t, &a.o
	var m *memory
	mem := goroutine(func() {
		loc, spans := trace.GroupAccesses(t.Events)
		m = newMemoryOf(t.Events, loc, spans)
	})
	a.waitMem = mem // a panic's way out waits for it (analyze_panic.go)
	if panicHook != nil {
		panicHook(panicPrePass)
	}
	if o.given != nil {
		a.c = newCTPObserved(t, o.given.observed)
	} else {
		a.c = newCTP(t)
	}
	mem()
	a.m = m
	a.res.Stats.Locations = len(a.m.locs)
	for i := range a.m.locs {
		if a.m.locs[i].shared() {
			a.res.Stats.SharedLocations++
		}
	}
}

// classes makes the access classes and the lockset filter, once.
func (a *analysis) classes() {
	a.cls.claim.Do(func() { a.cls.cs, a.cls.err = candidateClasses(a.ctx, a.c, a.m, &a.o, false) })
}

// startSHB starts the sound race layers (race_layers.go), cheapest
// first; a site pair one of them proves goes no further. The work before
// the candidates' sweep is three independent parts: the SHB layer and the
// must-happen-before pass replay the trace (neither reads the other's
// clocks), and the access classes and the lockset filter need no clocks.
// Below concurrentPassesBelow events the two passes run on two
// goroutines, and the classes on whichever finishes its pass first (never
// beside both passes, whose memory is the peak); from there on, memory
// (which -maxmem budgets per event) matters more than a second core: the
// SHB layer runs beside that pass only under a memory limit, the pass
// pausing once the process's resident memory reaches the analysis's share
// of it until the SHB layer has ended and its memory is collected
// (analyze_beside.go's governor), and otherwise first, its memory
// collected before the pass that follows; either way the classes come
// after both passes. The sweep waits for all three, and skips
// what SHB proved. The blocking, deadlock, leak and misuse layers need
// only the must-happen-before clocks and the cone: they start once that
// pass is done, on an engine copy of their own, and their findings and
// rows join in the order sideLayers lists. When the SHB layer runs alone,
// startSHB returns its error. The SHB layer's pass is skipped where every
// conflicting pair is ordered by one edge of the fixed synchronisation
// (skipSHB, race_handoff.go): it would find nothing there.
func (a *analysis) startSHB() error {
	a.proofs = make(map[siteKey]*proof)
	a.cls = &classesOnce{}
	a.waitSHB = func() {}
	a.waitSide = func() {}
	a.concurrent = len(a.t.Events) < concurrentPassesBelow
	if err := a.parkValuesForPasses(); err != nil {
		return err
	}
	if a.o.given != nil {
		// The SHB layer ran on the whole trace, of which t is a prefix:
		// its pairs of sites are proved (analyzePrefix reports them).
		a.shbStage = a.o.given.stage
		for _, fr := range a.o.given.sites {
			k := siteKey{kind: 'r', s: sitePair(a.c.siteOf(fr[0]), a.c.siteOf(fr[1]))}
			if a.proofs[k] == nil {
				a.proofs[k] = &proof{layer: layerGiven}
				a.proofOrder = append(a.proofOrder, k)
			}
		}
		if a.concurrent || a.o.given.mhb != nil {
			// Given the longer trace's history, no pass runs here:
			// buildMHB waits for its index (history_cut.go), and the
			// classes, which read no clocks, are made beside that wait,
			// whatever the trace's size.
			a.waitSHB = goroutine(a.classes)
		}
	} else if !a.o.NoRaces {
		a.beside = !a.concurrent && passesBeside(&a.o)
		shb := a.e.fork()
		var ended chan struct{}
		if a.beside {
			ended = make(chan struct{})
			a.e.govern = newGovernor(a.ctx, besideRoom(&a.o), ended)
		}
		run := func() {
			if ended != nil {
				defer close(ended) // on a panic too: the pass's pause ends
				if besideHook != nil {
					besideHook(besideSHB)
				}
			}
			skipped := false
			if skipped, a.shbErr = a.skipSHB(); a.shbErr == nil && !skipped {
				a.shbStage, a.shbErr = shb.shbLayer(a.proofs, &a.proofOrder)
			}
			if a.shbErr == nil {
				collect(a.t) // the SHB passes' clocks, before what follows
				if a.concurrent {
					a.classes()
				}
			}
		}
		if a.concurrent || a.beside {
			a.waitSHB = goroutine(run)
		} else if run(); a.shbErr != nil {
			return a.shbErr
		}
	}
	return nil
}

// handoffSkip lets skipSHB skip the SHB layer's pass; false for the
// tests that compare the findings with and without the skip.
var handoffSkip = true

// skipSHB reports whether the SHB layer's pass can be skipped because
// every conflicting pair of the trace is ordered by one edge of the fixed
// synchronisation (race_handoff.go), and then sets the layer's row as the
// pass would have: no races, no sites.
func (a *analysis) skipSHB() (bool, error) {
	if !handoffSkip {
		return false, nil
	}
	t0 := time.Now()
	ok, err := handedOver(a.ctx, a.c, a.m)
	if err != nil || !ok {
		return false, err
	}
	a.shbStage = Stage{Name: "shb", Time: time.Since(t0)}
	return true, nil
}

// mustHappenBefore runs the must-happen-before pass and, once it is
// done, starts the layers after the races on an engine copy of their own
// and builds the classes if no goroutine has; it then waits for the SHB
// layer (first, when it runs beside a large trace's pass: a.beside). A
// *historyBudgetError is returned with the SHB layer done.
func (a *analysis) mustHappenBefore() error {
	mhbErr := a.e.buildMHB()
	passEnd := time.Since(a.start)
	a.e.govern = nil
	hb := (*historyBudgetError)(nil)
	cut := errors.As(mhbErr, &hb)
	if cut {
		// The cut history may still be indexed on a goroutine
		// (history_cut.go): Analyze waits for it on every path.
		a.waitIndex = hb.Index.wait
		if panicHook != nil {
			panicHook(panicCut)
		}
	}
	if a.beside {
		// The values read back, the layers after the races, the classes
		// and a cut's prefix come after the SHB layer, as they do when
		// it runs first.
		a.waitSHB()
	}
	// The caller's walk of the whole trace ends before Restore writes
	// the trace's tables (analyze_whole.go).
	a.endWhole()
	if err := a.restoreValues(); err != nil {
		return err
	}
	if cut {
		a.waitSHB()
		if a.shbErr != nil {
			return a.shbErr
		}
		return mhbErr
	}
	a.res.Stats.PrePass = time.Since(a.start)
	if a.beside {
		// The end of the pass, not of the wait for the SHB layer
		// after it, as when the two run below concurrentPassesBelow.
		a.res.Stats.PrePass = passEnd
	} else if !a.concurrent && a.o.given == nil {
		a.res.Stats.PrePass -= a.shbStage.Time
	}
	if mhbErr == nil {
		side := a.e.fork()
		a.waitSide = goroutine(func() { a.side = side.sideLayers() })
		if panicHook != nil {
			panicHook(panicSide)
		}
		a.classes()
	}
	a.waitSHB()
	for _, err := range []error{mhbErr, a.shbErr, a.cls.err} {
		if err != nil {
			return err
		}
	}
	return nil
}

// cutHistory analyses the trace's prefix that the must-happen-before
// pass's history fit in (analyzePrefix), reporting beside it what the SHB
// layer proved of the whole trace. The whole trace's analysis is dropped
// and collected first.
func (a *analysis) cutHistory(hb *historyBudgetError) (*Result, error) {
	var shbFound []Finding
	for _, k := range a.proofOrder {
		shbFound = append(shbFound, a.proofs[k].fd)
	}
	full := fullTrace{t: a.t, loc: a.m.loc, spans: a.m.spans(), relaxed: a.e.relaxed, stats: a.res.Stats, shb: a.shbStage, observed: a.c.observed}
	a.e, a.c, a.m, a.proofs, a.proofOrder, a.cls = nil, nil, nil, nil, nil, nil
	collect(a.t)
	return analyzePrefix(a.ctx, full, a.o, hb, shbFound, a.start)
}

// sweep runs the candidates' sweep through the must-happen-before
// filter, skipping what the SHB layer proved, and adds the funnel's first
// rows: candidates, lockset, the SHB layer's, happens-before.
func (a *analysis) sweep() error {
	collect(a.t) // the passes' clocks
	cs := a.cls.cs
	a.cs = cs
	if err := cs.sweep(a.ctx, a.c, a.e.mhb, &a.o, func(k siteKey) bool { return a.proofs[k] != nil }); err != nil {
		return err
	}
	collect(a.t)       // the candidates' sweep's temporaries
	a.o.arena.redrop() // what the sweep read back while the cone was made
	f := &cs.f
	stage := func(name string, k int, r, at int64, d time.Duration) {
		a.res.Stats.Stages = append(a.res.Stats.Stages, Stage{Name: name, Races: r, Atomicity: at,
			RaceSites: len(f.sites[k][0]), AtomicitySites: len(f.sites[k][1]), Time: d})
	}
	stage("candidates", 0, f.total[0], f.total[1], cs.times[0])
	stage("lockset", 1, f.lockset[0], f.lockset[1], cs.times[1])
	if !a.o.NoRaces {
		a.res.Stats.Stages = append(a.res.Stats.Stages, a.shbStage)
	}
	stage("happens-before", 2, f.mhb[0], f.mhb[1], cs.times[2])
	return nil
}

// coneLayers makes the causal cone if a pair of sites is left open (once
// refuteByReadFrom has dropped those it orders), and runs the layers that
// build witnesses from it: sync-preserving, then reversal.
func (a *analysis) coneLayers() error {
	e, cs := a.e, a.cs
	e.refuteByReadFrom(cs, a.proofs)

	open := 0 // site pairs no layer has proved yet
	for _, k := range cs.order {
		if a.proofs[k] == nil {
			open++
		}
	}
	if open > 0 {
		t0 := time.Now()
		if err := e.needCone(); err != nil {
			return err
		}
		a.res.Stats.Cone = time.Since(t0)
		collect(a.t)
	}
	if !a.o.NoRaces {
		var keys []siteKey
		var tries map[siteKey][]cand
		if open > 0 {
			keys, tries = e.layerTries(cs, a.proofs)
		}
		a.res.Stats.Stages = append(a.res.Stats.Stages,
			e.coneLayer("sync-preserving", layerSyncP, cs, keys, tries, a.proofs, &a.proofOrder, e.syncPWitness),
			e.coneLayer("reversal", layerReversal, cs, keys, tries, a.proofs, &a.proofOrder, e.reversalWitness))
		if e.ctx.Err() != nil {
			return e.ctx.Err()
		}
	}
	return nil
}

// ucg runs the Universal Causality Graphs on the candidates of the pairs
// of sites no layer proved, in batches of up to 64, and adds its funnel
// row; it returns the candidates, those it keeps marked ok.
func (a *analysis) ucg() ([]ucgItem, error) {
	e, cs := a.e, a.cs
	t0 := time.Now()
	var items []ucgItem
	for _, k := range cs.order {
		if a.proofs[k] != nil {
			continue
		}
		s := cs.bySite[k]
		for _, cd := range s.cands {
			items = append(items, ucgItem{cd: cd, site: s})
		}
	}
	var batch []*plan
	var batchIdx []int
	flush := func() {
		if len(batch) == 0 {
			return
		}
		for j, r := range e.runUCG(batch) {
			switch r {
			case ucgFeasible:
				items[batchIdx[j]].ok = true
			case ucgSkipped:
				items[batchIdx[j]].ok = true
				a.res.Stats.UCGSkipped++
			}
		}
		batch, batchIdx = batch[:0], batchIdx[:0]
	}
	for k := range items {
		if a.ctx.Err() != nil {
			return nil, a.ctx.Err()
		}
		var p *plan
		if items[k].cd.kind == 'r' {
			p = e.racePlan(items[k].cd, true)
			items[k].plan = p
		} else {
			p = e.atomicityPlan(items[k].cd, 0, true)
		}
		if p == nil {
			continue // the cone of one bug event holds another: infeasible
		}
		batch = append(batch, p)
		batchIdx = append(batchIdx, k)
		if len(batch) == 64 {
			flush()
		}
	}
	flush()
	ucgSites := [2]map[siteKey]bool{{}, {}}
	var ucgN [2]int64
	for _, it := range items {
		if it.ok {
			kind := 0
			if it.cd.kind == 'a' {
				kind = 1
			}
			ucgN[kind]++
			ucgSites[kind][it.cd.key] = true
		}
	}
	a.res.Stats.Stages = append(a.res.Stats.Stages, Stage{Name: "ucg", Races: ucgN[0], Atomicity: ucgN[1],
		RaceSites: len(ucgSites[0]), AtomicitySites: len(ucgSites[1]), Time: time.Since(t0)})
	return items, nil
}

// witnesses reports the races the sound layers proved, then searches a
// witness for each pair of sites the UCG kept, its first candidate that
// gets one, and adds the "sat" row. The proofs are dropped once
// reported.
func (a *analysis) witnesses(items []ucgItem) error {
	res := a.res
	t0 := time.Now()
	// An SHB-unordered pair is unordered by the run's own happens-before
	// too (SHB only adds orderings): those findings are observed, and
	// observedRaces need not ask.
	a.nSHB = 0
	for _, k := range a.proofOrder {
		switch a.proofs[k].layer {
		case layerGiven:
			continue // the caller's (analyzePrefix)
		case layerSHB:
			a.nSHB++
		}
		res.Findings = append(res.Findings, a.proofs[k].fd)
	}
	a.proofs, a.proofOrder = nil, nil
	done := make(map[siteKey]bool)
	var wit [2]int64
	for k := range items {
		it := &items[k]
		if !it.ok || done[it.cd.key] {
			continue
		}
		if a.ctx.Err() != nil {
			return a.ctx.Err()
		}
		w := a.e.witnessFor(it.cd, it.plan, res)
		it.plan = nil
		if w == nil {
			continue
		}
		done[it.cd.key] = true
		fd := Finding{Events: evInts(it.cd), Prefix: w.prefix, Stops: w.stops, Witness: w.window, Count: int(it.site.count)}
		if it.cd.kind == 'r' {
			fd.Kind = KindRace
			wit[0]++
		} else {
			fd.Kind = KindAtomicity
			wit[1]++
			fd.Predicted = !(it.cd.ev[0] < it.cd.ev[1] && it.cd.ev[1] < it.cd.ev[2])
		}
		res.Findings = append(res.Findings, fd)
	}
	res.Stats.Stages = append(res.Stats.Stages, Stage{Name: "sat", Races: wit[0], Atomicity: wit[1],
		RaceSites: int(wit[0]), AtomicitySites: int(wit[1]), Time: time.Since(t0)})
	return nil
}

// observed sets Predicted for the race findings not from the SHB layer
// (observedRaces) and inserts the "observed" row first among the layers'
// rows: the run itself shows those races.
func (a *analysis) observed() error {
	res := a.res
	t0 := time.Now()
	if err := a.e.observedRaces(res.Findings[a.nSHB:]); err != nil {
		return err
	}
	obs := Stage{Name: "observed", Time: time.Since(t0)}
	for _, f := range res.Findings {
		if f.Kind == KindRace && !f.Predicted {
			obs.Races += int64(f.Count)
			obs.RaceSites++
		}
	}
	at := slices.IndexFunc(res.Stats.Stages, func(s Stage) bool { return s.Name == "shb" })
	if at < 0 {
		at = len(res.Stats.Stages)
	}
	res.Stats.Stages = slices.Insert(res.Stats.Stages, at, obs)
	return nil
}

// joinSide waits for the layers after the races and adds their findings
// and rows, in the order they ran.
func (a *analysis) joinSide() error {
	a.waitSide()
	if a.side.err != nil {
		return a.side.err
	}
	a.res.Findings = append(a.res.Findings, a.side.findings...)
	a.res.Stats.Stages = append(a.res.Stats.Stages, a.side.stages...)
	a.side = sideResult{}
	return nil
}

// check re-checks every finding's witness with the independent checker,
// after the engine: what the checker needs is taken, the engine's state
// dropped and collected, and only then does the checker build its
// indices, so that the two never add up.
func (a *analysis) check() error {
	t0 := time.Now()
	if len(a.res.Findings) > 0 {
		loc, spans, relaxed := a.m.loc, a.m.spans(), a.e.relaxed
		a.e, a.c, a.m, a.cs, a.cls, a.proofs, a.proofOrder = nil, nil, nil, nil, nil, nil, nil
		a.waitSHB, a.waitSide = nil, nil
		collect(a.t)
		chk := witness.NewChecker(a.t, loc, spans)
		chk.Relax(relaxed.has)
		chk.ValueFree(a.o.valueFree(a.t))
		chk.SelectCases(a.o.selectCases(a.t))
		if err := checkAll(a.ctx, chk, a.res.Findings); err != nil {
			return err
		}
	}
	a.res.Stats.Check = time.Since(t0)
	return nil
}
