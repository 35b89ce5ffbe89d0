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
// Contract: it reports every pair of sites its relation leaves unordered,
// with no witness and no check, to compare against; Analyze never mixes
// its findings with seer's.

package predict

import (
	"context"
	"time"
)

func baseline(ctx context.Context, c *ctp, m *memory, o *Options, res *Result) error {
	start := time.Now()
	shb := o.Analysis == AnalysisSHB
	mode := clockMode{locks: true, serial: shb, rf: shb}
	if useChains {
		mode.chains = newChainMap(c) // clock_chain.go
	}
	clk, err := newClocks(ctx, c, m, mode)
	if err != nil {
		return err
	}
	res.Stats.PrePass = time.Since(start)
	nr := *o
	nr.NoAtomicity = true
	cs, err := findCandidates(ctx, c, m, clk, &nr, true, nil)
	if err != nil {
		return err
	}
	f := &cs.f
	res.Stats.Stages = []Stage{
		{Name: "candidates", Races: f.total[0], RaceSites: len(f.sites[0][0]), Time: cs.times[0] + cs.times[1]},
		{Name: "happens-before", Races: f.mhb[0], RaceSites: len(f.sites[2][0]), Time: cs.times[2]},
	}
	for _, k := range cs.order {
		s := cs.bySite[k]
		if len(s.cands) == 0 {
			continue
		}
		cd := s.cands[0]
		res.Findings = append(res.Findings, Finding{Kind: KindRace, Events: evInts(cd), Count: int(s.count)})
	}
	sortFindings(res.Findings)
	return nil
}
