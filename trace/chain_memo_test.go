// This file tests chain_memo.go: the memo answers only what the map
// would, for keys that share their slot (one slot, four: keys that differ
// in one word of the chain) and keys that do not.

package trace

import (
	"math/rand"
	"testing"
)

func TestChainMemoSame(t *testing.T) {
	was := chainMemoBits
	defer func() { chainMemoBits = was }()
	for _, bits := range []int{0, 2, 8} {
		chainMemoBits = bits
		r := rand.New(rand.NewSource(int64(bits)))
		var keys []chainKey
		for range 40 {
			k := chainKey{id: StackID(r.Intn(3)), top: uint64(r.Intn(2)), n: uint8(1 + r.Intn(3))}
			k.pcs[0] = uint64(0x1000 + r.Intn(2))
			for i := 1; i < int(k.n); i++ {
				k.pcs[i] = uint64(0x2000 + r.Intn(4))
			}
			keys = append(keys, k)
		}
		ref := map[chainKey]chainStack{}
		var memo chainMemo
		hits := 0
		for i := range 5000 {
			k := keys[r.Intn(len(keys))]
			if v, ok := memo.get(&k); ok {
				hits++
				if w, known := ref[k]; !known || v.id != w.id {
					t.Fatalf("%d slots, lookup %d: the memo answered %d for %+v, the map %d (known %v)", 1<<bits, i, v.id, k, w.id, known)
				}
				continue
			}
			v, known := ref[k]
			if !known {
				v = chainStack{id: StackID(len(ref) + 1)}
				ref[k] = v
			}
			memo.put(&k, v)
		}
		if hits == 0 {
			t.Fatalf("%d slots: no lookup hit the memo", 1<<bits)
		}
	}
}
