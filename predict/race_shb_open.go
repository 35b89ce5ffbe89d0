// This file implements the SHB layer's open bags: where a location has
// many nodes, the open groups of other goroutines (groups whose goroutine
// will access the location again) leave the location's top run for a bag
// per set of word masks, which an access passes over as a whole unless
// it may conflict with the bag's masks.
//
// The batches and closed bags (race_shb_fold.go) keep the closed groups
// few, but an open group must stay where its goroutine's next access
// finds it, so a pool of long-lived workers that all touch the pool's
// fields between tasks (panjf2000/ants: a thousand workers, each adding
// atomically to the running count, taking a spin lock by CAS and reading
// the pool's settings) left a thousand open groups at the top of each of
// the pool's locations, and every access looked at each of them, though
// it could conflict with none (atomics against atomics, reads against
// reads): on ants's tests, 9.6 billion nodes looked at for 11.6 million
// accesses, most of the layer's time. An access looks at an open group
// only to find its own, or to scan it when it may conflict: a table from
// location and goroutine to the group's place finds the own group, which
// goes back to the top after the check (looked up only when the access
// did not find it at the top; the check passes over it in its bag), and
// a bag whose masks cannot
// conflict with the access holds nothing the access must scan (the masks
// of a group cover every entry of it, as shbMasks says). A bag whose
// groups an access knew all of, up to their latest entries, is guarded by
// that access as a batch is (the transitivity of FastTrack's epochs,
// Flanagan and Freund, PLDI 2009, §3, as race_shb_fold.go uses it): a
// later access that knows the guard passes over the bag, which the
// accesses of the pool's lock-protected fields, each ordered after the
// last, do. The check of the groups that may conflict is the one
// race_shb_fold.go makes of an open group at the top, so the pairs
// found, their closest pairs and counts are the same (the differential
// test, race_shb_fold_test.go, compares with the check of every group).

package predict

// shbOpenAt is the number of nodes at a location's top from which an
// access moves open groups of other goroutines there into open bags, and
// shbOpenIdle the number of accesses of other goroutines that must have
// passed over such a group at the top since its own goroutine's latest
// access (shbGroup.idle) before it moves (variables for the tests, which
// compare bagging always and never, at once and once idle). Passing over
// a group costs a look at its masks; bagging it, a table insert, and a
// delete when its goroutine comes back (unbag). A group is bagged once
// it has cost a few passes, rent then buy (the ski-rental rule, Karlin,
// Manasse, Rudolph and Sleator, "Competitive snoopy caching",
// Algorithmica 1988): a goroutine that is about to come back stays at the
// top, one that has gone quiet leaves it. From a top of 32 (and no idle
// count), most of the nodes pond's accesses looked at were open groups of
// tasks they could not conflict with, at tops of fewer than 32 nodes
// (bench/RESULTS.md, "pond: open groups bagged once idle").
var (
	shbOpenAt         = 8
	shbOpenIdle uint8 = 4
)

// shbOpenBag holds open groups of one location with the same masks.
type shbOpenBag struct {
	masks  shbMasks
	groups []shbGroup
	// A guard, if guardG >= 0: event guardPos of goroutine guardG knows
	// every entry of every group in the bag (its groups' maxPos), as a
	// batch's guard knows its nodes. An access that knows the guard
	// knows them all and passes over the bag; when a group is put in the
	// bag, the access that puts it there becomes the guard if it knows
	// the guard and the group, and otherwise the bag has none.
	guardG, guardPos int32
}

// shbOpenSlot is where a bagged open group is: its bag among its
// location's and its place in the bag.
type shbOpenSlot struct{ bag, at int32 }

// openKey keys the table of bagged groups by location and goroutine.
func openKey(l, g int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(g)) }

// openBags returns location l's open bags, or nil.
func (t *shbTable) openBags(l int32) []shbOpenBag {
	if !t.open.has(l) {
		return nil
	}
	return t.opens[l]
}

// unbag moves goroutine g's open group of location l, if it is in a
// bag, back to the top of l's run, where g's access records itself, and
// reports whether it did.
func (t *shbTable) unbag(l, g int32) bool {
	if !t.open.has(l) {
		return false
	}
	key := openKey(l, g)
	s, ok := t.openAt[key]
	if !ok {
		return false
	}
	delete(t.openAt, key)
	b := &t.opens[l][s.bag]
	gr := b.groups[s.at]
	if last := int32(len(b.groups) - 1); s.at != last {
		b.groups[s.at] = b.groups[last]
		t.openAt[openKey(l, b.groups[s.at].g)] = s
	}
	b.groups = b.groups[:len(b.groups)-1]
	t.deadG += push(&t.groups, &t.loc[l], gr)
	return true
}

// checkOpen scans, of location l's open bags, those whose masks may
// conflict with x, as check scans an open group at the top.
func (f *shbFinds) checkOpen(x *shbAccess, l int32) {
	bags := f.tab.openBags(l)
	f.checked += int64(len(bags))
	for k := range bags {
		b := &bags[k]
		if len(b.groups) == 0 || !b.masks.conflicts(x.mask, x.w, x.at) || x.knowsGuard(b.guardG, b.guardPos) {
			continue
		}
		f.checked += int64(len(b.groups))
		all := true
		for j := range b.groups {
			gr := &b.groups[j]
			if gr.g == x.g {
				continue // x's own (visit unbags it after)
			}
			if kn := x.knows(gr.g); gr.maxPos > kn {
				f.scan(x, gr, kn)
				all = false
			}
		}
		if all {
			b.guardG, b.guardPos = x.g, x.pos
		}
	}
}

// knowsGuard reports whether x knows event pos of goroutine g, a guard
// (none if g < 0): x comes after it in g, or x's clock knows it.
func (x *shbAccess) knowsGuard(g, pos int32) bool {
	return g >= 0 && (g == x.g || pos <= x.knows(g))
}

// bagOpen puts the open groups in f.opened, which access x moved out of
// the top, into location l's open bags for their masks, made if need be.
func (f *shbFinds) bagOpen(l int32, x *shbAccess) {
	t := f.tab
	t.open.set(l)
	bags := t.opens[l]
	f.opens += len(f.opened)
	for _, gr := range f.opened {
		k := 0
		for k < len(bags) && bags[k].masks != gr.masks {
			k++
		}
		if k == len(bags) {
			bags = append(bags, shbOpenBag{masks: gr.masks, guardG: -1})
		}
		b := &bags[k]
		if x.knowsGuard(b.guardG, b.guardPos) && x.knowsGuard(gr.g, gr.maxPos) {
			b.guardG, b.guardPos = x.g, x.pos // x knows the bag's groups and gr
		} else {
			b.guardG = -1
		}
		t.openAt[openKey(l, gr.g)] = shbOpenSlot{bag: int32(k), at: int32(len(b.groups))}
		b.groups = append(b.groups, gr)
	}
	t.opens[l] = bags
}

// dropOpen frees location l's open bags, their groups' entries and
// their places in the table.
func (t *shbTable) dropOpen(l int32) {
	if !t.open.has(l) {
		return
	}
	bags := t.opens[l]
	for k := range bags {
		for j := range bags[k].groups {
			gr := &bags[k].groups[j]
			t.dropEntries(l, gr)
			delete(t.openAt, openKey(l, gr.g))
		}
	}
	delete(t.opens, l)
	t.open.clear(l)
}
