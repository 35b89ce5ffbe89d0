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
	groups := classGroups(cl, ids)
	start := len(races)
	// The groups by kind of access, so that a group is paired only with
	// those of the kinds it may conflict with: a location read by many
	// goroutines under different locksets and written by few has nearly
	// all its group pairs two reads (pond's busiest: bench/RESULTS.md,
	// "the lockset's groups paired by kind"). Which pairs are looked at
	// in which order changes nothing: the counts are sums, the sites a
	// set, and races is sorted below.
	var byKind [4][]int // ascending
	for x := range groups {
		k := accessKind(&cl[groups[x].ids[0]])
		byKind[k] = append(byKind[k], x)
	}
	for x := range groups {
		GX := &groups[x]
		X := &cl[GX.ids[0]]
		for _, k := range conflictingKinds[accessKind(X)] {
			ys := byKind[k]
			from, _ := slices.BinarySearch(ys, x)
			for _, y := range ys[from:] {
				locksetGroupPair(c, cs, cl, groups, x, y, noLockset, &races)
			}
		}
	}
	slices.SortFunc(races[start:], comparePairs) // as conflictPairs sorts
	return races
}

// accessKind numbers a class's kind of access: bit 0 a write, bit 1
// atomic.
func accessKind(a *aclass) int {
	k := 0
	if a.write {
		k |= 1
	}
	if a.atomic {
		k |= 2
	}
	return k
}

// conflictingKinds lists, by accessKind, the kinds that conflictShape
// may pair it with: one of the two writes, not both atomic.
var conflictingKinds = [4][]int{
	0: {1, 3},       // plain read: a write
	1: {0, 1, 2, 3}, // plain write: any
	2: {1},          // atomic read: plain write
	3: {0, 1},       // atomic write: plain read or write
}

// locksetGroupPair counts the funnel's first rows for groups x and y
// (x <= y) and appends their class pairs of different goroutines to races
// if they conflict and the lockset filter lets them through.
func locksetGroupPair(c *ctp, cs *candidates, cl []aclass, groups []classGroup, x, y int, noLockset bool, races *[][2]int32) {
	GX, GY := &groups[x], &groups[y]
	X, Y := &cl[GX.ids[0]], &cl[GY.ids[0]]
	if !conflictShape(X, Y) {
		return
	}
	n := groupPairCount(GX, GY, x == y)
	if n == 0 || !raceFunnel(c, cs, X, Y, n, noLockset) {
		return // every pair is of one goroutine, or the locks exclude them
	}
	for i, a := range GX.ids {
		bs := GY.ids
		if x == y {
			bs = bs[i+1:]
		}
		for _, b := range bs {
			if cl[a].g != cl[b].g {
				*races = append(*races, [2]int32{min(a, b), max(a, b)})
			}
		}
	}
}

// groupPairCount returns the number of pairs of accesses of different
// goroutines between the classes of groups gx and gy (the same group when
// same: each unordered pair of its classes once).
func groupPairCount(gx, gy *classGroup, same bool) int64 {
	if same {
		// (S² - Σ_g S_g²) / 2: the unordered pairs less those of one goroutine.
		var sq int64
		for _, s := range gx.byG {
			sq += s * s
		}
		return (gx.sum*gx.sum - sq) / 2
	}
	if len(gy.byG) < len(gx.byG) {
		gx, gy = gy, gx
	}
	var both int64
	for g, s := range gx.byG {
		both += s * gy.byG[g]
	}
	return gx.sum*gy.sum - both
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
	g := int32(c.ev[c1].G)
	n := G.sum - G.byG[g] // R.g == g is no candidate
	if n == 0 || !atomicityFunnel(c, cs, c1, c2, &cl[G.ids[0]], n) {
		return passing
	}
	for _, id := range G.ids {
		if cl[id].g != g {
			passing = append(passing, id)
		}
	}
	return passing
}
