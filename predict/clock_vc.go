// This file implements persistent sparse vector clocks (Mattern; Fidge), the
// representation behind every happens-before pass in this package. A test
// can run thousands of goroutines, so a dense clock per goroutine (O(k²)
// memory) is out of the question. A clock here is an immutable value: a
// shared sorted "base" plus a small sorted "delta" of entries that exceed
// it. Joining never mutates, so a goroutine's clock can be snapshotted for
// later queries by copying two words, a forked goroutine shares its
// parent's base, and joining a clock whose base the receiver already
// dominates only touches the deltas (the epoch idea of FastTrack, Flanagan
// and Freund, PLDI 2009, generalised to whole clocks).
//
// Allocation is what a pass costs in memory (garbage dominates the peak
// heap), so joinOwn is the mutable exception: a pass that knows nobody
// else holds a clock's delta (an ownership flag, cleared whenever the
// clock is stored elsewhere) lets the join merge into it in place, and
// every join works in scratch space the pass reuses. A join also reports
// the components that rose (what a clock history records, clock_rises.go),
// found on the way: against the receiver's delta alone when its base is
// kept, which is most joins. Sorted lists are compared by galloping
// search when one is much shorter (keepAbove). A join that may not update
// a long delta in place keeps it as a middle layer between base and delta
// rather than copying it (clock_layer.go).

package predict

import "slices"

// centry is one component of a vector clock: goroutine g has executed (at
// least) its first v events.
type centry struct{ g, v int32 }

// frozen is an immutable clock base: sorted by goroutine in ents, or,
// if n > 0, dense (clock_base_dense.go): ents's storage then holds an
// int32 a goroutine, n of them non-zero. Its readers go through its
// methods (len, get, keepAbove, raiseInto, maxInto, vclock.allTo), which
// read either form.
type frozen struct {
	ents []centry
	prev *frozen // a base that this one dominates pointwise, or nil
	seen uint32  // the last sweep that found it held (clock_arena.go)
	// A base made from goroutine og's clock while a pass replayed its
	// event at position op is at most og's clock after that event (og
	// is -1 for other bases): a clock that knows og's event op+1 holds
	// all of it (see knowsBase).
	og, op int32
	n      int32 // a dense base's non-zero components; 0 for a sorted one
}

// vclock is a persistent vector clock. The zero value is the empty clock.
// Delta entries are sorted by goroutine and each exceeds the base's entry
// and the middle layer's (clock_layer.go), whose entries exceed the base's.
type vclock struct {
	base  *frozen
	mid   *layer
	delta []centry
}

func lookup(ents []centry, g int32) int32 {
	lo, hi := 0, len(ents)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ents[m].g < g {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ents) && ents[lo].g == g {
		return ents[lo].v
	}
	return 0
}

// get returns component g of c.
func (c vclock) get(g int32) int32 {
	if v := lookup(c.delta, g); v != 0 {
		return v
	}
	if c.mid != nil {
		if v := lookup(c.mid.ents, g); v != 0 {
			return v
		}
	}
	if c.base == nil {
		return 0
	}
	if c.base.n > 0 {
		return c.base.get(g)
	}
	return lookup(c.base.ents, g) // inline, as get's is not
}

// size returns the number of stored entries (an upper bound on the
// number of non-zero components).
func (c vclock) size() int {
	n := c.over()
	if c.base != nil {
		n += c.base.len()
	}
	return n
}

// each calls f for every non-zero component of c, in goroutine order.
func (c vclock) each(f func(g, v int32)) {
	if c.mid != nil || c.base != nil && c.base.n > 0 {
		for _, e := range c.allTo(nil) {
			f(e.g, e.v)
		}
		return
	}
	var b []centry
	if c.base != nil {
		b = c.base.ents
	}
	d := c.delta
	for len(b) > 0 || len(d) > 0 {
		switch {
		case len(d) == 0 || (len(b) > 0 && b[0].g < d[0].g):
			f(b[0].g, b[0].v)
			b = b[1:]
		case len(b) == 0 || d[0].g < b[0].g:
			f(d[0].g, d[0].v)
			d = d[1:]
		default: // same goroutine: the delta entry is the larger
			f(d[0].g, d[0].v)
			b, d = b[1:], d[1:]
		}
	}
}

// dominates reports whether base a is known to be pointwise >= base b.
func dominates(a, b *frozen) bool { return dominatesWithin(a, b, 256) }

// dominatesWithin is dominates looking n bases down a's ancestry.
func dominatesWithin(a, b *frozen, n int) bool {
	if b == nil {
		return true
	}
	for i := 0; a != nil && i < n; i++ {
		if a == b {
			return true
		}
		a = a.prev
	}
	return false
}

// join returns c ⊔ src ⊔ extras, and whether that differs from c.
// extras need not be sorted.
func join(c, src vclock, extras ...centry) (vclock, bool) {
	var sc joinScratch
	out, changed, _ := joinOwn(&sc, c, false, src, extras...)
	return out, changed
}

// joinScratch is join's working space, reused by a pass across joins: a
// join of clocks of thousands of goroutines would otherwise allocate and
// drop several lists of thousands of entries. With wantRises, a join also
// leaves in rises the components of the result that exceed the receiver's
// (what a history records), so that no one compares whole clocks again.
//
// Bases are made in arena if it is set (clock_arena.go).
type joinScratch struct {
	cand, tmp, ex, add []centry
	flat               []centry // flattenDense's
	wantRises          bool
	rises              []centry
	arena              *baseArena
	// With tagged, self and pos name the receiver's goroutine and the
	// position a pass (clock_pass.go) is at: the bases made then are tagged with
	// them (frozen.og), and bases are judged by their tags (knowsBase).
	tagged    bool
	self, pos int32
	// selfBase: the receiver's own bases are those tagged self at pos
	// selfBase or later (a pass with chains, clock_chain.go: earlier ones
	// are those of the goroutines before it on its chain).
	selfBase int32
	// layers, if not nil, are layers the receiver has joined whole
	// (clock_layer_known.go).
	layers *knownLayers
}

// knows reports whether receiver c, whose components d mirrors if it is
// not nil, holds all of base b (knowsBase, for a tagged join).
func (sc *joinScratch) knows(c vclock, d []int32, b *frozen) bool {
	if !sc.tagged {
		return dominates(c.base, b)
	}
	return knowsBase(c, d, sc.self, sc.selfBase, b)
}

// knowsBase reports whether clock c of goroutine self (-1 for no
// goroutine's), whose components d mirrors if it is not nil, holds all of
// base b. Beyond dominates, it uses b's tag: in a vector-clock pass (clock_pass.go)
// a clock that knows event p+1 of goroutine k has joined a clock of k
// released at that event or later, which holds k's clock after event p
// (what knowing an event means there, FastTrack's epoch rule, Flanagan and
// Freund, PLDI 2009); and a goroutine's own base from earlier is below its
// clock now, which only grows.
//
// A receiver with a mirror d has made no base of another's its own since
// the mirror was made (joinDense keeps c's base), so a tagged base is
// looked for only a few bases down c's ancestry: a failed search of all
// 256 cost a pointer chase each, at nearly every join of a clock that
// flattens at every other join.
func knowsBase(c vclock, d []int32, self, selfBase int32, b *frozen) bool {
	if b == nil {
		return true
	}
	depth := 256
	if b.og >= 0 {
		if b.og == self && b.op >= selfBase {
			return true
		}
		if d != nil {
			if d[b.og] > b.op {
				return true
			}
			depth = 8
		} else if c.get(b.og) > b.op {
			return true
		}
	}
	return dominatesWithin(c.base, b, depth)
}

// joinOwn is join for a clock c whose delta, if own, nobody else holds:
// it may then be updated in place. The last result reports whether the
// returned clock's delta is held by nobody else (fresh, or c's updated).
func joinOwn(sc *joinScratch, c vclock, own bool, src vclock, extras ...centry) (vclock, bool, bool) {
	orig := c
	sameDelta := false           // c.delta is orig.delta
	cand, tmp := sc.cand, sc.tmp // sorted candidate entries that might raise c
	cand = cand[:0]
	switch {
	case sc.knows(c, nil, src.base):
		// A layer c may not hold (clock_layer_known.go).
		if src.mid != nil && src.mid != c.mid && !sc.layers.has(src.mid) {
			cand = src.overTo(cand)
		} else {
			cand = append(cand, src.delta...)
		}
		sameDelta = true
	case c.base == nil || dominates(src.base, c.base):
		// Adopt src's base: the result is src ⊔ c's layer and delta ⊔
		// extras.
		if c.mid != nil && c.mid != src.mid {
			cand = c.overTo(cand)
		} else {
			cand = append(cand, c.delta...)
		}
		c = src
	default:
		// Unrelated bases: keep the larger and fold the other in.
		small, large := c, src
		if src.base.len() < c.base.len() {
			small, large = src, c
		}
		cand = small.allTo(cand)
		if large.over() > 0 {
			cand, tmp = merge3To(tmp[:0], cand, large.midEnts(), large.delta), cand
		}
		c = vclock{base: large.base}
	}
	if len(extras) > 0 {
		ex := append(sc.ex[:0], extras...)
		sc.ex = ex
		if len(ex) > 1 {
			slices.SortFunc(ex, func(a, b centry) int { return int(a.g - b.g) })
		}
		k := 0
		for _, x := range ex { // one entry per goroutine, the largest
			if k > 0 && ex[k-1].g == x.g {
				if x.v > ex[k-1].v {
					ex[k-1].v = x.v
				}
				continue
			}
			ex[k] = x
			k++
		}
		if len(cand) > 0 {
			cand, tmp = mergeMaxTo(tmp[:0], cand, ex[:k]), cand
		} else {
			cand = append(cand, ex[:k]...)
		}
	}
	// Keep only the entries that raise c. A receiver of a base alone
	// (a re-based join's, usually) is compared with its base at once,
	// without copying cand first.
	add := sc.add[:0]
	switch {
	case len(c.delta) == 0 && c.mid == nil && c.base != nil:
		add = c.base.keepAbove(add, cand)
	default:
		add = keepAbove(add, cand, c.delta)
		if c.mid != nil {
			add = keepAbove(add[:0], add, c.mid.ents)
		}
		if c.base != nil {
			add = c.base.keepAbove(add[:0], add)
		}
	}
	sc.cand, sc.tmp, sc.add = cand[:0], tmp[:0], add[:0] // kept for the next join
	if sc.wantRises && c.base == orig.base {
		// Before orig's delta may be updated in place. (c is orig, or
		// orig's base alone with orig's layer and delta in cand.)
		sc.rises = keepAbove(sc.rises[:0], add, orig.delta)
		if orig.mid != nil && orig.mid != c.mid {
			sc.rises = keepAbove(sc.rises[:0], sc.rises, orig.mid.ents)
		}
	}
	out := c
	changed := c.base != orig.base // re-based: conservatively "changed"
	fresh := false
	bl := 0
	if c.base != nil {
		bl = c.base.len()
	}
	if len(add) > 0 && c.mid == nil && len(c.delta) == 0 && flattens(len(add), bl) {
		// The grown clock would be c's base and add, folded at once
		// into a new base: folded from add, with no delta made for it
		// (flattenNow).
		return sc.flattenNow(orig, vclock{base: c.base, delta: add})
	}
	if len(add) > 0 {
		out, fresh = c.grown(own && sameDelta, add) // clock_layer.go
		changed = true
	} else if !changed {
		out = orig
	}
	if len(add) > 0 && flattens(out.over(), bl) {
		return sc.flattenNow(orig, out)
	}
	if sc.wantRises && c.base != orig.base {
		sc.rises = risesOver(sc.rises[:0], orig, out)
	}
	if len(add) == 0 {
		return out, changed, !changed && own && sameDelta
	}
	return out, true, own && sameDelta || fresh
}

// flattenNow is joinOwn's end for a result out (orig joined with
// something) that it folds into a new base, which it returns. Where
// out is on another base than orig's, the rises are read from the new
// base's entries, which are out's, merged once for both (risesOver
// merged them again).
func (sc *joinScratch) flattenNow(orig, out vclock) (vclock, bool, bool) {
	f := out.flattenFor(sc)
	if sc.wantRises && out.base != orig.base {
		sc.rises = risesOverEnts(sc.rises[:0], orig, f.base.ents)
	}
	return f, true, false
}

// risesOver appends to r the components of out (orig joined with
// something, on another base) that exceed orig's.
func risesOver(r []centry, orig, out vclock) []centry {
	return risesOverEnts(r, orig, out.allTo(r))
}

// risesOverEnts is risesOver for out's entries all, sorted, one a
// goroutine (out.allTo's), which r may hold.
func risesOverEnts(r []centry, orig vclock, all []centry) []centry {
	r = keepAbove(r[:0], all, orig.delta)
	if orig.mid != nil {
		r = keepAbove(r[:0], r, orig.mid.ents)
	}
	if orig.base != nil {
		r = orig.base.keepAbove(r[:0], r)
	}
	return r
}

// keepAbove appends to out the entries of sorted cand that exceed the
// same goroutine's entry in sorted ents (or that ents lacks). out may
// be cand[:0]. Searches gallop, so that a few candidates against a long
// list cost a few probes each.
func keepAbove(out, cand, ents []centry) []centry {
	j := 0
	if 8*len(ents) < len(cand) { // a few entries: cand copied in runs
		return keepAboveFew(out, cand, ents)
	}
	if 4*len(cand) >= len(ents) { // dense: a plain merge walk
		for _, e := range cand {
			for j < len(ents) && ents[j].g < e.g {
				j++
			}
			if j < len(ents) && ents[j].g == e.g && ents[j].v >= e.v {
				continue
			}
			out = append(out, e)
		}
		return out
	}
	for _, e := range cand {
		if j < len(ents) && ents[j].g < e.g {
			// Gallop to a bound, then search: the first entry >= e.g.
			lo, step := j+1, 1
			hi := j + step
			for hi < len(ents) && ents[hi].g < e.g {
				lo = hi + 1
				step <<= 1
				hi = j + step
			}
			hi = min(hi, len(ents))
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if ents[m].g < e.g {
					lo = m + 1
				} else {
					hi = m
				}
			}
			j = lo
		}
		if j < len(ents) && ents[j].g == e.g && ents[j].v >= e.v {
			continue
		}
		out = append(out, e)
	}
	return out
}

// keepAboveFew is keepAbove for ents much shorter than cand (a delta
// beside a clock's entries): each of ents's goroutines is found in cand
// by a galloping search, and the runs of cand between them are copied
// whole. out may be cand[:0]: a run is copied to no later than where it
// is read from (append's copy is a memmove).
func keepAboveFew(out, cand, ents []centry) []centry {
	i := 0
	for _, x := range ents {
		lo := gallop(len(cand), i, func(k int) bool { return cand[k].g < x.g }) // clock_rises.go
		out = append(out, cand[i:lo]...)
		i = lo
		if i < len(cand) && cand[i].g == x.g {
			if cand[i].v > x.v {
				out = append(out, cand[i])
			}
			i++
		}
	}
	return append(out, cand[i:]...)
}

// mergeMaxInPlace merges sorted b into sorted a, whose capacity holds
// both, keeping the larger value for a goroutine in both: from the back,
// so that nothing is overwritten before it is read.
func mergeMaxInPlace(a, b []centry) []centry {
	n := len(a)
	i, j := 0, 0
	for i < len(a) && j < len(b) { // count b's goroutines not in a
		switch {
		case a[i].g < b[j].g:
			i++
		case b[j].g < a[i].g:
			n++
			j++
		default:
			i++
			j++
		}
	}
	n += len(b) - j
	out := a[:n]
	i, j = len(a)-1, len(b)-1
	for k := n - 1; j >= 0; k-- {
		switch {
		case i >= 0 && a[i].g > b[j].g:
			out[k] = a[i]
			i--
		case i >= 0 && a[i].g == b[j].g:
			e := a[i]
			if b[j].v > e.v {
				e.v = b[j].v
			}
			out[k] = e
			i--
			j--
		default:
			out[k] = b[j]
			j--
		}
	}
	return out
}

// flatten folds the delta into a new base that records it dominates the
// old one, made in a if it is not nil.
func (c vclock) flatten(a *baseArena) vclock {
	n := c.over()
	if c.base != nil {
		n += c.base.len()
	}
	var ents []centry
	if a != nil {
		ents = a.alloc(n)
	} else {
		ents = make([]centry, 0, n) // one allocation, exactly sized
	}
	ents = c.allTo(ents)
	f := &frozen{ents: ents, prev: c.base, og: -1}
	if a != nil {
		a.add(f)
	}
	return vclock{base: f}
}

// flattenFor is flatten for a clock of a join through sc, tagged with
// sc's receiver (frozen.og).
func (c vclock) flattenFor(sc *joinScratch) vclock {
	out := c.flatten(sc.arena)
	if sc.tagged {
		out.base.og, out.base.op = sc.self, sc.pos
	}
	return out
}

// mergeMaxTo merges two sorted entry lists, keeping the larger value for
// a goroutine in both, appending to out, which must not overlap a or b.
func mergeMaxTo(out, a, b []centry) []centry {
	out = slices.Grow(out, len(a)+len(b))
	if len(a) < len(b) {
		a, b = b, a
	}
	if 8*len(b) < len(a) {
		return mergeFewTo(out, a, b)
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].g < b[j].g:
			out = append(out, a[i])
			i++
		case b[j].g < a[i].g:
			out = append(out, b[j])
			j++
		default:
			e := a[i]
			if b[j].v > e.v {
				e.v = b[j].v
			}
			out = append(out, e)
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// mergeFewTo is mergeMaxTo for a list b much shorter than a: each of b's
// entries is found in a by a galloping search, and the runs of a between
// them are copied whole, so that a join that raises a few components of
// a long delta costs a copy of it rather than a comparison an entry.
func mergeFewTo(out, a, b []centry) []centry {
	i := 0
	for _, e := range b {
		out, i = mergeAt(out, a, i, e)
	}
	return append(out, a[i:]...)
}

// mergeAt appends to out the entries of sorted a from i on below e's
// goroutine, found by a galloping search and copied whole, then e,
// raised to a's entry of its goroutine if a has one; it returns out and
// where in a the next entry starts.
func mergeAt(out, a []centry, i int, e centry) ([]centry, int) {
	lo := gallop(len(a), i, func(k int) bool { return a[k].g < e.g }) // clock_rises.go
	out = append(out, a[i:lo]...)
	i = lo
	if i < len(a) && a[i].g == e.g {
		e.v = max(e.v, a[i].v)
		i++
	}
	return append(out, e), i
}

// denseBudget bounds the entries of the dense mirrors one pass keeps
// (clock_pass.go): 32 MB of int32s. A clock gets a mirror once it holds at least
// denseMin components and a quarter of all goroutines (denseMin 0: at
// once); below that, joinOwn's merges of short lists cost less than a
// pass over the source. Tests set these, and tagBases, to compare the
// ways of joining.
var (
	denseBudget = 1 << 23
	denseMin    = 32
	tagBases    = true
	// flattenDelta is how long a delta may grow, beyond a quarter of
	// its base, before a join folds it into a new base (flattens).
	flattenDelta = 32
	// flattenFirst lets joinDense flatten without merging its delta when
	// either list alone is past flattens' bound; tests turn it off to
	// compare.
	flattenFirst = true
)

// flattens reports whether a clock with a delta of n entries over a base
// of bl folds them into a new base. A base is shared by every clock made
// from it, and a delta is copied into each: when thousands of goroutines
// all talk to all, a join raises about a tenth of a clock, and a
// goroutine that flattened whenever its delta passed a 32nd of its base
// made a new base at nearly every join, so that every clock a release
// stored held a base of its own. Past a quarter, several releases share
// one, which lowered both the peak and the time of seer predict on
// channel stress traces (bench/RESULTS.md, "Figures once in
// comments").
func flattens(n, bl int) bool { return n > flattenDelta+bl/4 }

// joinDense is joinOwn for a receiver c whose every component is also
// held in d, a dense array indexed by goroutine (a mirror the pass keeps
// for goroutines whose clocks hold a large share of all goroutines). The
// result is the same clock (c ⊔ src ⊔ extras) with the same rises; only
// its representation differs: c's base is always kept, and what rose goes
// into its delta. Where joinOwn, for a source on a base unrelated to c's
// (the common case when thousands of goroutines all talk to all, each
// flattening its own bases), merges both bases into candidate lists and
// compares them against c in several passes, this reads src once and
// compares each entry with d in O(1): the cost of a join is |src| simple
// steps, plus the rises (Mattern's dense vector clock, kept beside the
// persistent one that releases and snapshots share). d is updated.
func joinDense(sc *joinScratch, c vclock, own bool, d []int32, src vclock, extras ...centry) (vclock, bool, bool) {
	// The base's entries, then the delta's, each in goroutine order: two
	// sorted lists of what rose, merged keeping the larger value (a delta
	// entry exceeds its base's), so that add is sorted, one entry a
	// goroutine. Each scan is a loop without a merge's branches.
	add := sc.add[:0]
	if !sc.knows(c, d, src.base) {
		add = src.base.raiseInto(add, d)
	}
	raise := func(ents []centry) {
		if more := raiseDense(sc.tmp[:0], d, ents); len(more) > 0 {
			sc.tmp = more
			if len(add) == 0 {
				add = append(add, more...)
			} else {
				merged := mergeMaxTo(sc.cand[:0], add, more)
				sc.cand, add = add, merged
			}
		}
	}
	if src.mid != nil && src.mid != c.mid && !sc.layers.has(src.mid) { // a layer c may not hold
		raise(src.mid.ents)
	}
	raise(src.delta)
	for _, e := range extras { // a few epochs
		if e.v <= d[e.g] {
			continue
		}
		d[e.g] = e.v
		j, found := slices.BinarySearchFunc(add, e.g, func(x centry, g int32) int { return int(x.g - g) })
		if found {
			add[j].v = e.v
		} else {
			add = slices.Insert(add, j, e)
		}
	}
	sc.add = add
	if sc.wantRises {
		sc.rises = append(sc.rises[:0], add...)
	}
	if len(add) == 0 {
		return c, false, own
	}
	bl := 0
	if c.base != nil {
		bl = c.base.len()
	}
	if flattenFirst && flattens(max(len(c.midEnts()), len(c.delta), len(add)), bl) {
		// The merged layer and delta would hold at least as many entries
		// as any of the lists (however grown splits them), so the join
		// would fold them into a new base; that base is read from d
		// alone, which already holds c ⊔ src ⊔ extras, so the merge is
		// skipped (its bound on the base's size, the sum of the lists,
		// is at least the merge's).
		return flattenDense(sc, c.base, bl+c.over()+len(add), d), true, false
	}
	out, fresh := c.grown(own, add) // clock_layer.go
	if flattens(out.over(), bl) {
		return flattenDense(sc, out.base, bl+out.over(), d), true, false
	}
	return out, true, own || fresh
}

// raiseDense raises d to ents, appending to out each entry that rose.
func raiseDense(out []centry, d []int32, ents []centry) []centry {
	for _, e := range ents {
		if e.v > d[e.g] {
			d[e.g] = e.v
			out = append(out, e)
		}
	}
	return out
}

// flattenDense is flattenFor for a clock that d mirrors, on base prev and
// of at most n components: the new base is d's non-zero components, read
// in one pass over d rather than by merging the clock's base and delta.
func flattenDense(sc *joinScratch, prev *frozen, n int, d []int32) vclock {
	// Over half of all goroutines, the base is d's copy, 4 bytes a
	// goroutine rather than 8 a component (clock_base_dense.go): counted
	// first where the bound n allows it.
	if denseBases && 2*n > len(d) {
		if nz := nonZero(d); 2*nz > len(d) {
			f := denseBase(sc.arena, d, nz)
			f.prev, f.og = prev, -1
			if sc.arena != nil {
				sc.arena.add(f)
			}
			if sc.tagged {
				f.og, f.op = sc.self, sc.pos
			}
			return vclock{base: f}
		}
	}
	// The base holds d's non-zero components: gathered in scratch
	// first, so that its storage is no longer than they need (n, the
	// sum of the clock's lists, bounds them, but a delta's entries
	// raise its base's, and it may exceed every goroutine).
	flat := slices.Grow(sc.flat[:0], min(n, len(d)))
	for g, v := range d {
		if v != 0 {
			flat = append(flat, centry{int32(g), v})
		}
	}
	sc.flat = flat
	var ents []centry
	if sc.arena != nil {
		ents = sc.arena.alloc(len(flat))
	} else {
		ents = make([]centry, 0, len(flat))
	}
	ents = append(ents, flat...)
	f := &frozen{ents: ents, prev: prev, og: -1}
	if sc.arena != nil {
		sc.arena.add(f)
	}
	if sc.tagged {
		f.og, f.op = sc.self, sc.pos
	}
	return vclock{base: f}
}
