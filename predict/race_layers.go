// This file implements the sound layers that run before the UCG and the
// solver, each proving races with a witness it builds rather than searches
// for, cheapest first:
//
//  1. Schedulable happens-before (Mathur, Kini and Viswanathan, "What
//     happens-after the first race?", OOPSLA 2018; soundness of predictive
//     analyses §6.5): one vector-clock pass with locks in observed order and
//     read-from. Every conflicting pair that SHB leaves unordered, judged
//     from the state just before each access, is a predictable race. Its
//     witness is the SHB-downward closure of the two accesses in observed
//     order, then the two accesses: the closure holds every read's writer
//     (so every read sees what it saw: a write between them in the run
//     would have been the last writer instead), every acquire's releases,
//     and for each lock at most one open section, the last.
//
//  2. Sync-preserving races (Mathur, Pavlogiannis and Viswanathan,
//     "Optimal prediction of synchronization-preserving races", POPL 2021):
//     witnesses that keep the observed order of critical sections but need
//     not hold everything that happened before. The witness is the smallest
//     set closed under the causal cone (program order, the fixed
//     synchronisation, read-from of the reads that matter) and the paper's
//     lock closure: if the set holds two acquires of one lock, it holds the
//     release of the earlier. The pair races when neither access is in the
//     set; the set in observed order, then the two accesses, is the
//     witness. The paper decides all pairs in Õ(N); seer decides it for the
//     closest pairs of each pair of access classes (Options.MaxTries of
//     them per pair of sites, in order of distance), from the cone's clocks.
//
// A set closed in this way is a cut: each goroutine runs a prefix of its
// events. A Finding describes it without listing it (Prefix, Stops), so a
// witness costs a word per goroutine, and the checker's work follows the
// events the cut leaves out below the later access, which is why the
// layers prove the closest pair they can.

package predict

import (
	"slices"
	"time"

	"github.com/seer-tools/seer/trace"
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

// shbLayer proves every site pair that schedulable happens-before leaves
// unordered, with the closest such pair of each, and returns the stage's
// funnel row: races are the SHB-unordered pairs, each counted at its
// later access; sites, the pairs of sites proved. It runs two passes: one that finds
// the races as it goes, keeping no history, and one that keeps only the
// clocks that the chosen pairs' witnesses need.
func (e *engine) shbLayer(proofs map[siteKey]*proof, order *[]siteKey) (Stage, error) {
	t0 := time.Now()
	c, m := e.c, e.m
	type best struct {
		cd    cand
		count int64
	}
	bests := make(map[siteKey]*best)
	var keys []siteKey
	var total int64
	tab := newSHBTable(c, m)
	visit := func(i int32, cur vclock, d []int32) {
		if !m.shared(i) {
			return
		}
		ev := &c.ev[i]
		g, l := int32(ev.G), m.loc[i]
		w, at := isWrite(ev.Op), ev.Op.IsAtomic()
		site := c.site(i)
		own := -1
		gs := tab.groupsOf(l)
		for k := range gs {
			gr := &gs[k]
			if gr.g == g {
				own = k
				continue
			}
			if !(w || gr.write) || at && !gr.plain {
				continue // no entry of the group conflicts with this access
			}
			var known int32
			if d != nil {
				known = d[gr.g]
			} else {
				known = cur.get(gr.g)
			}
			if gr.maxPos <= known {
				continue
			}
			ents := tab.entries(gr)
			for j := range ents {
				a := &ents[j]
				if a.pos <= known || !(w || a.write) || (at && a.atomic) {
					continue
				}
				if x := &c.ev[a.last]; !overlap(x.Addr, x.Size, ev.Addr, ev.Size) {
					continue
				}
				// The accesses of a that e's clock does not know race
				// with e: those after known.
				n := tab.after(a, known)
				total += n
				key := siteKey{kind: 'r', s: sitePair(c.site(a.last), site)}
				bt := bests[key]
				if bt == nil {
					bt = &best{cd: cand{kind: 'r', ev: [3]int32{a.last, i, -1}, key: key}}
					bests[key] = bt
					keys = append(keys, key)
				} else if i-a.last < bt.cd.ev[1]-bt.cd.ev[0] {
					bt.cd.ev = [3]int32{a.last, i, -1}
				}
				bt.count += n
			}
		}
		tab.record(l, g, own, i, c.pos[i], site, w, at)
		tab.retire(l, i)
	}
	mode := clockMode{locks: true, serial: true, rf: true, relaxed: e.relaxed}
	mode.want, mode.visit = map[int32][]int32{}, visit
	if _, err := newClocks(e.ctx, c, m, mode); err != nil {
		return Stage{}, err
	}
	tab = nil
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

// layerTries gathers, for the site pairs that survived must-happen-before
// and that no layer has proved, up to MaxTries of their closest
// cone-unordered pairs each, closest first, for the layers that build
// witnesses from the cone: sync-preserving and reversal.
func (e *engine) layerTries(cs *candidates, proofs map[siteKey]*proof) ([]siteKey, map[siteKey][]cand) {
	tries := make(map[siteKey][]cand)
	for k, rc := range cs.racePairs {
		if k&0xfff == 0 && e.ctx.Err() != nil {
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

// syncPWitness returns the sync-preserving witness of race cd, if there is
// one: its closure in observed order, then the two accesses.
func (e *engine) syncPWitness(lg map[trace.ObjID][]int32) func(cand, []int32) (Finding, bool) {
	return func(cd cand, cut []int32) (Finding, bool) {
		if !e.syncPreserving(cd, cut, lg) {
			return Finding{}, false
		}
		return e.cutWitness(cd, cut)
	}
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

// lockGoroutines returns, per lock kept as a lock, the goroutines with
// critical sections of it.
func (e *engine) lockGoroutines() map[trace.ObjID][]int32 {
	lg := make(map[trace.ObjID][]int32)
	for k := range e.c.cs {
		lg[k.l] = append(lg[k.l], k.g)
	}
	for _, gs := range lg {
		slices.Sort(gs)
	}
	return lg
}

// syncPreserving computes in cut the sync-preserving closure of race cd
// (Mathur, Pavlogiannis and Viswanathan, POPL 2021, §3): the causal cone
// of the events before each access, closed under "if two acquires of a
// lock are in the set, the earlier one's release is too" (shared sections
// of a read-write lock do not exclude each other). It reports whether
// neither access is in the closure, which is then a witness's cut.
func (e *engine) syncPreserving(cd cand, cut []int32, lg map[trace.ObjID][]int32) bool {
	c := e.c
	a, b := cd.ev[0], cd.ev[1]
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	clear(cut)
	e.coneInto(cut, ga, c.pos[a]-1)
	e.coneInto(cut, gb, c.pos[b]-1)
	for cut[ga] < c.pos[a] && cut[gb] < c.pos[b] {
		grew, ok := e.lockRound(cut, ga, gb, lg)
		if !ok {
			return false
		}
		if !grew {
			return true
		}
	}
	return false
}

// lockRound is one round of the sync-preserving closure's lock rule
// on cut: every section open in it (of goroutines other than ga and gb,
// -1 for none) that a later acquire in it excludes must be released in
// it, and its release's causal cone joins cut. It reports whether cut
// grew, and false ok when such a section is never released.
func (e *engine) lockRound(cut []int32, ga, gb int32, lg map[trace.ObjID][]int32) (grew, ok bool) {
	c := e.c
	for _, o := range e.openSections(cut, ga, gb) {
		if !c.laterAcquire(o.l, o.acq, o.s.shared, cut, lg[o.l]) {
			continue // the last section of its lock in the cut: may stay open
		}
		if o.s.rel == 0 {
			return grew, false // must be released, and never is
		}
		e.coneInto(cut, o.g, o.s.rel)
		grew = true
	}
	return grew, true
}

// laterAcquire reports whether cut holds an acquire of lock l after event
// i (in observed order) that excludes a section acquired at i (shared
// says whether that one is shared). gs are the goroutines with sections
// of l.
func (c *ctp) laterAcquire(l trace.ObjID, i int32, shared bool, cut []int32, gs []int32) bool {
	for _, h := range gs {
		list := c.cs[gl{h, l}]
		n, _ := slices.BinarySearchFunc(list, cut[h]+1, func(s csect, p int32) int { return int(s.acq - p) })
		for j := n - 1; j >= 0; j-- { // sections of h acquired in the cut, latest first
			x := c.at(h, list[j].acq)
			if x <= i {
				break
			}
			if !(shared && list[j].shared) {
				return true
			}
		}
	}
	return false
}
