// This file implements the SHB layer's check of each access against the
// table of latest accesses (race_shb_table.go), at a cost that does not
// grow with the number of goroutines that ever touched the location.
//
// Checked group by group, an access cost one clock lookup per goroutine
// that had touched its location: a worker pool that starts a goroutine
// per task (alitto/pond) put 10,100 goroutines on one location, and the
// layer did not end. The check here uses the transitivity that FastTrack's
// epochs rest on (Flanagan and Freund, PLDI 2009, §3; for SHB, Mathur, Kini
// and Viswanathan, OOPSLA 2018, §4): when an access e's clock knows every
// entry of some nodes, each of them happens before e, and a later access
// that knows e knows them all. So the nodes e knows move into a batch
// guarded by e, and a later access checks the guard's one clock entry
// instead of its nodes: it looks inside only if it does not know e and
// the batch holds an entry it conflicts with (then some of them may race
// with it), and it takes out and refolds the nodes it knows there.
// Unlike FastTrack, which keeps only the last write and the reads after
// it, no entry is dropped: every pair of sites still has its closest pair
// and its count, the same as the check of every group (the differential
// test in race_shb_fold_test.go). Only closed groups move into batches:
// those whose goroutine will not access the location again, known from a
// backward walk (lastPerGoroutine), so that each goroutine keeps one
// group per location, at the top, where its next access finds it.
//
// The closed groups an access does not know (tasks that ran beside it)
// move into bags, one per set of word masks (shbMasks): an access passes
// over a bag whose words and kinds it cannot conflict with, and looks
// inside, taking out what it knows, only if it may. The masks also filter
// each group by the words its entries touch, not only by whether any of
// them writes: pond's tasks read a pool's settings and add atomically to
// its counters, and every atomic add scanned every task's entries.

package predict

import (
	"cmp"
	"slices"
)

// shbBest is the closest pair of accesses of a pair of sites that the
// pass found, with the number of pairs.
type shbBest struct {
	cd    cand
	count int64
	// first says where the pair of sites was first found: the access,
	// then the group's seq and the entry's place in it. Keys are kept in
	// that order, the order of a check of every group in the order they
	// were made, whatever order the batches visit them in.
	first [3]int32
}

// shbFinds is what the SHB layer's first pass finds: every pair of sites
// that SHB leaves unordered, its closest pair and count, and the number
// of unordered pairs of accesses.
type shbFinds struct {
	c     *ctp
	m     *memory
	tab   *shbTable
	ch    *chainMap // the pass's chains, if any
	bests map[siteKey]*shbBest
	keys  []siteKey
	total int64
	fold  []shbGroup // the nodes the current access knows, to be batched
	// the closed groups at the top that it does not know, to be bagged,
	// and the places of the bags at the top
	bagged []shbGroup
	bags   []int32
	// the open groups of other goroutines at a crowded top, to be put in
	// open bags (race_shb_open.go)
	opened []shbGroup
	// checked counts the nodes the accesses looked at: the layer's work,
	// which the batches keep from growing with the goroutines.
	checked int64
	scanned int64 // and the entries of the groups they scanned
	opens   int   // open groups put in open bags
}

func newSHBFinds(c *ctp, m *memory) *shbFinds {
	return &shbFinds{c: c, m: m, tab: newSHBTable(c, m), bests: make(map[siteKey]*shbBest)}
}

// sortKeys puts the pairs of sites in the order they were first found.
func (f *shbFinds) sortKeys() {
	slices.SortFunc(f.keys, func(a, b siteKey) int {
		x, y := f.bests[a].first, f.bests[b].first
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]), cmp.Compare(x[2], y[2]))
	})
}

// shbAccess is the access a pass checks, and what it knows.
type shbAccess struct {
	i, g, site int32
	w, at      bool
	mask       uint32 // its words (wordMask)
	cur        vclock
	d          []int32
	ch         *chainMap // the pass's chains, if any (clock_chain.go)
	pos        int32     // its position in goroutine g
	// knows's last answer: for goroutine memoG-1 (0: none yet), memoV.
	// On pond's trace (issue 31, item 5) two in five of its calls ask
	// for the goroutine of the call before (consecutive groups of one
	// goroutine), each a binary search or three in cur.
	memoG, memoV int32
}

// knows returns the last event of goroutine h that x's clock knows: its
// component, or that of h's chain, translated. Nothing it reads changes
// while x is checked, so it remembers its last answer.
func (x *shbAccess) knows(h int32) int32 {
	if x.memoG == h+1 {
		return x.memoV
	}
	v := x.component(h)
	x.memoG, x.memoV = h+1, v
	return v
}

// component is knows without the memo.
func (x *shbAccess) component(h int32) int32 {
	k := x.ch.chainOf(h)
	var v int32
	if x.d != nil {
		v = x.d[k]
	} else {
		v = x.cur.get(k)
	}
	if x.ch == nil {
		return v
	}
	return x.ch.count(x.ch.value(x.g, x.pos-1, h, v), h)
}

// scan checks x against the entries of group gr, whose goroutine's
// events x knows up to known, and counts the pairs that race.
func (f *shbFinds) scan(x *shbAccess, gr *shbGroup, known int32) {
	c := f.c
	ev := &c.ev[x.i]
	ents := f.tab.entries(gr)
	f.scanned += int64(len(ents))
	for j := range ents {
		a := &ents[j]
		if a.pos <= known || !(x.w || a.write) || (x.at && a.atomic) {
			continue
		}
		if y := &c.ev[a.last]; !overlap(y.Addr, y.Size, ev.Addr, ev.Size) {
			continue
		}
		// The accesses of a that x's clock does not know race with x:
		// those after known.
		n := f.tab.after(a, known)
		f.total += n
		key := siteKey{kind: 'r', s: sitePair(c.site(a.last), x.site)}
		first := [3]int32{x.i, gr.seq, int32(j)}
		bt := f.bests[key]
		if bt == nil {
			bt = &shbBest{cd: cand{kind: 'r', ev: [3]int32{a.last, x.i, -1}, key: key}, first: first}
			f.bests[key] = bt
			f.keys = append(f.keys, key)
		} else {
			if x.i-a.last < bt.cd.ev[1]-bt.cd.ev[0] {
				bt.cd.ev = [3]int32{a.last, x.i, -1}
			}
			if slices.Compare(first[:], bt.first[:]) < 0 {
				bt.first = first
			}
		}
		bt.count += n
	}
}

// visit checks access i against its location's nodes, records it, and
// batches the nodes it knows under it.
func (f *shbFinds) visit(i int32, cur vclock, d []int32) {
	c, m, t := f.c, f.m, f.tab
	if !m.shared(i) {
		return
	}
	ev := &c.ev[i]
	x := shbAccess{i: i, g: int32(ev.G), site: c.site(i), w: isWrite(ev.Op), at: ev.Op.IsAtomic(),
		mask: wordMask(ev.Addr, ev.Size), cur: cur, d: d, ch: f.ch, pos: c.pos[i]}
	l := m.loc[i]
	f.fold, f.bagged, f.bags, f.opened = f.fold[:0], f.bagged[:0], f.bags[:0], f.opened[:0]
	own := f.check(&x, &t.loc[l], true)
	f.checkOpen(&x, l)
	// Batched and bagged before record, which may compact the pools: the
	// nodes in f.fold, f.bagged and f.opened are in no run until then, so
	// that a compaction would not move what they point to. The open ones
	// are bagged after checkOpen, which checked them at the top already.
	if len(f.fold) > 0 {
		f.batch(l, &x)
	}
	for k := range f.bagged {
		f.bag(l, &f.bagged[k])
	}
	if len(f.opened) > 0 {
		f.bagOpen(l, &x)
	}
	// x's own group, if not at the top, may be in an open bag: it goes
	// back to the top only now, so that the table of bagged groups is
	// looked up only by an access that did not find its group at the top
	// (checkOpen passed over it: x never races with its own goroutine).
	if own < 0 && t.unbag(l, x.g) {
		own = int(t.loc[l].n - 1)
	}
	t.record(l, x.g, own, i, c.pos[i], x.site, x.w, x.at)
	t.retire(l, i)
}

// check checks x against the nodes of run r, looking inside the batches
// and bags that may conflict with it and whose guard it does not know,
// and moves the nodes it knows (closed groups and batches) out of r into
// f.fold. In the top run of a location (top), it moves the closed groups
// it does not know into f.bagged, and notes where the bags are in
// f.bags; it returns the place there of x's goroutine's group, or -1.
// At a top of shbOpenAt nodes or more, it moves the open groups of other
// goroutines that shbOpenIdle accesses have passed over there since their
// own goroutine's latest into f.opened (race_shb_open.go); each open
// group of another goroutine it leaves at the top counts one more pass
// (shbGroup.idle).
func (f *shbFinds) check(x *shbAccess, r *span, top bool) int {
	t := f.tab
	own := -1
	kept := r.off
	crowded := top && r.n >= int32(shbOpenAt)
	f.checked += int64(r.n)
	for k := r.off; k < r.off+r.n; k++ {
		gr := &t.groups[k]
		conflicts := gr.masks.conflicts(x.mask, x.w, x.at)
		known, bag := false, false
		switch {
		case gr.batch:
			if gr.g >= 0 && (gr.g == x.g || gr.maxPos <= x.knows(gr.g)) {
				known = true
				break
			}
			if conflicts {
				switch f.check(x, &gr.ents, false); gr.ents.n {
				case 0:
					t.deadG += int(gr.ents.cap)
					continue // every node moved out
				case 1:
					// A batch of one node is that node (its guard
					// would only be harder to know than the node's
					// own), so that batches never outnumber groups.
					// The node was checked inside.
					ch := gr.ents
					*gr = t.groups[ch.off]
					t.deadG += int(ch.cap)
				}
			}
			if top && gr.g < 0 {
				f.bags = append(f.bags, kept-r.off)
			}
		case gr.g == x.g:
			if top {
				own = int(kept - r.off)
			}
		case gr.closed || conflicts:
			kn := x.knows(gr.g)
			if gr.maxPos <= kn {
				known = gr.closed
				break
			}
			if conflicts {
				f.scan(x, gr, kn)
			}
			bag = top && gr.closed
		}
		switch {
		case known:
			f.fold = append(f.fold, *gr)
		case bag:
			f.bagged = append(f.bagged, *gr)
		case crowded && !gr.batch && !gr.closed && gr.g != x.g && gr.idle >= shbOpenIdle:
			f.opened = append(f.opened, *gr)
		default:
			if top && !gr.batch && !gr.closed && gr.g != x.g && gr.idle < 255 {
				gr.idle++
			}
			if kept != k {
				t.groups[kept] = *gr
			}
			kept++
		}
	}
	r.n = kept - r.off
	return own
}

// batch puts the nodes in f.fold back at the top of location l's run:
// two or more as one batch guarded by x, which knows them all; one as
// it is (a guard would only be harder to know than its own).
func (f *shbFinds) batch(l int32, x *shbAccess) {
	t := f.tab
	if len(f.fold) == 1 {
		t.deadG += push(&t.groups, &t.loc[l], f.fold[0])
		return
	}
	b := shbGroup{g: x.g, maxPos: f.c.pos[x.i], batch: true}
	for k := range f.fold {
		b.masks.or(f.fold[k].masks)
	}
	n := int32(len(f.fold))
	b.ents = span{off: int32(len(t.groups)), n: n, cap: n}
	t.groups = append(t.groups, f.fold...)
	t.deadG += push(&t.groups, &t.loc[l], b)
}

// bag puts closed group gr, which the access did not know, in the bag of
// location l for its masks, made if need be: an access passes over the
// whole bag unless it may conflict with its groups, and then looks for
// the ones it knows there. A location that every task of a pool touches
// keeps its tasks' groups in a few bags, not each at the top, where every
// access looked at each.
func (f *shbFinds) bag(l int32, gr *shbGroup) {
	t := f.tab
	top := t.loc[l]
	for _, k := range f.bags {
		b := &t.groups[top.off+k]
		if b.masks == gr.masks {
			r := b.ents
			t.deadG += push(&t.groups, &r, *gr)
			t.groups[top.off+k].ents = r
			return
		}
	}
	b := shbGroup{g: -1, batch: true, masks: gr.masks, ents: span{off: int32(len(t.groups)), n: 1, cap: 1}}
	t.groups = append(t.groups, *gr)
	t.deadG += push(&t.groups, &t.loc[l], b)
	f.bags = append(f.bags, t.loc[l].n-1)
}
