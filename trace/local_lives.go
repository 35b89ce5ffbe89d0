// This file implements the owners of the words of shared heap lives
// (lifeWords): compactLocal's word table (owners.words, local.go) for
// the heap lives that more than one goroutine touched, kept as one dense
// array of each life's words instead of entries of the hash table.
//
// Once the whole trace is converted, compactLocal marks the owner of every
// word of such a life (sharedLives) and then asks, access by access,
// whether its words are its goroutine's alone. On a channel stress test
// every message is such a life (its producer writes it, its consumer
// reads it): millions of words, each a random probe of a table far larger
// than the caches, were most of the conversion left after the run
// (bench/RESULTS.md, "stress-chan-3m: the owners of shared lives"). Here
// a life's words sit side by side, lives in the order they were
// allocated, which is about the order events name them.
//
// The answers are the same as the hash table's (TestLifeWordsSame): a
// life is 1<<lifeShift bytes of trace addresses of its own, so its words
// and pages are no other memory's, and a life is kept here only when
// nothing could make its pages matter: all of its accesses are small
// (less than smallWords words, the accesses the word table takes) and
// lie within lifeSpanWords words, and no access of the trace runs from
// one life, or from memory below the lives, into another. The others
// stay in the hash tables, as before.

package trace

// lifeSpanWords bounds the words between a dense life's first and last
// word touched: what its array costs at most. It is at most smallWords,
// so that every access of a dense life is one the word table takes.
const lifeSpanWords = smallWords

var _ [smallWords - lifeSpanWords]struct{} // lifeSpanWords <= smallWords

// lifeWords holds the owners of the words of the dense lives: life l's
// word w (from the life's start) is own[at[l].base-1 + w - at[l].lo],
// where at[l].base is not 0.
type lifeWords struct {
	at   []lifeSpan // by life number; base 0: not dense
	own  []uint32   // goroutine, or multiOwner
	load []uint32   // the shared lives' events, per 1<<loadBits lives (local_shared.go)
}

// lifeSpan is where a dense life's words sit in own: its first word
// touched (lo) at own[base-1].
type lifeSpan struct{ lo, base uint32 }

// denseLives is false to keep every shared life in the hash tables, for
// the tests that compare the two.
var denseLives = true

// lifeWord returns the life of a and a's word within it.
func lifeWord(a uint64) (life uint64, w uint32) {
	return (a - lifeBase) >> lifeShift, uint32(((a - lifeBase) & (1<<lifeShift - 1)) >> wordShift)
}

// newLifeWords lays out the dense lives of t's shared lives (those whose
// lifeOwner is multiOwner), or returns nil where none can be (an access
// runs from one life into another). budget bounds own's length: the lives
// past it stay in the hash tables.
func newLifeWords(t *Trace, lifeOwner []uint32, budget int) *lifeWords {
	// First the span of words each shared life's accesses touch
	// (lifeSpans, local_shared.go), then each dense life's place in own,
	// in life order.
	span, load, ok := lifeSpans(t.Events, lifeOwner)
	if !ok {
		return nil
	}
	n := 0
	for l := range span {
		s := &span[l]
		if s.lo == spanSpread || s.base < s.lo || n+int(s.base-s.lo)+1 > budget {
			*s = lifeSpan{}
			continue
		}
		lo, hi := s.lo, s.base
		*s = lifeSpan{lo: lo, base: uint32(n + 1)}
		n += int(hi-lo) + 1
	}
	if n == 0 {
		return nil
	}
	return &lifeWords{at: span, own: make([]uint32, n), load: load}
}

// spanSpread is a span's lo for a life that cannot be dense.
const spanSpread = ^uint32(0)

// newSpans returns a span per life, none touched yet (hi < lo).
func newSpans(lives int) []lifeSpan {
	span := make([]lifeSpan, lives)
	for l := range span {
		span[l] = lifeSpan{lo: 1, base: 0}
	}
	return span
}

// spansOf widens span by the words each shared life's access among events
// touches: lo, and hi in base's place for now (hi < lo: none yet), or lo
// spanSpread for a life that cannot be dense; it counts the events of
// shared lives in load, per 1<<loadBits lives. It reports false where no
// life can be dense (an access runs into the lives, or from one life into
// another). The spans it makes do not depend on the order of the events
// (a span only widens, and a life is spread once its span is too wide),
// so halves of a table can be taken apart and merged (mergeSpans).
func spansOf(events []Event, lifeOwner []uint32, span []lifeSpan, load []uint32) bool {
	for i := range events {
		e := &events[i]
		if e.Addr < lifeBase {
			if (e.Op.IsAccess() || e.Addr != 0) && e.Addr+uint64(max(e.Size, 1))-1 >= lifeBase {
				return false // runs into the lives
			}
			continue
		}
		l, w0 := lifeWord(e.Addr)
		if lifeOwner[l] != multiOwner {
			continue
		}
		load[l>>loadBits]++
		last := e.Addr + uint64(max(e.Size, 1)) - 1
		if last < e.Addr {
			return false // wraps: the hash tables take it as they always have
		}
		l1, w1 := lifeWord(last)
		if l1 != l {
			return false
		}
		span[l].widen(w0, w1)
	}
	return true
}

// widen widens a span (lo, hi in base's place) by words w0 to w1.
func (s *lifeSpan) widen(w0, w1 uint32) {
	if s.lo == spanSpread {
		return
	}
	if hi := &s.base; *hi < s.lo {
		s.lo, *hi = w0, w1
	} else {
		s.lo, *hi = min(s.lo, w0), max(*hi, w1)
	}
	if s.base-s.lo >= lifeSpanWords {
		s.lo = spanSpread
	}
}

// mergeSpans widens each span of into by the same life's of from, as if
// from's events had been taken into into (spansOf).
func mergeSpans(into, from []lifeSpan) {
	for l := range into {
		switch f := from[l]; {
		case f.lo == spanSpread:
			into[l].lo = spanSpread
		case f.base >= f.lo:
			into[l].widen(f.lo, f.base)
		}
	}
}

// words returns the owners of life l's words w0 to w1, or nil if l is not
// dense.
func (lw *lifeWords) words(l uint64, w0, w1 uint32) []uint32 {
	if lw == nil {
		return nil
	}
	s := lw.at[l]
	if s.base == 0 {
		return nil
	}
	at := int(s.base-1) + int(w0-s.lo)
	return lw.own[at : at+int(w1-w0)+1]
}

// markWords notes that goroutine g (or multiOwner) touched the words
// whose owners are ws (a dense life's, lifeWords.words), as markOwner
// does in the hash tables.
func markWords(ws []uint32, g uint32) {
	for i, v := range ws {
		switch v {
		case 0:
			ws[i] = g
		case g:
		default:
			ws[i] = multiOwner
		}
	}
}

// ownedWords reports whether no goroutine but g touched the words whose
// owners are ws (a dense life's, lifeWords.words), as owners.local does in
// the hash tables.
func ownedWords(ws []uint32, g uint32) bool {
	for _, v := range ws {
		if v != g {
			return false
		}
	}
	return true
}
