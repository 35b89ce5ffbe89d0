// This file implements pairTable, how handoffs (race_handoff_hops.go)
// finds a pair of goroutines when there are too many goroutines for a
// table indexed by the pair: an open-addressing hash table (linear
// probing, Fibonacci hashing: Knuth, The Art of Computer Programming
// vol. 3, §6.4) whose entry holds the pair's key, its slot and its tail,
// so that finding a pair and its latest hop is one read of one entry.
//
// It replaced a Go map from the pair to its slot, beside a slice of
// tails by slot and, once sealed, the slot's offsets into the hops: on
// the channel stress suite of 100,000 channels, whose million pairs of
// goroutines see one hop each, an add was a map lookup and a tail, and
// a lookup a map lookup, the offsets and the hop, each a miss far
// outside the caches, and the map's lookups led the handoff check
// (bench/RESULTS.md, "the handoff check's pairs in one table"). A
// pair's latest hop answers every question asked of it from after that
// hop, which for one hop a pair is every question that finds one.

package predict

// pairEnt is a pair's entry: its handoffKey (emptyPair: a free entry),
// its slot and its tail (hopTail: kept once sealed, when its last, the
// log's index, only says that the pair has a hop).
type pairEnt struct {
	key  uint64
	slot int32
	hopTail
}

// emptyPair marks a free entry: no goroutine is numbered -1.
const emptyPair = ^uint64(0)

// pairTableMin is the fewest entries a table has.
const pairTableMin = 1 << 10

// pairTable maps a pair of goroutines to its entry. Its length is a power
// of two and it is at most three quarters full.
type pairTable struct {
	ents  []pairEnt
	shift uint // 64 - log2(len(ents))
	n     int  // entries in use
}

// newPairTable returns a table with room for hint pairs before it grows.
func newPairTable(hint int) pairTable {
	size := pairTableMin
	for size*3/4 < hint {
		size *= 2
	}
	var t pairTable
	t.alloc(size)
	return t
}

func (t *pairTable) alloc(size int) {
	t.ents = make([]pairEnt, size)
	for i := range t.ents {
		t.ents[i].key = emptyPair
	}
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
}

// home returns the entry where k's probe starts.
func (t *pairTable) home(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> t.shift)
}

// find returns k's entry, or nil.
func (t *pairTable) find(k uint64) *pairEnt {
	mask := len(t.ents) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		e := &t.ents[i]
		if e.key == k {
			return e
		}
		if e.key == emptyPair {
			return nil
		}
	}
}

// get returns k's entry; if it has none, a new one with the given slot
// and an empty tail, and made true. The entry is valid until the next
// get.
func (t *pairTable) get(k uint64, slot int32) (e *pairEnt, made bool) {
	if (t.n+1)*4 > len(t.ents)*3 {
		t.grow()
	}
	mask := len(t.ents) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		e := &t.ents[i]
		if e.key == k {
			return e, false
		}
		if e.key == emptyPair {
			*e = pairEnt{key: k, slot: slot}
			t.n++
			return e, true
		}
	}
}

// grow doubles the table.
func (t *pairTable) grow() {
	old := t.ents
	t.alloc(2 * len(old))
	mask := len(t.ents) - 1
	for _, e := range old {
		if e.key == emptyPair {
			continue
		}
		i := t.home(e.key)
		for t.ents[i].key != emptyPair {
			i = (i + 1) & mask
		}
		t.ents[i] = e
	}
}
