// This file implements the two baseline race analyses that seer's funnel
// is compared against (soundness-of-predictive-analyses §6.4-6.5):
// happens-before as ThreadSanitizer computes it (program order, go/join,
// every synchronisation including locks in observed order), and Mathur,
// Kini and Viswanathan's schedulable happens-before (OOPSLA 2018), which
// adds read-from so that a race whose second access is only reachable
// through an earlier race is not reported. A pair is reported when the
// relation leaves it unordered, judged from the state just before each
// access. Neither produces witnesses; HB is sound only for the first race
// of a trace, SHB for all. Both report races only.
//
// Both run as one vector-clock pass that checks each access as it goes
// against the table of latest accesses of the SHB layer (race_shb_table.go,
// race_shb_fold.go) and keeps no history: a pass that kept every
// goroutine's clock history for a sweep afterwards outgrew -maxmem many
// times over on a trace of tens of thousands of goroutines (issue 31).
// The table finds every pair of sites the relation leaves unordered and
// counts every unordered pair of accesses, as the sweep did
// (TestBaselineLikeHistory); of each pair of sites it reports the closest
// unordered pair of events. There is no candidates row (the conflicting
// pairs before any ordering): counting them enumerated every conflicting
// pair of access classes of a location, and one location of pond's trace
// (54K goroutines) has 627,473 classes.
//
// Contract: it reports every pair of sites its relation leaves unordered,
// with no witness and no check, to compare against; Analyze never mixes
// its findings with seer's.

package predict

import (
	"context"
	"time"
)

// baseline runs the baseline analysis o.Analysis (AnalysisHB or
// AnalysisSHB) on c, adding its races and its one funnel row to res.
func baseline(ctx context.Context, c *ctp, m *memory, o *Options, res *Result) error {
	start := time.Now()
	shb := o.Analysis == AnalysisSHB
	f := newSHBFinds(c, m)
	// An empty want keeps no clock history; visit checks each access.
	mode := clockMode{locks: true, serial: shb, rf: shb, spill: o.SHBBudget, want: map[int32][]int32{}, visit: f.visit}
	if useChains {
		f.ch = newChainMap(c) // clock_chain.go
		mode.chains = f.ch
	}
	if _, err := newClocks(ctx, c, m, mode); err != nil {
		return err
	}
	f.sortKeys()
	res.Stats.Stages = []Stage{{Name: "happens-before", Races: f.total, RaceSites: len(f.keys), Time: time.Since(start)}}
	for _, k := range f.keys {
		bt := f.bests[k]
		res.Findings = append(res.Findings, Finding{Kind: KindRace, Events: evInts(bt.cd), Count: int(bt.count)})
	}
	sortFindings(res.Findings)
	return nil
}
