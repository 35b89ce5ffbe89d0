// This file implements the first sound layer: races that schedulable
// happens-before proves (Mathur, Kini and Viswanathan, "What happens-after
// the first race?", OOPSLA 2018, Theorem 1; soundness of predictive
// analyses §6.5).
//
// Contract: it reports only pairs of conflicting accesses that one
// vector-clock pass, with locks in observed order and read-from, leaves
// unordered, judged from the state just before the later access (every
// such pair is a predictable race), and of each pair of sites only the
// closest such pair of events. It builds the witness without a search:
// the SHB-downward closure of the two accesses in observed order
// (cutWitness, race_layers.go), then the two accesses: the closure holds
// every read's writer (so every read sees what it saw: a write between
// them in the run would have been the last writer instead), every
// acquire's releases, and for each lock at most one open section, the
// last. The table of latest accesses it checks each access against is
// race_shb_table.go; the check, which batches what an access knows so
// that its cost does not grow with the goroutines, race_shb_fold.go,
// and keeps the open groups of a crowded location in bags,
// race_shb_open.go.

package predict

import (
	"slices"
	"time"
)

// shbLayer proves every site pair that schedulable happens-before leaves
// unordered, with the closest such pair of each, and returns the stage's
// funnel row: races are the SHB-unordered pairs, each counted at its
// later access; sites, the pairs of sites proved. It runs two passes: one that finds
// the races as it goes, keeping no history, and one that keeps only the
// clocks that the chosen pairs' witnesses need.
func (e *engine) shbLayer(proofs map[siteKey]*proof, order *[]siteKey) (Stage, error) {
	t0 := time.Now()
	c, m := e.c, e.m
	f := newSHBFinds(c, m)
	mode := clockMode{locks: true, serial: true, rf: true, relaxed: e.relaxed, spill: e.opts.SHBBudget}
	mode.want, mode.visit = map[int32][]int32{}, f.visit
	if useChains {
		f.ch = newChainMap(c)
		mode.chains = f.ch
	}
	if _, err := newClocks(e.ctx, c, m, mode); err != nil {
		return Stage{}, err
	}
	f.sortKeys()
	bests, keys, total := f.bests, f.keys, f.total
	f = nil
	if len(keys) == 0 {
		// No pair to witness: the second pass would keep no clock.
		return Stage{Name: "shb", Races: total, Time: time.Since(t0)}, nil
	}
	// The second pass keeps the clocks before each chosen pair's accesses.
	want := make(map[int32][]int32)
	for _, k := range keys {
		for _, x := range bests[k].cd.ev[:2] {
			g := int32(c.ev[x].G)
			want[g] = append(want[g], c.pos[x]-1)
		}
	}
	for g, ps := range want {
		slices.Sort(ps)
		want[g] = slices.Compact(ps)
	}
	mode.want, mode.visit = want, nil
	if useChains {
		// The same chains again (the pass decides them alike), in a
		// map of its own for the history's translation.
		mode.chains = newChainMap(c)
	}
	shb, err := newClocks(e.ctx, c, m, mode)
	if err != nil {
		return Stage{}, err
	}
	cut := make([]int32, len(c.byG))
	for _, k := range keys {
		bt := bests[k]
		clear(cut)
		// In the serial mode a clock that knows an event knows all its
		// goroutine knew then: the join of the two clocks is closed.
		for _, x := range bt.cd.ev[:2] {
			g, p := int32(c.ev[x].G), c.pos[x]-1
			cut[g] = max(cut[g], p)
			shb.h.each(g, p, func(k, v int32) { cut[k] = max(cut[k], v) })
		}
		fd, ok := e.cutWitness(bt.cd, cut)
		if !ok {
			continue // left to the next layers
		}
		fd.Count = int(bt.count)
		proofs[k] = &proof{cd: bt.cd, layer: layerSHB, fd: fd}
		*order = append(*order, k)
	}
	return Stage{Name: "shb", Races: total, RaceSites: len(*order), Time: time.Since(t0)}, nil
}
