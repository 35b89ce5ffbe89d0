// This file implements the middle layer of a persistent vector clock
// (clock_vc.go): an immutable list of entries between a clock's base and
// its delta, so that a join into a clock whose long delta is shared costs
// what changed rather than a copy of that delta (issue 31, item 1).
//
// A clock is stored wherever it is released or snapshotted, and the
// stored copy shares its delta, so the next join into the goroutine's
// clock may not update that delta in place: it used to copy it whole to
// add a few entries. On pond's trace (bench/RESULTS.md, "pond's analysis")
// that was 925,758 copies of 636 entries on average, to add a few each,
// 4.6 GB of the run's 12.7 GB allocated. A shared delta is immutable
// (nobody updates a delta in place unless nobody else holds it), so such
// a join keeps it as the clock's middle layer, without copying it, and
// starts a new delta of what rose. The two-level scheme is the
// log-structured merge of O'Neil, Cheng, Gawlick and O'Neil ("The
// log-structured merge-tree", Acta Informatica 33(4), 1996, section 2):
// small recent changes in a small list, merged into the larger one when
// they reach a fraction of it. A later shared delta is copied while it is
// short; once it passes midDelta plus a sixteenth of the layer it is
// merged with the layer into a new one (the old layer stays with the
// clocks that hold it). Layer and delta together still fold into a new
// base at flattens' bound, as one long delta did, so the bases a pass
// makes, and the shortcuts that judge them (knowsBase), are as before.
//
// A clock's value is base ⊔ mid ⊔ delta; each mid entry exceeds the
// base's, and each delta entry exceeds both (so a rise found against the
// delta alone, on the same base and layer, is a rise of the clock).
// Lookups read one more sorted list. The tree clocks of Mathur,
// Pavlogiannis, Tunç and Viswanathan (ASPLOS 2022) make every join
// sublinear but change every reader of a clock; this keeps the readers'
// lists and removes the copy that led the profile.

package predict

import (
	"slices"
	"sync/atomic"
)

// layer is a clock's middle layer: sorted entries, never changed once
// made, shared by every clock made from the one that made it.
type layer struct{ ents []centry }

var (
	// midLayers lets a join keep a shared delta as a middle layer; tests
	// turn it off to compare with the clocks of one delta.
	midLayers = true
	// midDelta is how long a shared delta may be, beyond a sixteenth of
	// the layer, before a join merges it into the layer rather than
	// copying it. With a layer of m entries, a join that adds k entries
	// to a delta copied at every join costs about midDelta/2 + m/32
	// copied entries plus k·m/(midDelta+m/16) for the merges, against m
	// when the delta held everything.
	midDelta = 32
	// layersMade, for tests, counts the layers made since the process
	// started (atomic: an analysis runs its SHB pass on a second goroutine).
	layersMade atomic.Int64
)

// midEnts returns c's middle-layer entries (nil without one).
func (c vclock) midEnts() []centry {
	if c.mid == nil {
		return nil
	}
	return c.mid.ents
}

// over returns the number of entries above c's base: layer and delta.
func (c vclock) over() int { return len(c.midEnts()) + len(c.delta) }

// grown returns c with the sorted entries add, each above every one of
// c's lists, merged in: into c's delta in place if own (nobody else holds
// it) and it has room; else into a new delta, the shared one kept as (or
// merged into) the middle layer when it is long. It reports whether the
// result's delta is new (held by nobody else).
func (c vclock) grown(own bool, add []centry) (vclock, bool) {
	if own && cap(c.delta)-len(c.delta) >= len(add) {
		c.delta = mergeMaxInPlace(c.delta, add)
		return c, false
	}
	if midLayers && len(c.delta) > midDelta+len(c.midEnts())/16 {
		// The delta becomes the layer (or is merged into it): it is
		// never updated in place again, as the clock that may have
		// owned it is replaced by the result.
		if c.mid == nil {
			c.mid = &layer{ents: c.delta}
		} else {
			c.mid = &layer{ents: mergeMaxTo(make([]centry, 0, len(c.mid.ents)+len(c.delta)), c.mid.ents, c.delta)}
		}
		layersMade.Add(1)
		c.delta = slices.Clone(add)
		return c, true
	}
	// A new slice (add is not empty). Its size class may leave room to
	// grow in place; more slack costs more than it saves, as clocks are
	// shared (released, snapshotted) about as often as they grow.
	c.delta = mergeMaxTo(make([]centry, 0, len(c.delta)+len(add)), c.delta, add)
	return c, true
}

// overTo appends to out c's entries above its base, sorted: layer and
// delta merged. out must not overlap them.
func (c vclock) overTo(out []centry) []centry {
	if c.mid == nil {
		return append(out, c.delta...)
	}
	return mergeMaxTo(out, c.mid.ents, c.delta)
}

// allTo appends to out every stored entry of c, sorted, one a goroutine
// (the largest). out must not overlap c's lists.
func (c vclock) allTo(out []centry) []centry {
	var b []centry
	if c.base != nil {
		if c.base.n > 0 {
			return mergeDenseTo(out, c.base.dense(), c.midEnts(), c.delta) // clock_base_dense.go
		}
		b = c.base.ents
	}
	return merge3To(out, b, c.midEnts(), c.delta)
}

// merge3To is mergeMaxTo for three sorted lists.
func merge3To(out, a, b, c []centry) []centry {
	switch {
	case len(a) == 0:
		return mergeMaxTo(out, b, c)
	case len(b) == 0:
		return mergeMaxTo(out, a, c)
	case len(c) == 0:
		return mergeMaxTo(out, a, b)
	}
	out = slices.Grow(out, len(a)+len(b)+len(c))
	// The longest first: a base with a short layer and delta (most
	// clocks) is copied in runs (merge3Few).
	if len(b) > len(a) {
		a, b = b, a
	}
	if len(c) > len(a) {
		a, c = c, a
	}
	if 8*(len(b)+len(c)) < len(a) {
		return merge3Few(out, a, b, c)
	}
	for len(a) > 0 || len(b) > 0 || len(c) > 0 {
		g := int32(1<<31 - 1)
		if len(a) > 0 {
			g = a[0].g
		}
		if len(b) > 0 && b[0].g < g {
			g = b[0].g
		}
		if len(c) > 0 && c[0].g < g {
			g = c[0].g
		}
		v := int32(0)
		if len(a) > 0 && a[0].g == g {
			v, a = max(v, a[0].v), a[1:]
		}
		if len(b) > 0 && b[0].g == g {
			v, b = max(v, b[0].v), b[1:]
		}
		if len(c) > 0 && c[0].g == g {
			v, c = max(v, c[0].v), c[1:]
		}
		out = append(out, centry{g, v})
	}
	return out
}

// merge3Few is merge3To for lists b and c much shorter than a: as
// mergeFewTo, each entry of b and c merged (the larger value for a
// goroutine in both) is found in a by a galloping search, and the runs
// of a between them are copied whole.
func merge3Few(out, a, b, c []centry) []centry {
	i := 0
	for len(b) > 0 || len(c) > 0 {
		var e centry
		switch {
		case len(c) == 0 || len(b) > 0 && b[0].g < c[0].g:
			e, b = b[0], b[1:]
		case len(b) == 0 || c[0].g < b[0].g:
			e, c = c[0], c[1:]
		default:
			e = centry{b[0].g, max(b[0].v, c[0].v)}
			b, c = b[1:], c[1:]
		}
		out, i = mergeAt(out, a, i, e) // clock_vc.go
	}
	return append(out, a[i:]...)
}
