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
// (TestLocksetGroupsSame).

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
