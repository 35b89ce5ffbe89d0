// This file implements the lockset stage of candidateClasses for a
// location that many access classes share (issue 31: the cost at any
// number of goroutines). A class is one goroutine's accesses at one site
// with one lockset, so a counter that 20,000 goroutines increment under
// one mutex makes 40,000 classes at its location and 800 million pairs,
// every one of which the lockset filter drops: conflictPairs listed them
// all (13 GB, two minutes) before the filter looked at any.
//
// Classes that differ only by goroutine (one site, lockset, kind of
// access, address and size) form a group; whether two classes conflict
// apart from their goroutines, their pair of sites and the lockset
// filter's verdict are the group pair's. So the stage looks at pairs of
// groups, counts their class pairs of different goroutines with sums
// (Σ over goroutines), and lists class pairs only for a group pair that
// the filter lets through. The funnel's counts, sites and the list of
// race pairs are conflictPairs's and raceLockset's, in the same order
// (TestLocksetGroupsSame). The atomicity patterns' lockset stage goes by
// the same groups for the remote access of a pair of a transaction
// (atomicityGroup; TestAtomicityGroupsSame).

package predict

import "slices"

// groupClassesAbove is how many classes a location must have before its
// lockset stage goes by groups (a variable for tests).
var groupClassesAbove = 64

// classGroupKey is what the classes of a group share.
type classGroupKey struct {
	site, ls      int32
	write, atomic bool
	addr          uint64
	size          uint32
}

// locksetByGroups appends to races the pairs of classes among ids (one
// location's, ascending) that conflict and that the lockset filter lets
// through (all of them with noLockset), and counts the funnel's first two
// rows, as conflictPairs and raceLockset do pair by pair.
func locksetByGroups(c *ctp, cs *candidates, cl []aclass, ids []int32, noLockset bool, races [][2]int32) [][2]int32 {
	index := make(map[classGroupKey]int)
	var groups [][]int32
	for _, id := range ids {
		a := &cl[id]
		k := classGroupKey{site: a.site, ls: a.ls, write: a.write, atomic: a.atomic, addr: a.addr, size: a.size}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], id)
	}
	start := len(races)
	for x := range groups {
		X := &cl[groups[x][0]]
		for y := x; y < len(groups); y++ {
			Y := &cl[groups[y][0]]
			if !(X.write || Y.write) || X.atomic && Y.atomic || !overlap(X.addr, X.size, Y.addr, Y.size) {
				continue
			}
			n := groupPairCount(cl, groups[x], groups[y], x == y)
			if n == 0 {
				continue // every pair is of one goroutine
			}
			key := siteKey{kind: 'r', s: sitePair(X.site, Y.site)}
			cs.f.total[0] += n
			cs.f.site(0, 0, key)
			if !noLockset && c.lockConflict(X.ls, Y.ls) {
				continue
			}
			cs.f.lockset[0] += n
			cs.f.site(1, 0, key)
			for i, a := range groups[x] {
				bs := groups[y]
				if x == y {
					bs = bs[i+1:]
				}
				for _, b := range bs {
					if cl[a].g == cl[b].g {
						continue
					}
					races = append(races, [2]int32{min(a, b), max(a, b)})
				}
			}
		}
	}
	slices.SortFunc(races[start:], func(p, q [2]int32) int {
		if p[0] != q[0] {
			return int(p[0] - q[0])
		}
		return int(p[1] - q[1])
	})
	return races
}

// groupPairCount returns the number of pairs of accesses of different
// goroutines between the classes of groups gx and gy (the same group when
// same: each unordered pair of its classes once).
func groupPairCount(cl []aclass, gx, gy []int32, same bool) int64 {
	byG := make(map[int32]int64, len(gx))
	var sx int64
	for _, a := range gx {
		e := int64(len(cl[a].evs))
		sx += e
		byG[cl[a].g] += e
	}
	if same {
		// (S² - Σ_g S_g²) / 2: the unordered pairs less those of one goroutine.
		var sq int64
		for _, s := range byG {
			sq += s * s
		}
		return (sx*sx - sq) / 2
	}
	var sy, both int64
	for _, b := range gy {
		e := int64(len(cl[b].evs))
		sy += e
		both += byG[cl[b].g] * e
	}
	return sx*sy - both
}

// A classGroup is a group of one location's classes that differ only by
// goroutine, with the sums atomicityGroup counts with.
type classGroup struct {
	ids []int32         // ascending
	sum int64           // accesses of all its classes
	byG map[int32]int64 // accesses of its classes of each goroutine
}

// classGroups groups the classes ids (one location's, ascending).
func classGroups(cl []aclass, ids []int32) []classGroup {
	index := make(map[classGroupKey]int)
	var gs []classGroup
	for _, id := range ids {
		a := &cl[id]
		k := classGroupKey{site: a.site, ls: a.ls, write: a.write, atomic: a.atomic, addr: a.addr, size: a.size}
		i, ok := index[k]
		if !ok {
			i = len(gs)
			index[k] = i
			gs = append(gs, classGroup{byG: make(map[int32]int64)})
		}
		e := int64(len(a.evs))
		gs[i].ids = append(gs[i].ids, id)
		gs[i].sum += e
		gs[i].byG[a.g] += e
	}
	return gs
}

// atomicityGroup is atomicityLockset for every class of group G as the
// remote access R of the pair (c1, c2): it counts the funnel's rows as
// atomicityLockset does class by class, and appends to passing the
// classes the lockset filter lets through.
func atomicityGroup(c *ctp, cs *candidates, c1, c2 int32, cl []aclass, G *classGroup, passing []int32) []int32 {
	R := &cl[G.ids[0]]
	e1, e2 := &c.ev[c1], &c.ev[c2]
	g := int32(e1.G)
	n := G.sum - G.byG[g] // R.g == g is no candidate
	if n == 0 || !overlap(e1.Addr, e1.Size, R.addr, R.size) || !overlap(R.addr, R.size, e2.Addr, e2.Size) {
		return passing
	}
	if !unserializable(isWrite(e1.Op), R.write, isWrite(e2.Op)) {
		return passing
	}
	key := siteKey{kind: 'a', s: [3]int32{c.site(c1), R.site, c.site(c2)}}
	cs.f.total[1] += n
	cs.f.site(0, 1, key)
	if atomicityLocked(c, c1, c2, R.ls) {
		return passing
	}
	cs.f.lockset[1] += n
	cs.f.site(1, 1, key)
	for _, id := range G.ids {
		if cl[id].g != g {
			passing = append(passing, id)
		}
	}
	return passing
}
