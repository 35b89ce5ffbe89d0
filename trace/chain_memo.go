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

// slot returns the slot of key (see at).
func (m chainMemo) slot(key *chainKey) *chainMemoSlot {
	return m.at(key.id, key.top, key.pcs[:min(int(key.n), len(key.pcs))])
}

// at returns the slot of the key (id, top, pcs): a multiplicative hash of
// its words (the chain's pcs, as many as it has), whose high bits pick
// the slot.
func (m chainMemo) at(id StackID, top uint64, pcs []uint64) *chainMemoSlot {
	const k = 0x9e3779b97f4a7c15
	h := (uint64(id)<<8 | uint64(uint8(len(pcs)))) * k
	h = (h ^ top) * k
	for _, pc := range pcs {
		h = (h ^ pc) * k
	}
	return &m[h>>(64-chainMemoBits)&uint64(len(m)-1)]
}

// get returns what put last stored for key, if its slot still holds it.
func (m chainMemo) get(key *chainKey) (chainStack, bool) {
	return m.find(key.id, key.top, key.pcs[:min(int(key.n), len(key.pcs))])
}

// find is get of the key (id, top, pcs) without the key: chainStack asks
// it of every atomic and synchronisation record, and making the 120-byte
// key first (zeroed, the chain copied in) was a large share of the
// lookup's instructions (bench/RESULTS.md, branch sync9). The slot holds that key
// if its id, top, length and pcs are these; its pcs past the length are
// 0 (chainStack), so only the first len(pcs) are compared (bench/RESULTS.md,
// "the spool walk's owned accesses").
func (m chainMemo) find(id StackID, top uint64, pcs []uint64) (chainStack, bool) {
	if m == nil || len(pcs) > len(chainKey{}.pcs) {
		return chainStack{}, false
	}
	s := m.at(id, top, pcs)
	if !s.ok || s.key.id != id || s.key.top != top || int(s.key.n) != len(pcs) {
		return chainStack{}, false
	}
	for i, pc := range pcs {
		if s.key.pcs[i] != pc {
			return chainStack{}, false
		}
	}
	return s.v, true
}

// put stores v for key, in place of what its slot held.
func (m *chainMemo) put(key *chainKey, v chainStack) {
	if *m == nil {
		*m = make(chainMemo, 1<<chainMemoBits)
	}
	*m.slot(key) = chainMemoSlot{key: *key, v: v, ok: true}
}
