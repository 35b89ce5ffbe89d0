// This file implements chainMemo, a small direct-mapped cache in front of
// the converter's map of frame-pointer chains (convert.go's chainStack).
//
// Every synchronisation and atomic record carries the chain of return
// addresses the recorder's trampoline captured, and chainStack's map from
// (shadow stack, chain) to the stack it makes is looked up once per such
// record. The key is 120 bytes, so hashing it was most of the lookup: on
// x/sync's syncmap test, whose goroutines make the same few sync.Map
// atomics millions of times, it was the largest part of the converter's
// own stage (bench/RESULTS.md, "syncmap: lives handed over by a go
// statement"). A direct-mapped slot chosen by a cheap hash of the key's
// words, and the whole key compared, answers those repeats without hashing it; a
// slot that holds another key is a miss, and the map answers as before.

package trace

// chainMemoBits is log2 of the memo's slots (a variable for the tests,
// which make slots collide).
var chainMemoBits = 10

type chainMemoSlot struct {
	key chainKey
	v   chainStack
	ok  bool
}

// chainMemo is the cache: nil until first used.
type chainMemo []chainMemoSlot

// slot returns the slot of key: a multiplicative hash of its words (the
// chain's pcs up to its length), whose high bits pick the slot.
func (m chainMemo) slot(key *chainKey) *chainMemoSlot {
	const k = 0x9e3779b97f4a7c15
	h := (uint64(key.id)<<8 | uint64(key.n)) * k
	h = (h ^ key.top) * k
	for _, pc := range key.pcs[:min(int(key.n), len(key.pcs))] {
		h = (h ^ pc) * k
	}
	return &m[h>>(64-chainMemoBits)&uint64(len(m)-1)]
}

// get returns what put last stored for key, if its slot still holds it.
func (m chainMemo) get(key *chainKey) (chainStack, bool) {
	if m == nil {
		return chainStack{}, false
	}
	if s := m.slot(key); s.ok && s.key.same(key) {
		return s.v, true
	}
	return chainStack{}, false
}

// same reports whether k and o are the same key: their pcs past n are 0
// (chainStack), so only the first n are compared, rather than all twelve
// (bench/RESULTS.md, "the spool walk's owned accesses").
func (k *chainKey) same(o *chainKey) bool {
	if k.id != o.id || k.top != o.top || k.n != o.n || int(k.n) > len(k.pcs) {
		return false
	}
	for i := range k.n {
		if k.pcs[i] != o.pcs[i] {
			return false
		}
	}
	return true
}

// put stores v for key, in place of what its slot held.
func (m *chainMemo) put(key *chainKey, v chainStack) {
	if *m == nil {
		*m = make(chainMemo, 1<<chainMemoBits)
	}
	*m.slot(key) = chainMemoSlot{key: *key, v: v, ok: true}
}
