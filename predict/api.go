// This file implements the public types of package predict: Options,
// Finding, Result and Stats (the funnel of the UCG paper's Table 1).

package predict

import (
	"fmt"
	"io"
	"time"

	"github.com/seer-tools/seer/trace"
)

// Kinds of finding.
const (
	KindRace      = "race"
	KindAtomicity = "atomicity"
)

// Analyses selectable with Options.Analysis.
const (
	AnalysisSeer = "seer" // CTP, UCG, SAT witnesses (sound, predictive)
	AnalysisHB   = "hb"   // happens-before as ThreadSanitizer computes it
	AnalysisSHB  = "shb"  // schedulable happens-before (Mathur et al. 2018)
)

// Options configure Analyze. The zero value analyses races and
// atomicity violations with the seer analysis and default limits.
type Options struct {
	// Analysis selects the analysis: "seer" (the default), "hb" or "shb".
	// The baselines report every pair their relation leaves unordered,
	// without witnesses: hb is sound only for the first race of a trace,
	// shb for every race (soundness-of-predictive-analyses §6.4-6.5). They
	// exist to compare against; only "seer" proves what it reports.
	Analysis string

	// NoRaces and NoAtomicity switch off one kind of finding.
	NoRaces, NoAtomicity bool

	// CriticalSectionsAsTransactions makes every critical section a
	// transaction for atomicity checking, in addition to the OpTxBegin ..
	// OpTxEnd regions of the trace (the convention of the UCG paper's §5
	// for Java's synchronized blocks).
	CriticalSectionsAsTransactions bool

	// ControlIrrelevant, if set, names plain reads whose value cannot
	// change which events their goroutine performs afterwards (static
	// analysis proves that; see package static). A witness need not keep
	// the writer of such a read (RVPredict-style). CheckWitness must be
	// given the same function.
	ControlIrrelevant func(t *trace.Trace, event int) bool

	// MaxTries bounds how many candidate event pairs (triples) are tried
	// per pair (triple) of source sites before giving up on it. Default 4.
	MaxTries int

	// MaxWindow bounds the number of events the SAT encoding of one
	// candidate may span after chopping. Default 4000.
	MaxWindow int

	// SolveTimeout bounds the solver time for one candidate. Default 2s.
	SolveTimeout time.Duration

	// NoChop builds UCGs and encodings on whole prefixes instead of the
	// suffixes after the last causality barrier (for testing Theorem 4).
	NoChop bool
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
	// Kind is "race" or "atomicity".
	Kind string

	// Predicted is false when the bug happened in the recorded run as it
	// was: for a race, the two accesses are concurrent under the run's own
	// happens-before (locks included), so ThreadSanitizer would have seen
	// it; for an atomicity violation, the remote access did fall between
	// the two local ones. It is true when showing the bug needs a
	// different schedule.
	Predicted bool

	// Events are trace indices: the two racing accesses (in trace order),
	// or the three accesses c, r, c' of an atomicity violation (c and c' in
	// one transaction of one goroutine, r from another).
	Events []int

	// Witness is the schedule that shows the bug: event indices, each
	// goroutine's a prefix of its program order, ending with the bug
	// events (a race's two accesses adjacent and last; an atomicity
	// violation's c' last, with c before r). Nil for the hb and shb
	// baselines.
	Witness []int

	// Count is how many event pairs (triples) at the same source sites
	// survived the lockset and must-happen-before filters; one of them is
	// witnessed.
	Count int
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

	PrePass time.Duration // CTP, locations, vector clocks
	Stages  []Stage
	Total   time.Duration

	UCGSkipped    int // candidates whose window was too large for a UCG
	SolverUnknown int // candidates the solver could not decide in time
}

// A Stage is one step of the funnel. Candidates, Lockset and
// HappensBefore count event pairs (triples); UCG and Witnessed count the
// representative candidates examined, since those stages work per
// candidate. Sites counts distinct pairs (triples) of source sites, the
// unit findings are reported in.
type Stage struct {
	Name                      string // "candidates", "lockset", "happens-before", "ucg", "witnessed"
	Races, Atomicity          int64
	RaceSites, AtomicitySites int
	Time                      time.Duration
}

// Print writes the funnel as a table.
func (s *Stats) Print(w io.Writer) {
	fmt.Fprintf(w, "analysis %s: %d events, %d goroutines, %d locations (%d shared); pre-pass %v\n",
		s.Analysis, s.Events, s.Goroutines, s.Locations, s.SharedLocations, s.PrePass.Round(time.Microsecond))
	fmt.Fprintf(w, "%-15s %12s %8s %12s %8s %12s\n", "stage", "races", "sites", "atomicity", "sites", "time")
	for _, st := range s.Stages {
		fmt.Fprintf(w, "%-15s %12d %8d %12d %8d %12v\n", st.Name, st.Races, st.RaceSites, st.Atomicity, st.AtomicitySites, st.Time.Round(time.Microsecond))
	}
	if s.UCGSkipped > 0 || s.SolverUnknown > 0 {
		fmt.Fprintf(w, "ucg skipped (window too large): %d; solver undecided: %d\n", s.UCGSkipped, s.SolverUnknown)
	}
	fmt.Fprintf(w, "total %v\n", s.Total.Round(time.Microsecond))
}
