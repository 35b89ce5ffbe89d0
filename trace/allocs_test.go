package trace

import (
	"math/rand"
	"slices"
	"testing"
)

// TestAllocMapModel applies random allocation and free records, small,
// page crossing and large, to an allocMap and to a list of live
// allocations, and wants find to agree with the list at every address
// probed, and each record to report the allocations it ended.
func TestAllocMapModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	sizes := []uint64{0, 1, 8, 24, 100, 4096, 9000, 1 << 16, 1<<16 + 1, 200000}
	for round := range 20 {
		m := newAllocMap()
		var live []alloc // the model: allocations do not overlap
		var n uint32
		var ended []uint64 // the model's: the allocations the last record ended
		end := func(p, size uint64) {
			e := p + size
			kept := live[:0]
			ended = ended[:0]
			for _, a := range live {
				if !(a.start < e && p < a.end) {
					kept = append(kept, a)
				} else {
					ended = append(ended, uint64(a.id))
				}
			}
			live = kept
		}
		// Four regions a half leaf of pageLists apart, the first
		// across the boundary of two leaves.
		const span = 1 << 20
		const base = 3<<(pageShift+pageLeafBits) - span/2
		region := func() uint64 { return uint64(rng.Intn(4)) << (pageShift + pageLeafBits - 1) }
		for range 3000 {
			p := base + region() + uint64(rng.Intn(span))&^7
			size := sizes[rng.Intn(len(sizes))]
			r := rawEvent{kind: rFree, addr: p, size: size}
			if rng.Intn(3) < 2 {
				r.kind = rMalloc
			}
			m.mark(&r)
			end(p, max(size, 1))
			if r.kind == rMalloc {
				n++
				live = append(live, alloc{start: p, end: p + max(size, 1), id: n})
			}
			got := r.pcs
			if r.aid != 0 {
				got = []uint64{uint64(r.aid)}
			}
			slices.Sort(got)
			slices.Sort(ended)
			if !slices.Equal(got, ended) {
				t.Fatalf("round %d: %d %#x+%d ended %v, want %v", round, r.kind, p, size, got, ended)
			}
			for range 8 {
				q := base + region() + uint64(rng.Intn(span+1<<18))
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
