// This file tests the baseline race analyses (race_baseline.go) against
// the way they were computed before they checked accesses during the
// pass: a pass that keeps every goroutine's whole clock history, then the
// sweep of the candidate classes (candidates.go's raceSweep) over it.

package predict

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

// baselineHistory is the baseline as it was: the relation's whole
// history, then a sweep of every conflicting pair of classes. It returns
// the pass's clocks, to judge pairs by.
func baselineHistory(ctx context.Context, c *ctp, m *memory, o *Options, res *Result) (*clocks, error) {
	start := time.Now()
	shb := o.Analysis == AnalysisSHB
	mode := clockMode{locks: true, serial: shb, rf: shb}
	if useChains {
		mode.chains = newChainMap(c) // clock_chain.go
	}
	clk, err := newClocks(ctx, c, m, mode)
	if err != nil {
		return nil, err
	}
	res.Stats.PrePass = time.Since(start)
	nr := *o
	nr.NoAtomicity = true
	cs, err := findCandidates(ctx, c, m, clk, &nr, true, nil)
	if err != nil {
		return nil, err
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
	return clk, nil
}

// baselineRun runs the baseline of the analysis o.Analysis on tr both
// ways, on one CTP.
func baselineRun(t *testing.T, tr *trace.Trace, o Options) (got, want *Result, clk *clocks, c *ctp) {
	t.Helper()
	a := &analysis{ctx: context.Background(), o: o.defaults(), t: tr, start: time.Now()}
	a.res = &Result{}
	a.prePass()
	got, want = &Result{}, &Result{}
	if err := baseline(a.ctx, a.c, a.m, &a.o, got); err != nil {
		t.Fatal(err)
	}
	clk, err := baselineHistory(a.ctx, a.c, a.m, &a.o, want)
	if err != nil {
		t.Fatal(err)
	}
	return got, want, clk, a.c
}

// historyBaseline runs the history's baseline of analysis an on tr: the
// reference that computes the relation's races apart from the SHB
// layer's table.
func historyBaseline(t *testing.T, tr *trace.Trace, an string) *Result {
	t.Helper()
	o := Options{Analysis: an}
	a := &analysis{ctx: context.Background(), o: o.defaults(), t: tr, start: time.Now()}
	a.res = &Result{}
	a.prePass()
	if _, err := baselineHistory(a.ctx, a.c, a.m, &a.o, a.res); err != nil {
		t.Fatal(err)
	}
	return a.res
}

// historySites maps each race finding's pair of sites to its count.
func historySites(c *ctp, fs []Finding) map[[3]int32]int {
	out := map[[3]int32]int{}
	for _, f := range fs {
		out[sitePair(c.site(int32(f.Events[0])), c.site(int32(f.Events[1])))] += f.Count
	}
	return out
}

// The baselines find the same pairs of sites, with the same counts of
// unordered pairs of accesses, and the same funnel rows as the history
// and sweep did, with and without chains, spilling clocks before every
// event or not (clock_spill.go); each pair of events they report
// is one the relation leaves unordered (by the history's clocks).
func TestBaselineLikeHistory(t *testing.T) {
	traces := randomTraces(41, 150, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(4), sigs: r.Intn(3),
			ops: 2 + r.Intn(10), atomics: r.Intn(3) == 0, cut: 0.01}
	}, true)
	for seed := int64(1); seed <= 3; seed++ {
		traces = append(traces, synth(synthParams{goroutines: 6, locks: 2, vars: 8, events: 3000, racy: 0.05, seed: seed}))
	}
	defer func(u bool) { useChains = u }(useChains)
	sites := 0
	for _, v := range [][2]bool{{false, false}, {true, false}, {false, true}} {
		chains, spill := v[0], v[1]
		useChains = chains
		o := Options{}
		if spill {
			var restore func()
			o.SHBBudget, restore = tinySHBBudget() // clock_spill_test.go
			defer restore()
		}
		for _, an := range []string{AnalysisHB, AnalysisSHB} {
			o.Analysis = an
			for k, tr := range traces {
				name := fmt.Sprintf("%s chains=%v spill=%v trace %d", an, chains, spill, k)
				got, want, clk, c := baselineRun(t, tr, o)
				gs, ws := historySites(c, got.Findings), historySites(c, want.Findings)
				if !maps.Equal(gs, ws) {
					t.Fatalf("%s: sites and counts %v, the history's sweep %v", name, gs, ws)
				}
				sites += len(gs)
				// The history's sweep had a candidates row first.
				if !slices.EqualFunc(got.Stats.Stages, want.Stats.Stages[1:], func(a, b Stage) bool {
					return a.Name == b.Name && a.Races == b.Races && a.RaceSites == b.RaceSites
				}) {
					t.Fatalf("%s: stages %+v, the history's sweep %+v", name, got.Stats.Stages, want.Stats.Stages)
				}
				for _, f := range got.Findings {
					x, y := int32(f.Events[0]), int32(f.Events[1])
					gx, gy := int32(c.ev[x].G), int32(c.ev[y].G)
					if x >= y || gx == gy || clk.knows(gy, c.pos[y]-1, gx) >= c.pos[x] {
						t.Fatalf("%s: reported pair %d, %d is ordered", name, x, y)
					}
				}
			}
		}
	}
	if sites == 0 {
		t.Fatal("no races: the test says little")
	}
}
