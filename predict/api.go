// This file implements the public types of package predict: Options,
// Finding, Result and Stats (the funnel of the UCG paper's Table 1).

package predict

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// Kinds of finding: package report's typed kinds, named here for the
// layers that find them.
const (
	KindRace              = report.KindRace
	KindAtomicity         = report.KindAtomicity
	KindDeadlock          = report.KindDeadlock
	KindLeak              = report.KindLeak
	KindSendOnClosed      = report.KindSendOnClosed
	KindCloseOfClosed     = report.KindCloseOfClosed
	KindNegativeWaitGroup = report.KindNegativeWaitGroup
	KindWaitGroupReuse    = report.KindWaitGroupReuse
	KindUnlockOfUnlocked  = report.KindUnlockOfUnlocked
	KindNilDeref          = report.KindNilDeref
	KindIndexOutOfRange   = report.KindIndexOutOfRange
	KindNilMapWrite       = report.KindNilMapWrite
)

// Analyses selectable with Options.Analysis.
const (
	AnalysisSeer = "seer" // CTP, UCG, SAT witnesses (sound, predictive)
	AnalysisHB   = "hb"   // happens-before as ThreadSanitizer computes it
	AnalysisSHB  = "shb"  // schedulable happens-before (Mathur et al. 2018)
)

// Options configure Analyze. The zero value analyses every kind of
// finding (races, atomicity violations, deadlocks, misuse; predicted
// leaks need SelectLeak) with the seer analysis and default limits.
type Options struct {
	// Analysis selects the analysis: "seer" (the default), "hb" or "shb".
	// The baselines report every pair their relation leaves unordered,
	// without witnesses: hb is sound only for the first race of a trace,
	// shb for every race (soundness-of-predictive-analyses §6.4-6.5). They
	// exist to compare against; only "seer" proves what it reports.
	Analysis string

	// NoRaces, NoAtomicity and NoDeadlocks switch off one kind of
	// finding; NoMisuse, the misuse kinds (misuse.go).
	NoRaces, NoAtomicity, NoDeadlocks, NoMisuse bool

	// CriticalSectionsAsTransactions makes every critical section a
	// transaction for atomicity checking, in addition to the OpTxBegin ..
	// OpTxEnd regions of the trace (the convention of the UCG paper's §5
	// for Java's synchronized blocks).
	CriticalSectionsAsTransactions bool

	// ControlIrrelevant, if set, names plain reads whose value cannot
	// change which events their goroutine performs afterwards (static
	// analysis proves that; see package static). Such a read need not keep
	// its writer in a witness (RVPredict-style), provided that no write its
	// value reaches is observed by a relevant read: see Feeds.
	ControlIrrelevant func(t *trace.Trace, event int) bool

	// Feeds says which writes the value of a plain read reaches: the write
	// events of the read's goroutine, after it, that store a value computed
	// from it (package static's ReadFlow.Writes, matched to events). known
	// is false when that is not known. A read counts as irrelevant only if
	// ControlIrrelevant names it, Feeds knows its writes, and no write it
	// feeds is observed (in the recorded run) by a relevant read, relevance
	// being closed in the same way to a fixpoint; see relevance.go. Without
	// Feeds, ControlIrrelevant has no effect. CheckWitness must be given
	// the same ControlIrrelevant and Feeds.
	Feeds func(t *trace.Trace, read int) (writes []int, known bool)

	// SelectLeak, if set, reports whether static analysis proves that
	// the select in which event recv (a receive) was made is the only
	// place that ever receives from its channel, and that its other case
	// (a time.After channel, or a default) becomes ready with no
	// goroutine's help (package static's Program.SelectLeak). Only then
	// are predicted leaks after that select reported (leak_select.go).
	SelectLeak func(t *trace.Trace, recv int) bool

	// RecvValueFree, if set, reports whether static analysis proves that
	// the value of the plain receive whose operation event recv begins
	// decides nothing (package static's Program.RecvValueFree): the
	// receive may then take another send in a predicted schedule
	// (deadlock_partner.go). CheckWitness must be given the same.
	RecvValueFree func(t *trace.Trace, recv int) bool

	// SelectCases, if set, lists the cases of the blocking select in which
	// event sel was made other than the one sel's channel is of, each
	// with every place in the program that could complete it (package
	// static's Program.SelectCases); ok is false when they are not known.
	// A taken partner may then leave a goroutine waiting in a select
	// (deadlock_select.go). CheckWitness must be given the same.
	SelectCases func(t *trace.Trace, sel int) (others []witness.SelectCase, ok bool)

	// NilStore and NilUse, if both set, are the static half of a
	// predicted panic from an order violation (nilderef.go): NilStore
	// reports whether plain write event write stores nil into a pointer,
	// an interface, a slice or a map; NilUse how the value plain read
	// event read returns panics when nil, used by its goroutine right
	// after with no check between and nothing to recover the panic:
	// KindNilDeref (dereferenced), KindIndexOutOfRange (a slice indexed),
	// KindNilMapWrite (a map assigned an entry), or "" when not known (package static's Program.NilStore and Program.NilUse).
	NilStore func(t *trace.Trace, write int) bool
	NilUse   func(t *trace.Trace, read int) report.Kind

	// MaxTries bounds how many candidate event pairs (triples) are tried
	// per pair (triple) of source sites before giving up on it. Default 4.
	MaxTries int

	// MaxWindow bounds the number of events the SAT encoding of one
	// candidate may span after chopping. Default 4000.
	MaxWindow int

	// SolveTimeout bounds each solve of the witness search (the lazy
	// loop of solve_lazy.go, for one candidate's plan and window; a candidate
	// may be tried with two plans and widened windows), and the
	// analysis's context stops it too. A candidate the solver does not
	// decide in time is counted in Stats.SolverUnknown and not reported.
	// Default 2s.
	SolveTimeout time.Duration

	// NoChop builds UCGs and encodings on whole prefixes instead of the
	// suffixes after the last causality barrier (for testing Theorem 4).
	NoChop bool

	// HistoryBudget, if positive, bounds the bytes of the
	// must-happen-before pass's clock history (clock_rises.go), which every
	// layer after SHB reads and which is the one part of the analysis
	// whose memory does not follow the trace's size: when thousands of
	// goroutines all talk to all, each event raises tens of components
	// of its goroutine's clock. If the history outgrows the budget at
	// event n, the SHB layer's findings are still those of the whole
	// trace (it keeps no history), and everything else is found in the
	// trace's first n events (trace.Trace.Prefix), a run of the program
	// too; Stats.HistoryCut says where. The history costs about three
	// times the budget at its peak (the pass's log, then its index and
	// the cone's rises).
	HistoryBudget int64

	// SHBBudget, if positive, bounds the bytes of the clock bases the SHB
	// layer's passes hold: past it, the clocks of the synchronisation
	// addresses idle longest, and the deltas of the read-from snapshots
	// written longest ago, are written to a temporary file and read back
	// at their next use (clock_spill.go, clock_spill_snap.go). The
	// layer's findings are the same with or without it.
	SHBBudget int64

	// Sharing, if set, says how many analyses may hold memory under the
	// process's Go memory limit at once from now until this one ends,
	// this one included (seer check's packages checked side by side): the
	// choices that spend the room under the limit on running steps side
	// by side (analyze_beside.go) count only that share of the limit as
	// this analysis's. Nil: the limit is the analysis's alone.
	Sharing func() int

	// WhileWhole, if set, is run by Analyze on a goroutine of its own
	// once the pre-pass is done, beside the passes over the whole trace,
	// which on a large trace leave a core idle (analyze_whole.go). It may
	// read t's events, goroutines and stacks while it runs, but not its
	// values (parked meanwhile, Trace.ParkValues); it should return soon
	// once ctx is done. Analyze waits for it before it writes t's
	// tables (the values read back, a cut history's tail parked) and
	// before it returns. seer check walks the trace there for the
	// goroutines the run left blocked (ObservedBlockedContext) and each
	// test's events.
	WhileWhole func(ctx context.Context)

	// given, if set, holds the SHB layer's result on a longer trace
	// (analyzePrefix): Analyze does not run that layer, and the later
	// ones skip its pairs of sites.
	given *givenSHB
	// arena, if set, holds the must-happen-before history
	// (clock_rises_file.go); the Analyze call that made it frees it.
	arena *riseArena
	// coneArena, if set, holds the causal cone's history
	// (clock_rises_file.go), made and freed with arena.
	coneArena *riseArena
}

// givenSHB is the SHB layer's result on a trace of which Analyze is given
// a prefix: its race findings' pairs of source sites, and its stage.
type givenSHB struct {
	sites [][2]trace.Frame
	stage Stage
	// The must-happen-before history of the prefix, made by the longer
	// trace's pass, which judged the locks of observed by the whole
	// trace (ctp.go's observed locks): the prefix's CTP does too. Only
	// the history, not that pass's clocks: those hold the longer trace's
	// CTP, which would stay live beside the prefix's own at the peak.
	// It may still be being made (history_cut.go).
	mhb       *prefixIndex
	rfImplied bool
	observed  map[trace.ObjID]bool
}

func (o *Options) defaults() Options {
	d := *o
	if d.Analysis == "" {
		d.Analysis = AnalysisSeer
	}
	if d.MaxTries <= 0 {
		d.MaxTries = 4
	}
	if d.MaxWindow <= 0 {
		d.MaxWindow = 4000
	}
	if d.SolveTimeout <= 0 {
		d.SolveTimeout = 2 * time.Second
	}
	return d
}

// A Finding is one predicted (or observed) bug, deduplicated by source
// sites.
type Finding struct {
	// Kind is KindRace, KindAtomicity, KindDeadlock, KindLeak (observed,
	// from leak_observed.go, or predicted after a select, from leak_select.go,
	// or left waiting for ever while its test returns, leak_selectstuck.go) or a
	// misuse kind (misuse.go: KindSendOnClosed, KindCloseOfClosed,
	// KindNegativeWaitGroup, KindWaitGroupReuse, KindUnlockOfUnlocked).
	Kind report.Kind

	// Predicted is false when the bug happened in the recorded run as it
	// was: for a race, the two accesses are concurrent under the run's own
	// happens-before (locks included), so ThreadSanitizer would have seen
	// it; for an atomicity violation, the remote access did fall between
	// the two local ones. It is true when showing the bug needs a
	// different schedule, and always for a deadlock (a run that
	// deadlocked would not have recorded the acquires). A misuse is
	// observed when the run itself reached the failing operation in the
	// failing state (misuse.go).
	Predicted bool

	// Events are trace indices: the two racing accesses (in trace order),
	// the three accesses c, r, c' of an atomicity violation (c and c' in
	// one transaction of one goroutine, r from another), or a deadlock's
	// blocked acquires, one per goroutine of the cycle, in cycle order:
	// each requests a lock that the next one's goroutine holds (the last,
	// one that the first's holds). A predicted leak (leak_select.go): the
	// sender's send start, the select's receive and, for a timeout, the
	// time.After call's event; for one left waiting while its test returns
	// (leak_selectstuck.go, TestReturns set), the waiting goroutines' next
	// events, the victim's first.
	Events []int

	// WaitsFor says, for a blocking cycle of deadlock_cycles.go, whom
	// each of the cycle's blocked events waits for: WaitsFor[j] is the
	// index in Events of the event whose goroutine Events[j] waits for
	// (the lock's holder, the channel partner, the Done's goroutine).
	// Empty for the other findings.
	WaitsFor []int

	// Prefix, Stops and Witness give the schedule that shows the bug;
	// Schedule expands it. The schedule begins with every event of the
	// recorded run whose index is below Prefix and below its goroutine's
	// limit, in observed order; a goroutine's limit is the least index of
	// its events in Witness and Stops (none: no limit). Witness follows, in
	// its order. So Witness is the part of the run that the witness
	// reorders (the window after the last causality barrier) and the bug
	// events: a race's two accesses adjacent and last; an atomicity
	// violation's c' last, with c before r; for a deadlock, the schedule
	// stops every goroutine of the cycle just before its blocked acquire
	// (Witness is the schedule's last event, the prefix all the rest).
	// Stops names, for goroutines
	// with no event in Witness that stop before Prefix, the first event
	// they do not run. Each goroutine's events in the schedule are a prefix
	// of its program order. Prefix 0 means that Witness is the whole
	// schedule. All three are empty for the hb and shb baselines.
	Prefix  int
	Stops   []int
	Witness []int

	// Count is how many event pairs (triples) at the same source sites
	// the analysis found racing (violating): for a race that schedulable
	// happens-before proves, the pairs it leaves unordered; otherwise those
	// that survived the lockset and must-happen-before filters. One of them
	// is witnessed.
	Count int

	// Stuck lists, for a blocking claim whose waiting events include one
	// made in a select (deadlock_select.go), that event and the select's
	// other cases, for the report to say why none can proceed.
	Stuck []StuckSelect

	// TestReturns marks a blocking claim's leak flavour
	// (leak_selectstuck.go): Events wait for ever while their test's own
	// goroutine has ended or returned.
	TestReturns bool
}

// A StuckSelect is a select a goroutine waits in for ever: the event of
// the case it took in the run, and its other cases.
type StuckSelect struct {
	Event  int
	Others []witness.SelectCase
}

// Result is what Analyze returns.
type Result struct {
	Findings []Finding
	Stats    Stats
}

// Stats describe a run of Analyze: the trace, and the funnel of the UCG
// paper's Table 1 with the time spent in each stage.
type Stats struct {
	Analysis        string
	Events          int
	Goroutines      int
	Locations       int // memory locations accessed
	SharedLocations int // accessed by two goroutines and written

	// PrePass is the CTP, locations, relevance and the must-happen-before
	// clocks: the time from the start to the end of that pass, less the
	// SHB layer's when that runs first (traces of concurrentPassesBelow
	// events or more without a memory limit; under one it runs beside,
	// the pass pausing while memory is short: analyze_beside.go).
	// Below that, the SHB layer's passes and the access classes run beside
	// it (their stages time them), so stage times overlap and need not add
	// up to Total.
	PrePass time.Duration
	// Cone is the pass of the causal cone's clocks, which plans need: run
	// only if a candidate survives happens-before (or a blocking or
	// misuse closure needs it first, beside the race layers; then Cone is
	// the wait for it).
	Cone   time.Duration
	Stages []Stage
	Check  time.Duration // re-checking every witness (package witness)
	Total  time.Duration

	UCGSkipped    int // candidates whose window was too large for a UCG
	SolverUnknown int // candidates the solver could not decide in time

	// HistoryCut, if positive, is the number of events after which the
	// must-happen-before history outgrew Options.HistoryBudget: the SHB
	// layer's findings are the whole trace's, every other layer's those
	// of its first HistoryCut events. The funnel's rows are the prefix's,
	// but for SHB's.
	HistoryCut int
}

// A Stage is one step of the funnel. Candidates, Lockset and
// HappensBefore count event pairs (triples); HappensBefore only of the
// site pairs SHB did not prove. The layers that prove races (race_shb.go,
// race_syncp.go, race_reversal.go) follow, cheapest first: "observed" (race findings the run
// itself shows: its own happens-before leaves them unordered), "shb"
// (SHB-unordered event pairs, and the site pairs it proved),
// "sync-preserving" and "reversal" (pairs tried, site pairs proved), "ucg"
// (representative candidates the UCG kept) and "sat" (witnesses the
// solver found). Sites counts distinct pairs (triples) of source sites,
// the unit findings are reported in; for the layers, those each proved.
// The rows of the layers after the races come last, in the order they
// run ("deadlock", "deadlock-spd", "blocking", "leak", "misuse"), with counts of their
// own (layer_counts.go).
type Stage struct {
	Name                      string // "candidates", "lockset", "observed", "shb", "happens-before", "sync-preserving", "reversal", "ucg", "sat", "deadlock"
	Races, Atomicity          int64
	RaceSites, AtomicitySites int
	Time                      time.Duration

	// The "deadlock" row (deadlock_lockorder.go): Cycles counts the lock-order
	// graph's cycles, Deadlocks the patterns of acquires tried after the
	// gate-lock and must-happen-before filters, DeadlockSites the
	// deadlocks proved (one per pattern of sites). The "deadlock-spd" row
	// (deadlock_spd.go): Cycles counts the abstract patterns, Deadlocks
	// the patterns swept, DeadlockSites the deadlocks proved that the
	// "deadlock" row did not.
	Cycles, Deadlocks int64
	DeadlockSites     int

	// The "misuse" row (misuse.go): Misuse counts the candidates tried
	// after the must-happen-before filters, MisuseSites the findings (one
	// per pattern of sites and kind). MisuseSteps counts the WaitGroup
	// lowering's steps (closures, misuse.lower), and MisuseStopped the
	// WaitGroup candidates (a Done, or a Wait with an Add) that its
	// budget gave up on (misuseWork): neither proved
	// nor refuted, so a misuse there may be missed; MisuseStoppedAt is the
	// first one's event.
	Misuse          int64
	MisuseSites     int
	MisuseSteps     int64
	MisuseStopped   int64
	MisuseStoppedAt int

	// The "leak" row (leak_select.go): Leaks counts the receives of a
	// select, from a sender on an unbuffered channel, that
	// Options.SelectLeak proves the channel's only receive, and
	// LeakSites the leaks proved (one per pair of sites).
	Leaks     int64
	LeakSites int
	// LeakNoSource is set when the layer did not run: no
	// Options.SelectLeak (seer predict reads a trace without its source).
	LeakNoSource bool

	// The "nil" row (nilderef.go): NilReads counts the reads, of a
	// location another goroutine later stores nil into, that
	// Options.NilUse proves used so that nil panics and that were
	// tried; NilSites the panics proved (one per pair of sites).
	NilReads int64
	NilSites int
}

// Print writes the funnel as a table.
func (s *Stats) Print(w io.Writer) {
	fmt.Fprintf(w, "analysis %s: %d events, %d goroutines, %d locations (%d shared); pre-pass %v, causal cone %v\n",
		s.Analysis, s.Events, s.Goroutines, s.Locations, s.SharedLocations, s.PrePass.Round(time.Microsecond), s.Cone.Round(time.Microsecond))
	if s.HistoryCut > 0 {
		fmt.Fprintf(w, "the clock history outgrew its budget at event %d: shb's row is the whole trace's, the other rows are its first %d events'\n", s.HistoryCut, s.HistoryCut)
	}
	fmt.Fprintf(w, "%-15s %12s %8s %12s %8s %12s\n", "stage", "races", "sites", "atomicity", "sites", "time")
	for _, st := range s.Stages {
		if st.Name == "deadlock" {
			fmt.Fprintf(w, "%-15s %d lock-order cycles, %d patterns tried, %d proved; %v\n", st.Name, st.Cycles, st.Deadlocks, st.DeadlockSites, st.Time.Round(time.Microsecond))
			continue
		}
		if st.Name == stageSPD {
			fmt.Fprintf(w, "%-15s %d abstract lock-order patterns, %d swept, %d proved beyond the deadlock row's; %v\n", st.Name, st.Cycles, st.Deadlocks, st.DeadlockSites, st.Time.Round(time.Microsecond))
			continue
		}
		if st.Name == "misuse" {
			stopped := ""
			if st.MisuseSteps > 0 {
				stopped = fmt.Sprintf(", %d lowering steps", st.MisuseSteps)
			}
			if st.MisuseStopped > 0 {
				stopped += fmt.Sprintf(", %d WaitGroup candidates undecided (lowering budget)", st.MisuseStopped)
			}
			fmt.Fprintf(w, "%-15s %d channel, WaitGroup and unlock candidates tried, %d proved%s; %v\n", st.Name, st.Misuse, st.MisuseSites, stopped, st.Time.Round(time.Microsecond))
			continue
		}
		if st.Name == stageNil {
			fmt.Fprintf(w, "%-15s %d reads of a value another goroutine stores nil into tried, %d panics proved; %v\n", st.Name, st.NilReads, st.NilSites, st.Time.Round(time.Microsecond))
			continue
		}
		if st.Name == "leak" && st.LeakNoSource {
			fmt.Fprintf(w, "%-15s not judged: predicted leaks need the source (seer check loads it)\n", st.Name)
			continue
		}
		if st.Name == "leak" {
			fmt.Fprintf(w, "%-15s %d select receives proved their channel's only one, %d leaks proved; %v\n", st.Name, st.Leaks, st.LeakSites, st.Time.Round(time.Microsecond))
			continue
		}
		if st.Name == "blocking" {
			fmt.Fprintf(w, "%-15s %d lock-across-channel, Cond, WaitGroup and recursive-RLock patterns, %d closures, %d proved; %v\n", st.Name, st.Cycles, st.Deadlocks, st.DeadlockSites, st.Time.Round(time.Microsecond))
			continue
		}
		fmt.Fprintf(w, "%-15s %12d %8d %12d %8d %12v\n", st.Name, st.Races, st.RaceSites, st.Atomicity, st.AtomicitySites, st.Time.Round(time.Microsecond))
	}
	if s.UCGSkipped > 0 || s.SolverUnknown > 0 {
		fmt.Fprintf(w, "ucg skipped (window too large): %d; solver undecided (out of SolveTimeout, not reported): %d\n", s.UCGSkipped, s.SolverUnknown)
	}
	fmt.Fprintf(w, "witness check %v; total %v\n", s.Check.Round(time.Microsecond), s.Total.Round(time.Microsecond))
}

// Schedule returns the whole schedule that f's Prefix, Stops and Witness
// describe, as trace indices.
func (f *Finding) Schedule(t *trace.Trace) []int { return f.claim().Expand(t) }

// claim is f as the witness checker reads it.
func (f *Finding) claim() *witness.Schedule {
	kind := witness.Kind(f.Kind)
	if f.Kind == KindDeadlock && !f.Predicted {
		kind = witness.Leak // a deadlock the run itself showed (leak_observed.go)
	}
	if f.Kind == KindLeak && f.Predicted {
		kind = witness.SelectLeak // a leak after a select (leak_select.go)
		if f.TestReturns {
			kind = witness.StuckLeak // left waiting while the test returns (leak_selectstuck.go)
		}
	}
	return &witness.Schedule{Kind: kind, Events: f.Events, Prefix: f.Prefix, Stops: f.Stops, Witness: f.Witness}
}

// CheckWitness checks f's witness against t with the independent checker
// (package witness). opts must be the Options the analysis ran with
// (their ControlIrrelevant and Feeds decide which reads may see another
// writer). A nil error means the schedule is feasible for the program
// that recorded t and exhibits f.
func CheckWitness(t *trace.Trace, f *Finding, opts Options) error {
	_, err := CheckWitnesses(t, []*Finding{f}, opts)
	return err
}

// CheckWitnesses is CheckWitness for several findings of one trace: it
// builds the checker's indices of t (one replay of the run) once, and
// checks each finding's witness against them, in order. It returns the
// index in fs of the first finding rejected and why, -1 and nil when it
// accepts them all, or -1 and the error when no checker could be made
// (no finding's fault).
func CheckWitnesses(t *trace.Trace, fs []*Finding, opts Options) (int, error) {
	if len(fs) == 0 {
		return -1, nil
	}
	loc, spans := trace.GroupAccesses(t.Events)
	k := witness.NewChecker(t, loc, spans)
	relaxed, err := relaxedReads(context.Background(), t, loc, func(l int32) trace.Span { return spans[l] }, k.Shared, &opts)
	if err != nil {
		return -1, err
	}
	k.Relax(relaxed.has)
	k.ValueFree(opts.valueFree(t))
	k.SelectCases(opts.selectCases(t))
	for i, f := range fs {
		if err := k.Check(f.claim()); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// valueFree returns the checker's Checker.ValueFree for trace t: the
// receives whose value o.RecvValueFree proves decides nothing, or nil.
func (o *Options) valueFree(t *trace.Trace) func(recv int32) bool {
	if o.RecvValueFree == nil {
		return nil
	}
	f := o.RecvValueFree
	return func(recv int32) bool { return f(t, int(recv)) }
}
