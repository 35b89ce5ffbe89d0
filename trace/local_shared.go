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
//     touches; so the shared lives are split in two by life, about half
//     of their events each (lifeWords.load), their dense words lying apart
//     in own (in life order), the second's other words marked in hash
//     tables of its own, added to the first's after (markOwner again).
//
// The owners, and so the events left out, are the same as found in one
// pass each (TestSharedLivesSame).

package trace

// loadBits is log2 of the lives whose events spansOf counts together
// (lifeWords.load), by which sharedLives splits the lives in two halves
// (a variable for the tests, whose traces have a few lives).
var loadBits = 10

// lifeSpans returns the span of words each shared life's accesses touch
// (spansOf), over events, on two cores for a large table, and the events
// of the shared lives per 1<<loadBits lives; false where no life can be
// dense.
func lifeSpans(events []Event, lifeOwner []uint32) ([]lifeSpan, []uint32, bool) {
	span, load := newSpans(len(lifeOwner)), make([]uint32, len(lifeOwner)>>loadBits+1)
	if !twoCores(len(events)) {
		return span, load, spansOf(events, lifeOwner, span, load)
	}
	h := len(events) / 2
	var other []lifeSpan
	var otherLoad []uint32
	var ok, okOther bool
	atOnce(func() { ok = spansOf(events[:h], lifeOwner, span, load) }, func() {
		other, otherLoad = newSpans(len(lifeOwner)), make([]uint32, len(load))
		okOther = spansOf(events[h:], lifeOwner, other, otherLoad)
	})
	if !ok || !okOther {
		return nil, nil, false
	}
	mergeSpans(span, other)
	for k, n := range otherLoad {
		load[k] += n
	}
	return span, load, true
}

// sharedLives adds to the owners the words of the lives that more than
// one goroutine touched, which only the whole trace tells: the dense
// lives' in lives (local_lives.go), the others' in the hash tables. On
// two cores, the lives from mid on, about half of the shared lives'
// events, are marked on a goroutine of their own, the words of those
// that are not dense in hash tables of its own, added to the others' at
// the end (markOwner, whatever the order).
func (s *localScan) sharedLives(t *Trace) {
	if denseLives {
		s.lives = newLifeWords(t, s.lifeOwner, 2*len(t.Events)+1<<16)
	}
	mid := uint64(len(s.lifeOwner))
	if s.lives != nil && twoCores(len(t.Events)) {
		mid = s.lives.middle()
	}
	if mid >= uint64(len(s.lifeOwner)) {
		s.markShared(t.Events, mid, false, s.o)
		return
	}
	high := newOwners()
	atOnce(func() { s.markShared(t.Events, mid, false, s.o) }, func() { s.markShared(t.Events, mid, true, high) })
	for _, tab := range [...]struct{ into, from *addrTable }{{s.o.words, high.words}, {s.o.all, high.all}, {s.o.large, high.large}} {
		for k, key := range tab.from.keys {
			if key != 0 {
				markOwner(tab.into, key-1, tab.from.vals[k])
			}
		}
	}
}

// markShared marks the owners of the words that events touch of shared
// lives: if high, of the lives from mid on, else of those before it; the
// words of lives not dense in o.
func (s *localScan) markShared(events []Event, mid uint64, high bool, o *owners) {
	for i := range events {
		e := &events[i]
		if e.Addr < lifeBase {
			continue
		}
		l, w0 := lifeWord(e.Addr)
		if high != (l >= mid) || s.lifeOwner[l] != multiOwner {
			continue
		}
		owner := uint32(e.G)
		if !e.Op.IsAccess() {
			owner = multiOwner
		}
		_, w1 := lifeWord(e.Addr + uint64(max(e.Size, 1)) - 1)
		if ws := s.lives.words(l, w0, w1); ws != nil {
			markWords(ws, owner)
		} else {
			o.touch(owner, e.Addr, e.Size)
		}
	}
}

// middle returns the first life of the 1<<loadBits past which about half
// of the shared lives' events lie.
func (lw *lifeWords) middle() uint64 {
	total := uint64(0)
	for _, n := range lw.load {
		total += uint64(n)
	}
	sum := uint64(0)
	for k, n := range lw.load {
		if sum += uint64(n); 2*sum >= total {
			return uint64(k+1) << loadBits
		}
	}
	return uint64(len(lw.at))
}
