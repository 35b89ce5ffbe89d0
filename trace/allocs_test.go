package trace

import (
	"math/rand"
	"testing"
)

// TestAllocMapModel applies random allocations and frees, small, page
// crossing and large, to an allocMap and to a list of live allocations,
// and wants find to agree with the list at every address probed.
func TestAllocMapModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	sizes := []uint64{0, 1, 8, 24, 100, 4096, 9000, 1 << 16, 1<<16 + 1, 200000}
	for round := range 20 {
		m := newAllocMap()
		var live []alloc // the model: allocations do not overlap
		var n uint32
		end := func(p, size uint64) {
			e := p + size
			kept := live[:0]
			for _, a := range live {
				if !(a.start < e && p < a.end) {
					kept = append(kept, a)
				}
			}
			live = kept
		}
		const span = 1 << 20
		for range 3000 {
			p := uint64(1<<30) + uint64(rng.Intn(span))&^7
			size := sizes[rng.Intn(len(sizes))]
			switch rng.Intn(3) {
			case 0, 1:
				m.malloc(p, size)
				size = max(size, 1)
				end(p, size)
				n++
				live = append(live, alloc{start: p, end: p + size, id: n})
			case 2:
				m.free(p, size)
				end(p, max(size, 1))
			}
			for range 8 {
				q := uint64(1<<30) + uint64(rng.Intn(span+1<<18))
				var want alloc
				for _, a := range live {
					if a.start <= q && q < a.end {
						want = a
					}
				}
				got, ok := m.find(q)
				if ok != (want.id != 0) || got != want {
					t.Fatalf("round %d: find(%#x) = %+v, %v; want %+v", round, q, got, ok, want)
				}
			}
		}
	}
}
