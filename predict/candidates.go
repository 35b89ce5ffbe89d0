// This file implements candidate bugs and the cheap filters of the funnel
// (UCG paper §3.1 and §5, Table 1): conflicting access pairs and
// three-access atomicity patterns, then the lockset filter, then
// must-happen-before. Accesses are grouped into classes (same location,
// goroutine, site, kind, range and lockset) so that pairs are counted by
// arithmetic and two-pointer sweeps instead of being enumerated; only a
// few representatives per pair of source sites go on to the UCG and the
// solver.

package predict

import (
	"context"
	"slices"
	"time"

	"github.com/seer-tools/seer/internal/bigslice"
	"github.com/seer-tools/seer/trace"
)

// aclass is a class of accesses.
type aclass struct {
	loc, g, site int32
	write        bool
	atomic       bool
	addr         uint64
	size         uint32
	ls           int32
	evs          []int32 // in program order
}

type classKey struct {
	loc, g, site, ls int32
	op               trace.Op
	addr             uint64
	size             uint32
}

// cand is a candidate: a race (ev[0], ev[1] in trace order) or an
// atomicity violation (ev = c, r, c').
type cand struct {
	kind byte // 'r' or 'a'
	ev   [3]int32
	key  siteKey
}

// siteKey identifies a finding: the kind and the source sites.
type siteKey struct {
	kind byte
	s    [3]int32
}

// siteCands gathers what the filters found for one site key.
type siteCands struct {
	key   siteKey
	count int64 // event pairs (triples) past lockset and must-happen-before
	cands []cand
}

// funnelCounts are the event-pair (triple) counts of the first stages.
type funnelCounts struct {
	total, lockset, mhb [2]int64 // [0] races, [1] atomicity
	sites               [3][2]map[siteKey]bool
}

type candidates struct {
	// cl are the access classes; racePairs the pairs of classes that
	// conflict and pass the lockset filter (the sound layers sweep them
	// again with their own relations).
	cl        []aclass
	racePairs [][2]int32
	atoms     []atomItem // the atomicity triples past lockset, until sweep

	bySite map[siteKey]*siteCands
	order  []siteKey // first-seen order, for determinism
	f      funnelCounts
	times  [3]time.Duration // candidates, lockset, must-happen-before
}

func (cs *candidates) add(key siteKey, n int64, reps []cand, max int) {
	s := cs.bySite[key]
	if s == nil {
		s = &siteCands{key: key}
		cs.bySite[key] = s
		cs.order = append(cs.order, key)
	}
	s.count += n
	for _, r := range reps {
		if len(s.cands) >= max {
			break
		}
		s.cands = append(s.cands, r)
	}
}

func (f *funnelCounts) site(stage, kind int, k siteKey) {
	if f.sites[stage][kind] == nil {
		f.sites[stage][kind] = map[siteKey]bool{}
	}
	f.sites[stage][kind][k] = true
}

// lockConflict reports whether locksets a and b share a lock held
// exclusively by at least one side.
func (c *ctp) lockConflict(a, b int32) bool {
	if a == 0 || b == 0 {
		return false
	}
	for _, x := range c.locksets[a] {
		for _, y := range c.locksets[b] {
			if x.l == y.l && !(x.shared && y.shared) {
				return true
			}
		}
	}
	return false
}

func overlap(a1 uint64, s1 uint32, a2 uint64, s2 uint32) bool {
	return a1 < a2+uint64(s2) && a2 < a1+uint64(s1)
}

// unserializable reports whether the three-access pattern local c, remote
// r, local c' is one of the five unserializable ones (UCG §3.1): all but
// R-R-R, R-R-W and W-R-R.
func unserializable(c, r, c2 bool) bool {
	if !r { // remote read: only W-R-W
		return c && c2
	}
	return true // remote write: R-W-R, R-W-W, W-W-R, W-W-W
}

// findCandidates builds access classes and runs the cheap filters: the
// lockset filter (unless noLockset: the baselines order locks by clk
// instead) and the ordering clk (must-happen-before for seer). Race
// classes whose pair of sites proved says is proved already (by a sound
// layer, race_layers.go) skip the ordering filter; proved may be nil.
func findCandidates(ctx context.Context, c *ctp, m *memory, mhb *clocks, opts *Options, noLockset bool, proved func(siteKey) bool) (*candidates, error) {
	cs, err := candidateClasses(ctx, c, m, opts, noLockset)
	if err != nil {
		return nil, err
	}
	return cs, cs.sweep(ctx, c, mhb, opts, proved)
}

// candidateClasses builds the access classes and runs the lockset filter
// (unless noLockset), the part of findCandidates that needs no clocks:
// Analyze runs it while the vector-clock passes replay the trace. The
// survivors are left for sweep.
func candidateClasses(ctx context.Context, c *ctp, m *memory, opts *Options, noLockset bool) (*candidates, error) {
	start := time.Now()
	cs := &candidates{bySite: make(map[siteKey]*siteCands)}
	cl, byLoc := accessClasses(c, m)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	locs := make([]int32, 0, len(byLoc))
	for l := range byLoc {
		locs = append(locs, l)
	}
	slices.Sort(locs)
	cs.times[0] = time.Since(start)
	start = time.Now()
	// Lockset: enumerate conflicting class pairs (triples) and keep those
	// whose locks do not exclude each other.
	var races [][2]int32
	var atoms []atomItem
	if !opts.NoRaces {
		var pairs [][2]int32
		for _, l := range locs {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if ids := byLoc[l]; len(ids) > groupClassesAbove {
				races = locksetByGroups(c, cs, cl, ids, noLockset, races) // candidates_groups.go
				continue
			}
			pairs = conflictPairs(pairs[:0], cl, byLoc[l])
			for _, p := range pairs {
				if raceLockset(c, cs, &cl[p[0]], &cl[p[1]], noLockset) {
					races = append(races, p)
				}
			}
		}
	}
	if !opts.NoAtomicity && !noLockset {
		var err error
		if atoms, err = atomicity(ctx, c, m, cs, cl, byLoc, opts); err != nil {
			return nil, err
		}
	}
	cs.times[1] = time.Since(start)
	cs.cl, cs.racePairs, cs.atoms = cl, races, atoms
	return cs, nil
}

// sweep runs the ordering filter clk (must-happen-before for seer) over
// the pairs (triples) that candidateClasses let through, skipping the
// race classes whose pair of sites proved says is proved already. It
// reads most of the history: the pages it reads back from the arena
// (opts.arena, clock_rises_file.go) go back to the kernel when the
// process nears its memory budget (arena_resident.go), rather than stay
// resident beside the heap until it is done.
func (cs *candidates) sweep(ctx context.Context, c *ctp, mhb *clocks, opts *Options, proved func(siteKey) bool) error {
	start := time.Now()
	cl, races, atoms := cs.cl, cs.racePairs, cs.atoms
	cs.atoms = nil
	drops := dropPacer{a: opts.arena, asked: start}
	for k, rc := range races {
		if k&stopEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		drops.step(k)
		if proved != nil && proved(siteKey{kind: 'r', s: sitePair(cl[rc[0]].site, cl[rc[1]].site)}) {
			continue
		}
		raceSweep(c, mhb, cs, &cl[rc[0]], &cl[rc[1]], opts.MaxTries)
	}
	for k, a := range atoms {
		if k&stopEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		drops.step(k)
		atomicitySweep(c, mhb, cs, a.c1, a.c2, &cl[a.cls], opts.MaxTries)
	}
	cs.times[2] = time.Since(start)
	return nil
}

// accessClasses groups the accesses to shared locations into classes:
// those of one location, goroutine, site, lockset, operation, address and
// size. Classes are numbered in the order of their first access, and
// byLoc lists each location's classes in that order. The accesses are
// first sorted by location (a counting sort, stable in trace order), and
// each location's classes are found among its own: a trace that touches
// hundreds of thousands of heap objects makes as many classes, and one
// table of them all cost a hash of the whole key per access, most of
// what the classes and the lockset filter took on a channel stress test.
func accessClasses(c *ctp, m *memory) ([]aclass, map[int32][]int32) {
	nl := len(m.locs)
	start, byL := sharedByLocation(c, m)
	// Each location's classes, numbered by location for now; first[i]
	// is 1 + the class first accessed at event i, or 0.
	type local struct {
		k     classKey
		first int32 // the class's first access
		n     int32 // its accesses
	}
	// Held in chunks: grown as one slice, its copies wrote about five
	// times its size to fresh pages (bigslice.Chunks).
	var ls bigslice.Chunks[local]
	first := make([]int32, len(c.ev))
	of := make([]int32, len(byL)) // per access in byL: its class in ls
	var at map[classKey]int32     // a location's classes, once they are many
	const scanUpTo = 16           // classes of a location found by a scan
	for l := 0; l < nl; l++ {
		lo := ls.Len()
		clear(at)
		for j := start[l]; j < start[l+1]; j++ {
			i := byL[j]
			e := &c.ev[i]
			k := classKey{loc: int32(l), g: int32(e.G), site: c.site(i), ls: c.lsOf(i), op: e.Op, addr: e.Addr, size: e.Size}
			id := int32(-1)
			if ls.Len()-lo <= scanUpTo {
				for x := lo; x < ls.Len(); x++ {
					if ls.At(x).k == k {
						id = int32(x)
						break
					}
				}
			} else if x, ok := at[k]; ok {
				id = x
			}
			if id < 0 {
				id = int32(ls.Len())
				ls.Append(local{k: k, first: i})
				first[i] = id + 1
				if n := ls.Len() - lo; n == scanUpTo+1 {
					if at == nil {
						at = make(map[classKey]int32)
					}
					for x := lo; x < ls.Len(); x++ {
						at[ls.At(x).k] = int32(x)
					}
				} else if n > scanUpTo+1 {
					at[k] = id
				}
			}
			ls.At(int(id)).n++
			of[j] = id
		}
	}
	// Number the classes in the order of their first access.
	num := make([]int32, ls.Len())
	cl := make([]aclass, 0, ls.Len())
	for i := range first {
		if x := first[i] - 1; x >= 0 {
			num[x] = int32(len(cl))
			k := &ls.At(int(x)).k
			cl = append(cl, aclass{loc: k.loc, g: k.g, site: k.site, write: isWrite(k.op), atomic: k.op.IsAtomic(), addr: k.addr, size: k.size, ls: k.ls})
		}
	}
	first = nil
	// Each class's accesses, in trace order (byL is, within a location),
	// in one array: a class's list is its slice of it.
	off := make([]int32, len(cl)+1)
	for x := range ls.Len() {
		off[num[x]+1] = ls.At(x).n
	}
	for id := range cl {
		off[id+1] += off[id]
	}
	evs := make([]int32, len(byL))
	fill := slices.Clone(off[:len(cl)])
	for j, i := range byL {
		id := num[of[j]]
		evs[fill[id]] = i
		fill[id]++
	}
	byLoc := make(map[int32][]int32)
	for id := range cl {
		cl[id].evs = evs[off[id]:off[id+1]:off[id+1]]
		byLoc[cl[id].loc] = append(byLoc[cl[id].loc], int32(id))
	}
	return cl, byLoc
}

// sharedByLocation returns the accesses to shared locations sorted by
// location, stable in trace order (a counting sort): location l's are
// byL[start[l]:start[l+1]].
func sharedByLocation(c *ctp, m *memory) (start, byL []int32) {
	nl := len(m.locs)
	start = sharedStarts(c, m)
	byL = make([]int32, start[nl])
	next := slices.Clone(start[:nl])
	for i := range c.ev {
		if m.shared(int32(i)) {
			l := m.loc[i]
			byL[next[l]] = int32(i)
			next[l]++
		}
	}
	return start, byL
}

// sharedStarts returns where each location's shared accesses start in
// a list of them by location (sharedByLocation's start).
func sharedStarts(c *ctp, m *memory) []int32 {
	nl := len(m.locs)
	start := make([]int32, nl+1)
	for i := range c.ev {
		if m.shared(int32(i)) {
			start[m.loc[i]+1]++
		}
	}
	for l := 0; l < nl; l++ {
		start[l+1] += start[l]
	}
	return start
}

// atomItem is a pair of local accesses and a class of remote ones that
// passed the lockset filter.
type atomItem struct{ c1, c2, cls int32 }

func sitePair(a, b int32) [3]int32 {
	if b < a {
		a, b = b, a
	}
	return [3]int32{a, b, -1}
}

// conflictPairs appends to out the pairs of classes among ids (one
// location's, ascending) that conflict: of different goroutines, one of
// them a write, not both atomic, overlapping. They come in the order of a
// loop over every pair (x before y in ids, by x and then y), but only
// pairs with a write are looked at: a hot location read by thousands of
// goroutines makes millions of pairs of reads (on stresschan 25.0M of
// its 25.7M pairs of classes, on the race suite 12.3M of 17.2M).
func conflictPairs(out [][2]int32, cl []aclass, ids []int32) [][2]int32 {
	start := len(out)
	for x, a := range ids {
		A := &cl[a]
		if !A.write {
			continue
		}
		for y, b := range ids {
			B := &cl[b]
			if y == x || B.write && y < x {
				continue // itself, or a pair of writes met from the first
			}
			if !conflict(A, B) {
				continue
			}
			if y < x {
				out = append(out, [2]int32{b, a})
			} else {
				out = append(out, [2]int32{a, b})
			}
		}
	}
	// ids ascend, so the order of the pairs of ids is that of the pairs
	// of their positions.
	slices.SortFunc(out[start:], comparePairs)
	return out
}

// comparePairs orders pairs of ids by their first id, then their second.
func comparePairs(p, q [2]int32) int {
	if p[0] != q[0] {
		return int(p[0] - q[0])
	}
	return int(p[1] - q[1])
}

// conflict reports whether two classes' accesses conflict: of different
// goroutines, one of them a write, not both atomic, overlapping.
func conflict(A, B *aclass) bool {
	return A.g != B.g && conflictShape(A, B)
}

// conflictShape is conflict but for the goroutines: one a write, not both
// atomic, overlapping.
func conflictShape(A, B *aclass) bool {
	return (A.write || B.write) && !(A.atomic && B.atomic) && overlap(A.addr, A.size, B.addr, B.size)
}

// raceLockset counts the conflicting pairs between two classes and
// reports whether the lockset filter lets them through.
func raceLockset(c *ctp, cs *candidates, A, B *aclass, noLockset bool) bool {
	return conflict(A, B) && raceFunnel(c, cs, A, B, int64(len(A.evs))*int64(len(B.evs)), noLockset)
}

// raceFunnel is raceLockset past the conflict check, for n pairs of
// accesses of classes like A and B (two classes, or two groups of them:
// candidates_groups.go).
func raceFunnel(c *ctp, cs *candidates, A, B *aclass, n int64, noLockset bool) bool {
	key := siteKey{kind: 'r', s: sitePair(A.site, B.site)}
	cs.f.total[0] += n
	cs.f.site(0, 0, key)
	if !noLockset && c.lockConflict(A.ls, B.ls) {
		return false
	}
	cs.f.lockset[0] += n
	cs.f.site(1, 0, key)
	return true
}

// raceSweep counts the pairs of two classes that must-happen-before
// leaves unordered, and keeps representatives.
func raceSweep(c *ctp, mhb *clocks, cs *candidates, A, B *aclass, maxTries int) {
	key := siteKey{kind: 'r', s: sitePair(A.site, B.site)}
	// Two-pointer sweep: for each b, the a's unordered with it form a
	// contiguous range [lo, hi) of A, and both ends only move forward.
	// A class's events are in order, so each clock is read through a
	// cursor (clock_rises.go) rather than searched at every event.
	kA := make([]int32, len(A.evs))
	if A.g == B.g {
		for i, a := range A.evs {
			kA[i] = mhb.knows(A.g, c.pos[a]-1, B.g)
		}
	} else {
		ca := mhb.h.cursor(A.g, B.g)
		for i, a := range A.evs {
			kA[i] = ca.valueAt(c.pos[a] - 1)
		}
	}
	cb := mhb.h.cursor(B.g, A.g)
	var count int64
	var reps []cand
	lo, hi := 0, 0
	for _, b := range B.evs {
		var kb int32
		if A.g == B.g {
			kb = mhb.knows(B.g, c.pos[b]-1, A.g)
		} else {
			kb = cb.valueAt(c.pos[b] - 1)
		}
		for lo < len(A.evs) && c.pos[A.evs[lo]] <= kb {
			lo++
		}
		for hi < len(A.evs) && kA[hi] < c.pos[b] {
			hi++
		}
		if hi > lo {
			count += int64(hi - lo)
			if len(reps) < maxTries {
				a := A.evs[hi-1]
				x, y := a, b
				if y < x {
					x, y = y, x
				}
				reps = append(reps, cand{kind: 'r', ev: [3]int32{x, y, -1}, key: key})
			}
		}
	}
	if count == 0 {
		return
	}
	cs.f.mhb[0] += count
	cs.f.site(2, 0, key)
	cs.add(key, count, reps, maxTries)
}

// atomicity enumerates three-access patterns: consecutive accesses c, c'
// to one location inside a transaction, and remote accesses r between.
func atomicity(ctx context.Context, c *ctp, m *memory, cs *candidates, cl []aclass, byLoc map[int32][]int32, opts *Options) ([]atomItem, error) {
	var items []atomItem
	txs := append([]txn(nil), c.tx...)
	if opts.CriticalSectionsAsTransactions {
		keys := make([]gl, 0, len(c.cs))
		for k := range c.cs {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b gl) int {
			if a.g != b.g {
				return int(a.g - b.g)
			}
			return int(a.l) - int(b.l)
		})
		for _, k := range keys {
			if c.nestedRead[k.l] {
				continue // no transactions (ctp.nestedRead)
			}
			for _, s := range c.cs[k] {
				end := s.rel
				if end == 0 {
					end = int32(len(c.byG[k.g]))
				}
				txs = append(txs, txn{g: k.g, begin: s.acq, end: end, lock: k.l})
			}
		}
	}
	var guards map[int32][]trace.ObjID
	if opts.CriticalSectionsAsTransactions {
		guards = lockGuards(c, m)
	}
	seen := make(map[[2]int32]bool)
	groups := make(map[int32][]classGroup) // crowded locations' (candidates_groups.go)
	var passing []int32
	for ti, tx := range txs {
		if ti&0xff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The pairs are consecutive accesses to one variable: the latest
		// earlier access in the transaction that overlaps. A location can
		// hold several variables (a write of a whole struct joins its
		// fields into one), so each keeps its accesses by byte range.
		last := make(map[int32][]int32)
		for p := tx.begin; p <= tx.end; p++ {
			if p&stopEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err() // a section can span a whole test
			}
			i := c.at(tx.g, p)
			if !m.shared(i) {
				continue
			}
			l := m.loc[i]
			if tx.lock != 0 && !sectionGuards(guards[l], tx.lock) {
				continue
			}
			e := &c.ev[i]
			prev, same := int32(-1), -1
			for k, j := range last[l] {
				f := &c.ev[j]
				if overlap(f.Addr, f.Size, e.Addr, e.Size) && j > prev {
					prev = j
				}
				if f.Addr == e.Addr && f.Size == e.Size {
					same = k
				}
			}
			if same >= 0 {
				last[l][same] = i
			} else {
				last[l] = append(last[l], i)
			}
			if prev < 0 || seen[[2]int32{prev, i}] {
				continue
			}
			seen[[2]int32{prev, i}] = true
			if ids := byLoc[l]; len(ids) > groupClassesAbove {
				gs, ok := groups[l]
				if !ok {
					gs = classGroups(cl, ids)
					groups[l] = gs
				}
				passing = passing[:0]
				for k := range gs {
					passing = atomicityGroup(c, cs, prev, i, cl, &gs[k], passing)
				}
				slices.Sort(passing) // byLoc's order, as below
				for _, id := range passing {
					items = append(items, atomItem{prev, i, id})
				}
				continue
			}
			for _, id := range byLoc[l] {
				if atomicityLockset(c, cs, prev, i, &cl[id]) {
					items = append(items, atomItem{prev, i, id})
				}
			}
		}
	}
	return items, nil
}

// lockGuards returns, per shared location, the locks held at every access
// to it once a second goroutine has touched it (Eraser's candidate
// lockset, Savage et al., TOCS 1997, without its initialisation states):
// the locks that guard it. A location with no entry has no guard.
func lockGuards(c *ctp, m *memory) map[int32][]trace.ObjID {
	type st struct {
		g0     trace.GoID
		shared bool
		locks  []trace.ObjID
	}
	per := make(map[int32]*st)
	for i := range c.ev {
		if !m.shared(int32(i)) {
			continue
		}
		l, e := m.loc[i], &c.ev[i]
		s := per[l]
		if s == nil {
			per[l] = &st{g0: e.G}
			continue
		}
		if !s.shared {
			if e.G == s.g0 {
				continue // still the first goroutine's, before it is shared
			}
			s.shared = true
			for _, h := range c.locksets[c.lsOf(int32(i))] {
				s.locks = append(s.locks, h.l)
			}
			continue
		}
		held := c.locksets[c.lsOf(int32(i))]
		s.locks = slices.DeleteFunc(s.locks, func(x trace.ObjID) bool {
			return !slices.ContainsFunc(held, func(h heldLock) bool { return h.l == x })
		})
	}
	out := make(map[int32][]trace.ObjID)
	for l, s := range per {
		if len(s.locks) > 0 {
			out[l] = s.locks
		}
	}
	return out
}

// sectionGuards reports whether a critical section of lock is a
// transaction for a location whose guards are given: unless another lock
// guards the location and this one does not. A lock held across work
// that another lock protects (syscall.ForkLock, held across a fork,
// around the updates of syscall.forking, which forkingLock guards) is not
// meant to make that work atomic, and interleavings there are intended.
func sectionGuards(guards []trace.ObjID, lock trace.ObjID) bool {
	return len(guards) == 0 || slices.Contains(guards, lock)
}

// atomicityLockset counts the triples (c1, r, c2) for r in class R and
// reports whether the lockset filter lets them through: a lock held from
// c1 to c2 excludes remote accesses that hold it.
func atomicityLockset(c *ctp, cs *candidates, c1, c2 int32, R *aclass) bool {
	return R.g != int32(c.ev[c1].G) && atomicityFunnel(c, cs, c1, c2, R, int64(len(R.evs)))
}

// atomicityFunnel is atomicityLockset but for R's goroutine, for n triples
// whose remote access has R's site, kind, lockset and bytes (a class, or a
// group of them: candidates_groups.go).
func atomicityFunnel(c *ctp, cs *candidates, c1, c2 int32, R *aclass, n int64) bool {
	e1, e2 := &c.ev[c1], &c.ev[c2]
	if !overlap(e1.Addr, e1.Size, R.addr, R.size) || !overlap(R.addr, R.size, e2.Addr, e2.Size) {
		return false
	}
	if !unserializable(isWrite(e1.Op), R.write, isWrite(e2.Op)) {
		return false
	}
	key := siteKey{kind: 'a', s: [3]int32{c.site(c1), R.site, c.site(c2)}}
	cs.f.total[1] += n
	cs.f.site(0, 1, key)
	if atomicityLocked(c, c1, c2, R.ls) {
		return false
	}
	cs.f.lockset[1] += n
	cs.f.site(1, 1, key)
	return true
}

// atomicityLocked reports whether a lock that c1's goroutine holds from
// before c1 to c2 excludes a remote access with lockset ls.
func atomicityLocked(c *ctp, c1, c2, ls int32) bool {
	g := int32(c.ev[c1].G)
	for _, h := range c.locksets[c.lsOf(c2)] {
		s, ok := c.section(g, h.l, c.pos[c2])
		if !ok || s.acq > c.pos[c1] {
			continue
		}
		for _, y := range c.locksets[ls] {
			if y.l == h.l && !(y.shared && h.shared) {
				return true
			}
		}
	}
	return false
}

// atomicitySweep counts the triples that must-happen-before allows and
// keeps representatives.
func atomicitySweep(c *ctp, mhb *clocks, cs *candidates, c1, c2 int32, R *aclass, maxTries int) {
	g := int32(c.ev[c1].G)
	key := siteKey{kind: 'a', s: [3]int32{c.site(c1), R.site, c.site(c2)}}
	// r must not happen before c, and c' must not happen before r.
	kc := mhb.knows(g, c.pos[c1], R.g)
	lo, hi := 0, len(R.evs)
	for lo < hi { // first r with pos > kc
		mid := (lo + hi) / 2
		if c.pos[R.evs[mid]] <= kc {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	first := lo
	lo, hi = first, len(R.evs)
	for lo < hi { // first r that knows c'
		mid := (lo + hi) / 2
		if mhb.knows(R.g, c.pos[R.evs[mid]]-1, g) < c.pos[c2] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	count := int64(lo - first)
	if count <= 0 {
		return
	}
	cs.f.mhb[1] += count
	cs.f.site(2, 1, key)
	var reps []cand
	for k := first; k < lo && len(reps) < maxTries; k++ {
		reps = append(reps, cand{kind: 'a', ev: [3]int32{c1, R.evs[k], c2}, key: key})
	}
	cs.add(key, count, reps, maxTries)
}
