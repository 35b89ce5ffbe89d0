// This file tests the address model (addrs.go) against brute force:
// locations are the connected runs of overlapping accesses, and the paged
// last-writer map answers as a map per byte does.

package predict

import (
	"math/rand"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func TestGroupAccesses(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for it := 0; it < 300; it++ {
		var ev []trace.Event
		for i := 0; i < 1+r.Intn(60); i++ {
			e := trace.Event{Op: trace.OpRead, Addr: uint64(r.Intn(400)), Size: uint32(1 + r.Intn(20))}
			switch r.Intn(6) {
			case 0:
				e.Op = trace.OpLock // not an access
			case 1:
				e.Size = uint32(1 + r.Intn(300))
			}
			ev = append(ev, e)
		}
		loc, spans := groupAccesses(ev)
		// Brute force: union overlapping accesses.
		parent := make([]int, len(ev))
		for i := range parent {
			parent[i] = i
		}
		var find func(int) int
		find = func(i int) int {
			if parent[i] != i {
				parent[i] = find(parent[i])
			}
			return parent[i]
		}
		for i := range ev {
			for j := range ev {
				if isMem(&ev[i]) && isMem(&ev[j]) && overlap(ev[i].Addr, ev[i].Size, ev[j].Addr, ev[j].Size) {
					parent[find(i)] = find(j)
				}
			}
		}
		for i := range ev {
			if !isMem(&ev[i]) {
				if loc[i] != -1 {
					t.Fatalf("non-access %d has location %d", i, loc[i])
				}
				continue
			}
			s := spans[loc[i]]
			if ev[i].Addr < s.lo || ev[i].End() > s.hi {
				t.Fatalf("access %d [%d,%d) outside its location [%d,%d)", i, ev[i].Addr, ev[i].End(), s.lo, s.hi)
			}
			for j := range ev {
				if isMem(&ev[j]) && (find(i) == find(j)) != (loc[i] == loc[j]) {
					t.Fatalf("accesses %d and %d: same run %v, same location %v", i, j, find(i) == find(j), loc[i] == loc[j])
				}
			}
		}
		for k := 1; k < len(spans); k++ {
			if spans[k].lo < spans[k-1].hi {
				t.Fatalf("locations overlap: %v", spans)
			}
		}
	}
}

func TestWriterMap(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for it := 0; it < 200; it++ {
		s := span{1000, 1000 + uint64(1+r.Intn(3*pageSize))}
		wm := newWriterMap()
		wm.track(3, s)
		want := map[uint64]int32{}
		for op := 0; op < 40; op++ {
			a := s.lo + uint64(r.Intn(int(s.hi-s.lo)))
			size := uint32(1 + r.Intn(int(s.hi-a)))
			if r.Intn(4) == 0 {
				a, size = s.lo, uint32(s.hi-s.lo)
			}
			if r.Intn(2) == 0 {
				w := int32(op)
				wm.write(3, a, size, w)
				for b := a; b < a+uint64(size); b++ {
					want[b] = w
				}
				continue
			}
			next := a
			prev := int32(-3)
			wm.read(3, a, size, func(lo, hi uint64, w int32) {
				if lo != next || hi <= lo || w == prev {
					t.Fatalf("runs not maximal and contiguous: [%d,%d) after %d", lo, hi, next)
				}
				for b := lo; b < hi; b++ {
					x, ok := want[b]
					if !ok {
						x = -1
					}
					if x != w {
						t.Fatalf("byte %d: writer %d, want %d", b, w, x)
					}
				}
				next, prev = hi, w
			})
			if next != a+uint64(size) {
				t.Fatalf("runs end at %d, want %d", next, a+uint64(size))
			}
		}
	}
}
