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

// TestAllocMapHits: find's remembered allocations (hit, hit2) must not
// outlive a malloc or free over them, be it a new life in the same slot,
// a free, or a malloc over part of one; nor hide an allocation next to
// them. Each step marks a record, or finds an address and wants an id.
func TestAllocMapHits(t *testing.T) {
	const a, b = 0x10000, 0x10040 // two slots of one page
	type step struct {
		kind       uint8 // rMalloc, rFree, or 0: find addr
		addr, size uint64
		want       uint32 // find's: the allocation's id, 0 for none
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"same slot reused", []step{{rMalloc, a, 32, 0}, {0, a + 8, 0, 1}, {rMalloc, a, 32, 0}, {0, a + 8, 0, 2}}},
		{"freed", []step{{rMalloc, a, 32, 0}, {0, a, 0, 1}, {rFree, a, 32, 0}, {0, a, 0, 0}}},
		{"freed second", []step{{rMalloc, a, 32, 0}, {rMalloc, b, 32, 0}, {0, a, 0, 1}, {0, b, 0, 2}, {rFree, a, 1, 0}, {0, a + 16, 0, 0}, {0, b + 8, 0, 2}}},
		{"part reused", []step{{rMalloc, a, 32, 0}, {0, a, 0, 1}, {rMalloc, a + 16, 8, 0}, {0, a, 0, 0}, {0, a + 16, 0, 2}}},
		{"other slots kept", []step{{rMalloc, a, 32, 0}, {0, a, 0, 1}, {rMalloc, b, 32, 0}, {rFree, b, 32, 0}, {0, a + 31, 0, 1}, {0, a + 32, 0, 0}}},
		{"swapped", []step{{rMalloc, a, 32, 0}, {rMalloc, b, 32, 0}, {0, a, 0, 1}, {0, b, 0, 2}, {0, a, 0, 1}, {rMalloc, b, 32, 0}, {0, b, 0, 3}, {0, a, 0, 1}}},
	} {
		m := newAllocMap()
		for i, s := range tc.steps {
			if s.kind != 0 {
				r := rawEvent{kind: s.kind, addr: s.addr, size: s.size}
				m.mark(&r)
				continue
			}
			got, _ := m.find(s.addr)
			if got.id != s.want {
				t.Errorf("%s: step %d: find(%#x) = %d, want %d", tc.name, i, s.addr, got.id, s.want)
			}
		}
	}
}

// TestAllocMapInPage: find's look in a page's list (inPage) tries the
// page's hint and a guess from the list's first and last starts before
// its search; each must be checked against the list as it is. Each case
// lays out one page's allocations (a size class's slots, holes, requested
// sizes short of the slot, an allocation from the page before, a list
// whose slots are not evenly apart), probes every 4th byte around the page
// in a random order twice (so that the hint is tried), frees and
// reallocates some, and probes again, with find's remembered allocations
// forgotten before each probe so that the page's list is what answers.
func TestAllocMapInPage(t *testing.T) {
	const page = 5 << pageShift
	type mal struct{ off, size uint64 }
	slots := func(from, n, stride, size uint64) []mal {
		var ms []mal
		for i := range n {
			ms = append(ms, mal{from + i*stride, size})
		}
		return ms
	}
	for _, tc := range []struct {
		name   string
		before []mal // made first
		frees  []mal // then freed, then the page probed again
		after  []mal // then made, then probed again
	}{
		{"dense", slots(0, 170, 48, 48), slots(48, 3, 96, 48), slots(48, 2, 96, 40)},
		{"short sizes", slots(0, 170, 48, 33), slots(0, 20, 48*7, 48), nil},
		{"holes", append(slots(0, 40, 96, 48), slots(4096, 64, 64, 64)...), slots(4096, 8, 128, 64), slots(4096+64, 8, 128, 64)},
		{"from the page before", append([]mal{{^uint64(0) - 999, 3000}}, slots(2001, 60, 100, 90)...), []mal{{^uint64(0) - 999, 1}}, []mal{{0, 8}}},
		{"uneven", []mal{{0, 8}, {16, 8}, {24, 1000}, {3000, 16}, {3016, 16}, {8000, 192}}, []mal{{16, 8}}, []mal{{8, 16}, {16, 8}}},
		{"one", []mal{{100, 200}}, []mal{{100, 1}}, []mal{{120, 10}}},
	} {
		rng := rand.New(rand.NewSource(2))
		m := newAllocMap()
		var live []alloc
		var n uint32
		apply := func(kind uint8, ms []mal) {
			for _, a := range ms {
				p := page + a.off // off ^0-999: before the page
				r := rawEvent{kind: kind, addr: p, size: a.size}
				m.mark(&r)
				kept := live[:0]
				for _, l := range live {
					if !(l.start < p+max(a.size, 1) && p < l.end) {
						kept = append(kept, l)
					}
				}
				live = kept
				if kind == rMalloc {
					n++
					live = append(live, alloc{start: p, end: p + max(a.size, 1), id: n})
				}
			}
		}
		probe := func(stage string) {
			for range 2 {
				for _, k := range rng.Perm((1<<pageShift + 128) / 4) {
					q := page - 64 + 4*uint64(k)
					var want alloc
					for _, a := range live {
						if a.start <= q && q < a.end {
							want = a
						}
					}
					m.hit, m.hit2 = alloc{}, alloc{}
					got, ok := m.find(q)
					if ok != (want.id != 0) || got != want {
						t.Fatalf("%s, %s: find(page%+d) = %+v, %v; want %+v", tc.name, stage, int64(q-page), got, ok, want)
					}
				}
			}
		}
		apply(rMalloc, tc.before)
		probe("made")
		apply(rFree, tc.frees)
		probe("freed")
		apply(rMalloc, tc.after)
		probe("made again")
	}
}
