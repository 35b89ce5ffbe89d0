// This file implements compactBySet: compactEvents for a large table
// whose answers (which events to leave out) were found beforehand, on two
// cores, as a bit per event (dropSet). It moves the events kept in one pass
// and renumbers what names events from the bits themselves, rather than
// from an index per event: the events before the first one left out stay
// where they are, a run of 64 events kept is moved as a block, a
// receive's send is renumbered as its receive is moved, and the events
// left out are counted per goroutine while the answers are found.
//
// After the run, on a channel stress test, compactEvents asked a function
// per event for the answer found beforehand, wrote a new index per event
// (an array of 4 bytes an event, its pages faulted in afresh), and read
// the kept events again to renumber the receives' sends, most of its
// events kept (bench/RESULTS.md, "Compaction after the walk").
// The trace is the same as compactEvents makes (TestCompactBySetSame).

package trace

import "math/bits"

// dropSet asks drop of every event of events, half of them on a goroutine
// of its own, and returns the answers, a bit per event (set: left out),
// how many it leaves out, and how many of each goroutine's (by id). If r
// is not nil, it counts the objects the kept events name and makes r's
// table for them (objNames.start), so that compactObjects's first pass
// over the table is not needed. drop must only read.
func dropSet(events []Event, drop func(i int, e *Event) bool, r *objNames) (set []uint64, left int, perG []int) {
	n := len(events)
	if n == 0 {
		return nil, 0, nil
	}
	set = make([]uint64, (n+63)/64)
	h := n / 2 &^ 63 // the halves share no word of set
	var counts [2][]int
	var seen [2][]uint64
	answer := func(from, to int) {
		var c []int
		var named []uint64
		if r != nil {
			named = r.seen()
		}
		for i := from; i < to; i++ {
			e := &events[i]
			if !drop(i, e) {
				if r != nil {
					r.mark(named, e.Obj)
				}
				continue
			}
			set[i/64] |= 1 << (i % 64)
			for int(e.G) >= len(c) {
				c = append(c, make([]int, len(c)+64)...)
			}
			c[e.G]++
		}
		k := 1
		if to == h {
			k = 0
		}
		counts[k], seen[k] = c, named
	}
	inHalves(h, n, answer)
	if r != nil {
		for k, w := range seen[1] {
			seen[0][k] |= w
		}
		r.start(seen[0])
	}
	for _, c := range counts {
		for g, k := range c {
			if k == 0 {
				continue
			}
			for len(perG) <= g {
				perG = append(perG, 0) // up to the last goroutine with one left out, as compactEvents grows Local
			}
			perG[g] += k
			left += k
		}
	}
	return set, left, perG
}

// compactBySet is compactEvents (local.go) with the events to leave out
// given as dropSet's answers: set, left of them, perG of each goroutine.
// It returns how many it left out and rp.
func compactBySet(t *Trace, rp []uint32, set []uint64, left int, perG []int) (int, []uint32) {
	for len(t.Local) < max(len(t.Goroutines), len(perG)) {
		t.Local = append(t.Local, 0)
	}
	for g, k := range perG {
		t.Local[g] += k
	}
	if left == 0 {
		return 0, rp
	}
	n := len(t.Events)
	// before[w]: the events kept before event 64w, whose new index is
	// then before[w] + the events kept before it in its word.
	before := make([]int32, len(set))
	kept := 0
	first := -1 // the first word with an event left out
	for w, s := range set {
		before[w] = int32(kept)
		kept += min(64, n-64*w) - bits.OnesCount64(s)
		if first < 0 && s != 0 {
			first = w
		}
	}
	newIndex := func(j int) int32 {
		s := set[j/64]
		if s&(1<<(j%64)) != 0 {
			return -1
		}
		return before[j/64] + int32(bits.OnesCount64(^s&(1<<(j%64)-1)))
	}
	// renumber gives a kept receive its send's new index (a send past
	// the table keeps its own).
	renumber := func(e *Event) {
		if e.Op == OpRecv && e.Peer >= 0 && int(e.Peer) < n {
			e.Peer = newIndex(int(e.Peer))
		}
	}
	ev := t.Events
	// Receives kept before the first event left out: their sends are
	// before them (or past the table), and may still move.
	for i := range 64 * first {
		renumber(&ev[i])
	}
	// A word of events all kept is moved as a block; in another, only the
	// events kept are visited (its bits left clear, one at a time).
	k, keptRP := 64*first, min(64*first, len(rp))
	for w := first; w < len(set); w++ {
		lo, hi := 64*w, min(64*w+64, n)
		s := set[w]
		if s == 0 {
			copy(ev[k:], ev[lo:hi])
			if lo < len(rp) {
				keptRP += copy(rp[keptRP:], rp[lo:min(hi, len(rp))])
			}
			for i := k; i < k+hi-lo; i++ {
				renumber(&ev[i])
			}
			k += hi - lo
			continue
		}
		m := ^s // the events kept
		if hi-lo < 64 {
			m &= 1<<(hi-lo) - 1
		}
		for ; m != 0; m &= m - 1 {
			i := lo + bits.TrailingZeros64(m)
			ev[k] = ev[i]
			renumber(&ev[k])
			if i < len(rp) {
				rp[k] = rp[i]
				keptRP++
			}
			k++
		}
	}
	t.Events = ev[:k]
	if rp != nil {
		rp = rp[:keptRP]
	}
	vals := t.Values[:0]
	for _, v := range t.Values {
		if j := newIndex(v.Event); j >= 0 {
			v.Event = int(j)
			vals = append(vals, v)
		}
	}
	t.Values = vals
	return n - k, rp
}
