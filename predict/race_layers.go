// This file implements what the sound race layers share: they run before
// the UCG and the solver, each proving races with a witness it builds
// rather than searches for, cheapest first, and a pair of sites is proved
// by the first that can:
//
//  1. schedulable happens-before (race_shb.go; Mathur, Kini and
//     Viswanathan, OOPSLA 2018);
//  2. sync-preserving races (race_syncp.go; Mathur, Pavlogiannis and
//     Viswanathan, POPL 2021);
//  3. synchronisation-reversal races (race_reversal.go; Shi, Mathur and
//     Pavlogiannis, PLDI 2024).
//
// Here are the layers' order, the proof each records, the tries the cone
// layers (2 and 3) take from the access classes, closest first, and the
// finding a cut makes (cutWitness).
//
// Each layer's witness is a cut in observed order: each goroutine runs a prefix of its
// events. A Finding describes it without listing it (Prefix, Stops), so a
// witness costs a word per goroutine, and the checker's work follows the
// events the cut leaves out below the later access, which is why the
// layers prove the closest pair they can.

package predict

import (
	"slices"
	"time"
)

// Layers, in the order they run; a site pair is proved by the first.
const (
	layerSHB = iota
	layerSyncP
	layerReversal
	layerSAT
	// layerGiven marks a site pair that the SHB layer proved on a longer
	// trace than the one analysed (analyzePrefix): the later layers skip
	// it, and its finding is reported and checked by the caller.
	layerGiven
)

// proof is a race that a layer proved.
type proof struct {
	cd    cand
	layer int
	fd    Finding
}

// cutWitness returns the finding of race cd whose schedule is cut in
// observed order, then the two accesses. cut must be downward closed and
// hold exactly the events of each access's goroutine before it; ok is
// false if it does not.
func (e *engine) cutWitness(cd cand, cut []int32) (Finding, bool) {
	c := e.c
	a, b := cd.ev[0], cd.ev[1]
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	if cut[ga] != c.pos[a]-1 || cut[gb] != c.pos[b]-1 {
		return Finding{}, false
	}
	var stops []int
	for g := range cut {
		n := cut[g]
		if n > 0 && c.byG[g][n-1] >= b {
			return Finding{}, false // cannot happen: the cut lies before b
		}
		if int32(g) == ga || int32(g) == gb || int(n) >= len(c.byG[g]) {
			continue
		}
		if x := c.byG[g][n]; x < b {
			stops = append(stops, int(x))
		}
	}
	slices.Sort(stops)
	return Finding{Kind: KindRace, Events: []int{int(a), int(b)}, Prefix: int(b), Stops: stops,
		Witness: []int{int(a), int(b)}}, true
}

// layerTries gathers, for the site pairs that survived must-happen-before
// and that no layer has proved, up to MaxTries of their closest
// cone-unordered pairs each, closest first, for the layers that build
// witnesses from the cone: sync-preserving and reversal.
func (e *engine) layerTries(cs *candidates, proofs map[siteKey]*proof) ([]siteKey, map[siteKey][]cand) {
	tries := make(map[siteKey][]cand)
	for k, rc := range cs.racePairs {
		if k&stopEvery == 0 && e.ctx.Err() != nil {
			break
		}
		A, B := &cs.cl[rc[0]], &cs.cl[rc[1]]
		key := siteKey{kind: 'r', s: sitePair(A.site, B.site)}
		if proofs[key] != nil || cs.bySite[key] == nil {
			continue
		}
		tries[key] = append(tries[key], nearPairs(e.c, e.cone, A, B, key, e.opts.MaxTries)...)
	}
	keys := make([]siteKey, 0, len(tries))
	for _, k := range cs.order {
		if cds := tries[k]; cds != nil {
			keys = append(keys, k)
			slices.SortStableFunc(cds, func(x, y cand) int { return int((x.ev[1] - x.ev[0]) - (y.ev[1] - y.ev[0])) })
			tries[k] = cds[:min(len(cds), e.opts.MaxTries)]
		}
	}
	return keys, tries
}

// coneLayer runs one of the layers that build a witness from the cone
// (witness: syncPWitness or reversalWitness) over the tries of the site
// pairs not proved yet, and returns its funnel row: races are the pairs
// tried; sites, those proved.
func (e *engine) coneLayer(name string, layer int, cs *candidates, keys []siteKey, tries map[siteKey][]cand,
	proofs map[siteKey]*proof, order *[]siteKey, witness func(cand, []int32) (Finding, bool)) Stage {
	t0 := time.Now()
	cut := make([]int32, len(e.c.byG))
	var tried int64
	proved := 0
	for _, k := range keys {
		if proofs[k] != nil {
			continue
		}
		for _, cd := range tries[k] {
			if e.ctx.Err() != nil {
				break
			}
			tried++
			fd, ok := witness(cd, cut)
			if !ok {
				continue
			}
			fd.Count = int(cs.bySite[k].count)
			proofs[k] = &proof{cd: cd, layer: layer, fd: fd}
			*order = append(*order, k)
			proved++
			break
		}
	}
	return Stage{Name: name, Races: tried, RaceSites: proved, Time: time.Since(t0)}
}

// nearPairs returns, for classes A and B, up to 4×most of the pairs clk
// leaves unordered that lie closest together in the trace: for each b,
// the nearest a on either side.
func nearPairs(c *ctp, clk *clocks, A, B *aclass, key siteKey, most int) []cand {
	kA := make([]int32, len(A.evs))
	for i, a := range A.evs {
		kA[i] = clk.knows(A.g, c.pos[a]-1, B.g)
	}
	var out []cand
	lo, hi := 0, 0
	for _, b := range B.evs {
		kb := clk.knows(B.g, c.pos[b]-1, A.g)
		for lo < len(A.evs) && c.pos[A.evs[lo]] <= kb {
			lo++
		}
		for hi < len(A.evs) && kA[hi] < c.pos[b] {
			hi++
		}
		if hi <= lo {
			continue
		}
		k, _ := slices.BinarySearch(A.evs[lo:hi], b)
		for _, j := range [2]int{lo + k - 1, lo + k} {
			if j >= lo && j < hi {
				a := A.evs[j]
				out = append(out, cand{kind: 'r', ev: [3]int32{min(a, b), max(a, b), -1}, key: key})
			}
		}
	}
	if len(out) > 4*most {
		slices.SortStableFunc(out, func(x, y cand) int { return int((x.ev[1] - x.ev[0]) - (y.ev[1] - y.ev[0])) })
		out = out[:4*most]
	}
	return out
}
