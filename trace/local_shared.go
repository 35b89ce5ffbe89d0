// This file implements sharedLives on two cores: the two passes over the
// whole table that, once the walk is done, give the owners of the words of
// the lives more than one goroutine touched (local.go, local_lives.go),
// each split in two and run at once, after the run, when the recorded test
// no longer competes for the cores.
//
// On a channel stress test every message is a shared life, and the two
// passes read every one of its millions of events, one after the other,
// alone (bench/RESULTS.md, "Converter: events added directly"). Both
// compute what does not depend on the order in which the events are taken:
//
//   - the span of words each shared life's accesses touch (spansOf) only
//     widens, and a life is spread once it is too wide, so the spans of
//     two halves of the table, merged (mergeSpans), are those of the whole;
//   - the owner of a word (markOwner) is the goroutine that touched it if
//     it is the only one, else multiOwner, whatever the order of the
//     touches; so the dense lives' words are split by life between the two
//     (their words lie in own in life order, so the halves write apart),
//     and one of them alone marks the hash tables.
//
// The owners, and so the events left out, are the same as found in one
// pass each (TestSharedLivesSame).

package trace

import "runtime"

// twoCores reports whether a pass over n events is split over two cores:
// a large table (minParallelDrops, local_parallel.go), and two to run on.
func twoCores(n int) bool {
	return n >= minParallelDrops && runtime.GOMAXPROCS(0) >= 2
}

// atOnce calls a and b at once, b on a goroutine of its own, and returns
// when both have.
func atOnce(a, b func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b()
	}()
	a()
	<-done
}

// lifeSpans returns the span of words each shared life's accesses touch
// (spansOf), over events, on two cores for a large table; false where no
// life can be dense.
func lifeSpans(events []Event, lifeOwner []uint32) ([]lifeSpan, bool) {
	span := newSpans(len(lifeOwner))
	if !twoCores(len(events)) {
		return span, spansOf(events, lifeOwner, span)
	}
	h := len(events) / 2
	var other []lifeSpan
	var ok, okOther bool
	atOnce(func() { ok = spansOf(events[:h], lifeOwner, span) }, func() {
		other = newSpans(len(lifeOwner))
		okOther = spansOf(events[h:], lifeOwner, other)
	})
	if !ok || !okOther {
		return nil, false
	}
	mergeSpans(span, other)
	return span, true
}

// sharedLives adds to the owners the words of the lives that more than
// one goroutine touched, which only the whole trace tells: the dense
// lives' in lives (local_lives.go), the others' in the hash tables.
func (s *localScan) sharedLives(t *Trace) {
	if denseLives {
		s.lives = newLifeWords(t, s.lifeOwner, 2*len(t.Events)+1<<16)
	}
	mid := uint64(len(s.lifeOwner)) // the dense lives from mid on are marked on a core of their own
	if s.lives != nil && twoCores(len(t.Events)) {
		mid = s.lives.middle()
	}
	if mid == uint64(len(s.lifeOwner)) {
		s.markShared(t.Events, mid, false)
		return
	}
	atOnce(func() { s.markShared(t.Events, mid, false) }, func() { s.markShared(t.Events, mid, true) })
}

// markShared marks the owners of the words that events touch of shared
// lives: if high, those of the dense lives from mid on alone; else all
// others (the hash tables' among them).
func (s *localScan) markShared(events []Event, mid uint64, high bool) {
	for i := range events {
		e := &events[i]
		if e.Addr < lifeBase {
			continue
		}
		l := (e.Addr - lifeBase) >> lifeShift
		if s.lifeOwner[l] != multiOwner {
			continue
		}
		dense := s.lives != nil && s.lives.at[l].base != 0
		if high != (dense && l >= mid) {
			continue
		}
		owner := uint32(e.G)
		if !e.Op.IsAccess() {
			owner = multiOwner
		}
		if !dense || !s.lives.touch(owner, e.Addr, e.Size) {
			s.o.touch(owner, e.Addr, e.Size)
		}
	}
}

// middle returns the first dense life whose words lie in the second half
// of own, or len(at) if there is none.
func (lw *lifeWords) middle() uint64 {
	half := uint32(len(lw.own) / 2)
	for l, s := range lw.at {
		if s.base != 0 && s.base-1 >= half {
			return uint64(l)
		}
	}
	return uint64(len(lw.at))
}
