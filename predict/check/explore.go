// This file implements seer check -explore (issue 28): after a run of the
// selected tests, run them up to N more times under schedules that the
// recording runtime steers, record and analyse every run, and report the
// union of the findings, each with the run it came from.
//
// # Steering
//
// The recorder only ever delays goroutines, at records of the user's code
// (trace.ExploreSchedule; runtime/recorder.c, "Steering"), so every run is
// one Go could have taken, and each wait is bounded. The strategies:
//
//   - pct: probabilistic concurrency testing (Burckhardt, Kothari,
//     Musuvathi, Nagarakatte, ASPLOS'10, section 3): random goroutine
//     priorities and d-1 random change points among the k steering points
//     of the run (k from the run before), so that a bug of depth d shows
//     in one run with probability at least 1/(n·k^(d-1)) under the
//     paper's model of a scheduler that runs only the highest-priority
//     enabled goroutine. The recorder approximates "enabled" by "waiting
//     at a steering point, or seen to make records".
//   - select: where the run before took a select case (GFuzz, Liu et al.,
//     ASPLOS'22, section 4: which message a select receives), the next
//     delays either the goroutine whose operation completed that case,
//     so that another case is ready first, or the select itself, so that
//     every case that can be ready is (Go then picks uniformly).
//   - partner: where several goroutines received from (or sent to) one
//     channel, or locked one mutex, the goroutine that won it most in the
//     last run waits before one of its wins no run has delayed yet (a
//     later one first: it keeps a piece of the work and another takes
//     the next; explore_partner.go), so that another wins.
//   - findings: a predicted race or deadlock that no run has shown yet is
//     the next run's target: the run replays its witness (replay.go) and
//     is analysed as any other; a run that then shows it observed
//     confirms it. A near miss of the run before (a close just after a
//     select, a critical section that came before a store to what it
//     read; explore_nearmiss.go) is a target too, aimed at by delays.
//
// Runs take the strategies in turn (a finding to aim at first; a select
// or partner strategy with nothing to steer gives its turn away). Each run
// counts what it covers: pairs of communicating operations (send and
// receive, close and receive), lock orders (a lock taken while another is
// held) and select outcomes, by source line. A run that adds neither a
// finding nor coverage adds nothing; after ExplorePatience such runs in a
// row exploring stops, and the summary says so.
//
// # Cost and soundness
//
// A run is recorded, analysed, planned from and dropped before the next:
// exploring costs about N runs and the memory of one. Every finding is
// the analysis's of the run it came from, with its witness re-checked
// against that run's trace, as any finding is; -replay replays it against
// that trace too.
//
// # Reproducing
//
// Run i's seed is derived from the exploration's seed (printed in the
// report) and i; the strategy of each run, its PCT priorities and change
// points and its choices of what to delay follow from the seed and the
// runs before, so -explore-seed gives the same steering again.

package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// Strategies lists the strategies Options.ExploreStrategies may name, in
// the order runs take them.
var Strategies = []report.Strategy{report.StrategyFindings, report.StrategyPCT, report.StrategySelect, report.StrategyPartner}

// ParseStrategies reads a comma-separated list of strategies ("" or "all":
// every one).
func ParseStrategies(s string) ([]report.Strategy, error) {
	if s == "" || s == "all" {
		return nil, nil
	}
	var out []report.Strategy
	for _, f := range strings.Split(s, ",") {
		st := report.Strategy(strings.TrimSpace(f))
		if !slices.Contains(Strategies, st) {
			names := make([]string, len(Strategies))
			for i, s := range Strategies {
				names[i] = string(s)
			}
			return nil, fmt.Errorf("no strategy %q (want a list of %s)", st, strings.Join(names, ", "))
		}
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out, nil
}

// Tunables of exploration.
var (
	// ExplorePatience is how many runs in a row may add nothing (no
	// finding, no coverage) before exploring stops.
	ExplorePatience = 5
	// ExploreDepth is PCT's bug depth d: d-1 change points a run.
	ExploreDepth = 3
	// ExploreDelay is how long a delayed goroutine waits.
	ExploreDelay = 50 * time.Millisecond
	// ExploreMaxDelays bounds the delays of one run.
	ExploreMaxDelays = 8
	// ExploreStepWait bounds one PCT wait; ExploreBudget all the waits
	// of a run.
	ExploreStepWait = 20 * time.Millisecond
	ExploreBudget   = 2 * time.Second
)

// A target is a predicted finding to aim the findings strategy at.
type target struct {
	kind  report.Kind
	key   string
	run   string
	sched *trace.ReplaySchedule
}

// explorer holds what exploring one run of tests has learnt.
type explorer struct {
	opts       Options
	strategies []report.Strategy // the steering ones, in turn
	findings   bool              // aim at findings too
	summary    report.Exploration

	keys      map[string]bool   // the keys of every distinct finding so far
	confirmed map[string]string // finding key -> the run that showed it observed
	cov       map[string]bool
	winners   map[string]map[uint64]bool // partner: contended operation -> paths that won it first
	tried     map[string]bool            // partner: the delays tried (explore_partner.go)
	near      []nearMiss                 // findings: near misses to aim at (explore_nearmiss.go)
	nearTries map[string]int             // findings: runs aimed at each near miss
	aimed     []nearMiss                 // findings: the near misses the last run aimed at
	afterNear int                        // runs of other strategies owed before the next near-miss run
	steered   map[string]int             // select: its line -> 1 + the runs that steered it
	targets   []target
	leaks     map[string]map[string]bool // test -> where its leaked goroutines were created

	// onRun reports the steered run i starting, with the distinct
	// findings so far (Progress.Run): findings only, as the report
	// counts them, not the goroutines steered runs left running (in
	// Test.Leaked, no finding); nil: not reported.
	onRun func(stage string, i, found int)

	// Planned from the last run.
	k       int
	selects []selectCase
	contest []contested
}

func newExplorer(opts Options, pkg, run string) *explorer {
	seed := opts.ExploreSeed
	if seed == 0 {
		seed = newSeed()
	}
	ex := &explorer{
		opts:      opts,
		keys:      map[string]bool{},
		confirmed: map[string]string{},
		leaks:     map[string]map[string]bool{},
		steered:   map[string]int{},
		cov:       map[string]bool{},
		winners:   map[string]map[uint64]bool{},
		tried:     map[string]bool{},
		nearTries: map[string]int{},
		summary:   report.Exploration{Package: pkg, Run: run, Seed: seed, Budget: opts.Explore, Runs: []report.ExploreRun{}},
	}
	strategies := opts.ExploreStrategies
	if len(strategies) == 0 {
		strategies = Strategies
	}
	for _, s := range Strategies {
		if !slices.Contains(strategies, s) {
			continue
		}
		if s == report.StrategyFindings {
			ex.findings = true
		} else {
			ex.strategies = append(ex.strategies, s)
		}
	}
	return ex
}

// newSeed is a seed for an exploration that was given none: never 0.
func newSeed() uint64 { return mix(uint64(time.Now().UnixNano())) }

// mix is splitmix64's finaliser (never 0).
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	x ^= x >> 31
	return max(x, 1)
}

// runSeed is run i's seed. The exploration's seed is mixed before i is
// added, so that neighbouring seeds (a benchmark's trials, a user's
// -explore-seed 1 then 2) share no run: mix(s+i) gave seed s+1's run i
// seed s's run i+1.
func (ex *explorer) runSeed(i int) uint64 { return mix(mix(ex.summary.Seed) + uint64(i)) }

// newRunRand is run i's source of choices.
func newRunRand(seed uint64, i int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(i))) }

// findingKey names a finding across runs: its kind, test and sites
// (file and line), as the engine names it within a run (predict's doc,
// "Findings"): which of the accesses on a line read or wrote is the
// run's pair, not the bug's (an n++ raced is a write and a read in one
// run, two writes in another).
func findingKey(f *report.Finding) string {
	sites := make([]string, len(f.Accesses))
	for i, a := range f.Accesses {
		sites[i] = fmt.Sprintf("%s:%d", a.File, a.Line)
	}
	sort.Strings(sites)
	return string(f.Kind) + "|" + f.Test + "|" + strings.Join(sites, "|")
}

// analyser analyses one run (Run's analyse).
type analyser func(rec *record.RecordResult) (predicted, observed []report.Finding, st predict.Stats, err error)

// explore runs the steered runs after the first run rec, whose findings
// are first (they get their origin), and returns the new findings. It
// drops rec.Trace once it has planned from it.
func (ex *explorer) explore(ctx context.Context, bin *record.Binary, ropts record.RecordOptions, rec *record.RecordResult, first []report.Finding, analyse analyser, progress func(string, int)) ([]report.Finding, error) {
	for i := range first {
		first[i].Origin = &report.Origin{Run: 0, Strategy: report.StrategyFirst, Seed: ex.summary.Seed, Runs: 1}
		ex.add(&first[i], rec.Trace)
	}
	ex.leaked(rec, nil, nil)
	ex.coverage(rec.Trace)
	ex.plan(rec.Trace)
	ex.k = max(ex.k, opsOf(rec.Trace))
	ex.summary.Found = append(ex.summary.Found, ex.distinct())
	// Each run is planned from, then dropped: the first's trace too
	// (the caller keeps rec's outcome and tests only).
	rec.Trace = nil
	var out []report.Finding
	defer func() {
		for _, fs := range [][]report.Finding{first, out} {
			for j := range fs {
				if why, ok := ex.confirmed[findingKey(&fs[j])]; ok {
					fs[j].Confirmed, fs[j].Replay = report.ConfirmedYes, why
				}
			}
		}
	}()
	// runCtx also ends when Options.StopExploring closes; stopped then
	// says so in the summary.
	runCtx := ctx
	if stop := ex.opts.StopExploring; stop != nil {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-stop:
				cancel()
			case <-runCtx.Done():
			}
		}()
	}
	stopped := func(ended int) bool {
		if ctx.Err() != nil || ex.opts.StopExploring == nil {
			return false
		}
		select {
		case <-ex.opts.StopExploring:
			ex.summary.Stopped = fmt.Sprintf("stopped after %d runs: cancelled", ended)
			return true
		default:
			return false
		}
	}
	idle := 0
	turn := 0
	for i := 1; i <= ex.opts.Explore; i++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if stopped(i - 1) {
			return out, nil
		}
		// The run before is garbage now: collect it before this one
		// converts, or the heap would hold two runs at the peak.
		debug.FreeOSMemory()
		seed := ex.runSeed(i)
		rng := newRunRand(seed, i)
		run := report.ExploreRun{Index: i, Seed: seed}
		o := ropts
		o.Progress = nil
		o.NoFile = true
		var aim *target
		switch {
		case ex.findings && len(ex.targets) > 0:
			aim = &ex.targets[0]
			ex.targets = ex.targets[1:]
			run.Strategy = report.StrategyFindings
			o.Run, o.Skip = aim.run, ""
			o.Replay = aim.sched
			o.Timeout = ReplayTimeout
			if aim.kind == report.KindDeadlock {
				o.Timeout = ReplayDeadlockWait // the replay is meant to hang
			}
		case ex.findings && len(ex.near) > 0 && (ex.afterNear == 0 || len(ex.strategies) == 0):
			// Near misses take every third run at most, so that
			// many of them leave the other strategies their turns.
			ex.afterNear = 3
			run.Strategy = report.StrategyFindings
			o.Explore = ex.nearSchedule(seed)
			run.Delays = len(o.Explore.Delays)
		case len(ex.strategies) == 0:
			ex.summary.Stopped = fmt.Sprintf("stopped after %d runs: no predicted finding left to aim at", i-1)
			return out, nil
		default:
			run.Strategy, o.Explore = ex.next(&turn, seed, rng)
			run.Delays = len(o.Explore.Delays)
		}
		ex.afterNear = max(ex.afterNear-1, 0)
		if os.Getenv("SEER_EXPLORE_DEBUG") != "" && o.Explore != nil {
			fmt.Fprintf(os.Stderr, "explore run %d %s: %+v\n", i, run.Strategy, *o.Explore)
		}
		stage := fmt.Sprintf("exploring (run %d of %d, %s)", i, ex.opts.Explore, run.Strategy)
		if ex.onRun != nil {
			ex.onRun(stage, i, len(ex.keys))
		} else {
			progress(stage, 0)
		}
		r, err := bin.Run(runCtx, o)
		if err != nil {
			if stopped(i - 1) {
				return out, nil
			}
			return out, err
		}
		cutByCost(r, ex.opts.prePassShare()) // check.go
		run.Outcome = r.Outcome.Result
		if r.Explore != nil {
			run.Delayed, run.Steps = r.Explore.Delayed, r.Explore.Steps
			if run.Strategy == report.StrategyPCT && r.Explore.Steps > 0 {
				ex.k = r.Explore.Steps
			}
		}
		predicted, observed, _, err := analyse(r)
		if err != nil {
			return out, err
		}
		origin := &report.Origin{Run: i, Strategy: run.Strategy, Seed: seed, Runs: i + 1}
		for k, fs := range [][]report.Finding{predicted, observed} {
			for j := range fs {
				f := &fs[j]
				key := findingKey(f)
				if aim != nil && key == aim.key && !f.Predicted {
					ex.confirmed[key] = fmt.Sprintf("the run showed it (explore run %d)", i)
				}
				if ex.keys[key] {
					continue
				}
				f.Origin = origin
				if k == 0 && ex.opts.Replay {
					progress("replaying", r.Events)
					if err := replayFinding(runCtx, bin, ropts, r.Trace, f); err != nil {
						if stopped(i - 1) {
							return out, nil // what the run found before f stays
						}
						return out, err
					}
				}
				ex.add(f, r.Trace)
				out = append(out, *f)
				run.New++
			}
		}
		delayed := map[uint64]bool{}
		if o.Explore != nil {
			for _, d := range o.Explore.Delays {
				delayed[d.Path] = true
			}
		}
		run.New += ex.leaked(r, origin, delayed)
		run.Coverage = ex.coverage(r.Trace)
		ex.plan(r.Trace)
		ex.summary.Runs = append(ex.summary.Runs, run)
		ex.summary.Found = append(ex.summary.Found, ex.distinct())
		r = nil
		if run.New > 0 || run.Coverage > 0 {
			idle = 0
		} else if idle++; idle >= ExplorePatience && i < ex.opts.Explore {
			ex.summary.Stopped = fmt.Sprintf("stopped after %d runs: %d runs in a row added no finding and no coverage", i, idle)
			break
		}
	}
	return out, nil
}

// distinct counts the distinct findings and leaks so far.
func (ex *explorer) distinct() int { return len(ex.keys) + len(ex.summary.Leaks) }

// leaked registers the goroutines rec left running, and returns how many
// are new; origin is nil for the first run. In a steered run, a
// goroutine the run delayed may still be waiting in its delay when its
// test ends, and one whose last act was a receive that completed was on
// its way out when the run ended (the steering moved the end of the
// test): neither is counted (a completed send is finishing in any run:
// leakedBut). A goroutine blocked in a channel operation for good never
// completes it.
func (ex *explorer) leaked(rec *record.RecordResult, origin *report.Origin, delayed map[uint64]bool) int {
	n := 0
	var skip func(trace.GoID) bool
	if origin != nil {
		t := rec.Trace
		paths := trace.GoPaths(t)
		last := make([]trace.Op, len(t.Goroutines))
		for i := range t.Events {
			if !t.Events[i].Op.IsMarker() {
				last[t.Events[i].G] = t.Events[i].Op
			}
		}
		skip = func(g trace.GoID) bool {
			return delayed[paths[g]] || last[g] == trace.OpRecv
		}
	}
	for test, sites := range leakedBut(rec, skip) {
		if ex.leaks[test] == nil {
			ex.leaks[test] = map[string]bool{}
		}
		for _, site := range sites {
			if ex.leaks[test][site] {
				continue
			}
			ex.leaks[test][site] = true
			if origin != nil {
				ex.summary.Leaks = append(ex.summary.Leaks, report.ExploreLeak{Test: test, Site: site, Origin: *origin})
				n++
			}
		}
	}
	return n
}

// addLeaks adds the leaks that only steered runs showed to tests.
func (ex *explorer) addLeaks(tests []report.Test) {
	for _, l := range ex.summary.Leaks {
		for i := range tests {
			if t := &tests[i]; t.Name == l.Test && t.Package == ex.summary.Package {
				t.Leaked = append(t.Leaked, l.Site)
				t.Errors = append(t.Errors, fmt.Sprintf("explore run %d (%s, seed %d) left a goroutine created at %s running when the test ended: it took %d runs",
					l.Origin.Run, l.Origin.Strategy, l.Origin.Seed, l.Site, l.Origin.Runs))
			}
		}
	}
}

// add registers f, found in t: a predicted race or deadlock nobody has
// confirmed is a target for the findings strategy, planned now, while t
// is at hand.
func (ex *explorer) add(f *report.Finding, t *trace.Trace) {
	key := findingKey(f)
	if ex.keys[key] {
		return
	}
	ex.keys[key] = true
	if !ex.findings || !f.Predicted || f.Confirmed != "" || (f.Kind != report.KindRace && f.Kind != report.KindDeadlock) {
		return
	}
	p, err := planReplay(t, f)
	if err != nil {
		return
	}
	ex.targets = append(ex.targets, target{kind: f.Kind, key: key, run: replayRun(f), sched: p.sched})
}

// schedule is the steering of a run by strategy s.
func (ex *explorer) schedule(s report.Strategy, seed uint64, rng *rand.Rand) *trace.ExploreSchedule {
	sc := &trace.ExploreSchedule{Seed: seed, StepWait: ExploreStepWait, Budget: ExploreBudget}
	switch s {
	case report.StrategyPCT:
		sc.PCT = true
		k := max(ex.k, 1)
		for range ExploreDepth - 1 {
			sc.Change = append(sc.Change, 1+rng.Uint64N(uint64(k)))
		}
		slices.Sort(sc.Change)
	case report.StrategySelect:
		sc.Delays = ex.selectDelays(rng)
	case report.StrategyPartner:
		sc.Delays = ex.partnerDelays(rng)
	}
	return sc
}

// next is the strategy and steering of the next steered run: the
// strategies take turns, and one with nothing to steer in the last run (a
// select strategy without selects, a partner strategy without contended
// operations) gives its turn to the next, rather than spend a run on no
// steering at all; if none has anything to steer, the turn's strategy
// runs as it is.
func (ex *explorer) next(turn *int, seed uint64, rng *rand.Rand) (report.Strategy, *trace.ExploreSchedule) {
	first := *turn
	for k := range ex.strategies {
		s := ex.strategies[(first+k)%len(ex.strategies)]
		if s == report.StrategySelect && len(ex.selects) == 0 || s == report.StrategyPartner && len(ex.contest) == 0 {
			continue
		}
		*turn = first + k + 1
		return s, ex.schedule(s, seed, rng)
	}
	*turn = first + 1
	s := ex.strategies[first%len(ex.strategies)]
	return s, ex.schedule(s, seed, rng)
}

// opsOf estimates PCT's k from a run that was not steered by PCT: the
// synchronisation operations of the goroutines of tests.
func opsOf(t *trace.Trace) int {
	n := 0
	for i := range t.Events {
		e := &t.Events[i]
		if g := t.Goroutine(e.G); g != nil && g.Test != "" && isOp(e) {
			n++
		}
	}
	return n
}

// A Steerer plans steered runs from recordings alone, with no analysis
// (seer record -explore): the strategies pct, select and partner, in
// turn, each run planned from the one before.
type Steerer struct {
	ex   *explorer
	i    int
	turn int
	idle int
}

// NewSteerer returns a Steerer with seed (0: a new one) and strategies
// (nil: every one but findings, which needs findings).
func NewSteerer(seed uint64, strategies []report.Strategy) *Steerer {
	ex := newExplorer(Options{ExploreSeed: seed, ExploreStrategies: strategies}, "", "")
	ex.findings = false // no analysis: nothing to aim at
	if len(ex.strategies) == 0 {
		ex.strategies = []report.Strategy{report.StrategyPCT, report.StrategySelect, report.StrategyPartner}
	}
	return &Steerer{ex: ex}
}

// Seed is the seed that gives the same steering again.
func (s *Steerer) Seed() uint64 { return s.ex.summary.Seed }

// Learn takes in the recording of the run last made (the first, or the
// one Next planned) and reports whether its coverage had anything new.
func (s *Steerer) Learn(t *trace.Trace, steps int) bool {
	n := s.ex.coverage(t)
	s.ex.plan(t)
	if steps > 0 {
		s.ex.k = steps
	} else if s.i == 0 {
		s.ex.k = opsOf(t)
	}
	if n > 0 || s.i == 0 {
		s.idle = 0
	} else {
		s.idle++
	}
	return n > 0
}

// Idle is how many runs in a row added no coverage.
func (s *Steerer) Idle() int { return s.idle }

// Next plans the next run: its index, strategy, seed and steering.
func (s *Steerer) Next() (int, report.Strategy, uint64, *trace.ExploreSchedule) {
	s.i++
	seed := s.ex.runSeed(s.i)
	st, sc := s.ex.next(&s.turn, seed, newRunRand(seed, s.i))
	return s.i, st, seed, sc
}
