// This file tests the address model (locations.go) against brute force:
// locations are the connected runs of overlapping accesses, and the paged
// last-writer map answers as a map per byte does.

package trace

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

func TestGroupAccesses(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for it := 0; it < 300; it++ {
		var ev []Event
		for i := 0; i < 1+r.Intn(60); i++ {
			e := Event{Op: OpRead, Addr: uint64(r.Intn(400)), Size: uint32(1 + r.Intn(20))}
			switch r.Intn(6) {
			case 0:
				e.Op = OpLock // not an access
			case 1:
				e.Size = uint32(1 + r.Intn(300))
			case 2:
				if r.Intn(4) == 0 { // wraps around: not an access
					e.Addr = math.MaxUint64 - uint64(r.Intn(4))
				}
			}
			ev = append(ev, e)
		}
		loc, spans := GroupAccesses(ev)
		checkGroups(t, ev, loc, spans)
	}
}

// checkGroups checks GroupAccesses's answer for ev against brute force:
// the locations are the connected runs of overlapping accesses, in
// address order.
func checkGroups(t *testing.T, ev []Event, loc []int32, spans []Span) {
	t.Helper()
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
			if ev[i].IsMem() && ev[j].IsMem() && ev[i].Overlaps(&ev[j]) {
				parent[find(i)] = find(j)
			}
		}
	}
	for i := range ev {
		if !ev[i].IsMem() {
			if loc[i] != -1 {
				t.Fatalf("non-access %d has location %d", i, loc[i])
			}
			continue
		}
		s := spans[loc[i]]
		if ev[i].Addr < s.Lo || ev[i].End() > s.Hi {
			t.Fatalf("access %d [%d,%d) outside its location [%d,%d)", i, ev[i].Addr, ev[i].End(), s.Lo, s.Hi)
		}
		for j := range ev {
			if ev[j].IsMem() && (find(i) == find(j)) != (loc[i] == loc[j]) {
				t.Fatalf("accesses %d and %d: same run %v, same location %v", i, j, find(i) == find(j), loc[i] == loc[j])
			}
		}
	}
	for k := 1; k < len(spans); k++ {
		if spans[k].Lo < spans[k-1].Hi {
			t.Fatalf("locations overlap: %v", spans)
		}
	}
}

func TestWriterMap(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for it := 0; it < 200; it++ {
		s := Span{1000, 1000 + uint64(1+r.Intn(3*pageSize))}
		wm := NewWriterMap()
		wm.Track(3, s)
		want := map[uint64]int32{}
		for op := 0; op < 40; op++ {
			a := s.Lo + uint64(r.Intn(int(s.Hi-s.Lo)))
			size := uint32(1 + r.Intn(int(s.Hi-a)))
			if r.Intn(4) == 0 {
				a, size = s.Lo, uint32(s.Hi-s.Lo)
			}
			if r.Intn(10) == 0 {
				// Forgotten and tracked again, the location is
				// as new: every byte has the initial writer.
				wm.Forget(3)
				if wm.Tracked(3) {
					t.Fatal("a forgotten location is still tracked")
				}
				wm.Track(3, s)
				clear(want)
			}
			if r.Intn(2) == 0 {
				w := int32(op)
				wm.Write(3, a, size, w)
				for b := a; b < a+uint64(size); b++ {
					want[b] = w
				}
				continue
			}
			next := a
			prev := int32(-3)
			wm.Read(3, a, size, func(lo, hi uint64, w int32) {
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

// TestWriterMapLocations tracks, writes, reads and forgets many
// locations of different sizes at once, so that a forgotten location's
// storage is taken by another (Track's reuse): each reads as a map per
// byte of its own says, every byte initial once tracked again.
func TestWriterMapLocations(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	reused := 0
	for it := 0; it < 100; it++ {
		const nl = 12
		var spans [nl]Span
		for l := range spans {
			lo := uint64(l) << 16
			spans[l] = Span{lo, lo + uint64(1+r.Intn(2*pageSize))}
		}
		wm := NewWriterMap()
		want := make([]map[uint64]int32, nl)
		for op := 0; op < 400; op++ {
			l := int32(r.Intn(nl))
			s := spans[l]
			if want[l] == nil {
				if wm.Tracked(l) {
					t.Fatalf("location %d tracked before Track", l)
				}
				reused += min(len(wm.free), 1)
				wm.Track(l, s)
				want[l] = map[uint64]int32{}
			}
			a := s.Lo + uint64(r.Intn(int(s.Hi-s.Lo)))
			size := uint32(1 + r.Intn(int(s.Hi-a)))
			switch r.Intn(8) {
			case 0:
				wm.Forget(l)
				if wm.Tracked(l) {
					t.Fatalf("location %d tracked after Forget", l)
				}
				want[l] = nil
			case 1, 2, 3:
				if r.Intn(4) == 0 {
					a, size = s.Lo, uint32(s.Hi-s.Lo)
				}
				wm.Write(l, a, size, int32(op))
				for b := a; b < a+uint64(size); b++ {
					want[l][b] = int32(op)
				}
			default:
				next := a
				wm.Read(l, a, size, func(lo, hi uint64, w int32) {
					for b := lo; b < hi; b++ {
						x, ok := want[l][b]
						if !ok {
							x = -1
						}
						if x != w {
							t.Fatalf("location %d byte %d: writer %d, want %d", l, b, w, x)
						}
					}
					next = hi
				})
				if next != a+uint64(size) {
					t.Fatalf("runs end at %d, want %d", next, a+uint64(size))
				}
			}
		}
	}
	if reused == 0 {
		t.Fatal("no location took a forgotten one's storage: the test checks too little")
	}
}

func TestLastAccesses(t *testing.T) {
	got := LastAccesses([]int32{0, -1, 2, 0, 2, -1}, 4)
	if want := []int32{3, -1, 4, -1}; !slices.Equal(got, want) {
		t.Errorf("LastAccesses = %v, want %v", got, want)
	}
}

// TestWriterMapKeepsPageStorage holds a location of one page to the
// storage its bytes' writers were first given: written in part, then
// whole, then in part again, and once forgotten and another location
// tracked in its place (a channel's messages, one location each, are),
// its bytes' writers stay where they were instead of being made anew.
func TestWriterMapKeepsPageStorage(t *testing.T) {
	for _, size := range []uint64{40, pageSize} {
		wm := NewWriterMap()
		s := Span{4096, 4096 + size}
		store := func(l int32) *int32 { return &wm.locs[l].pages[0].d[0] }
		wm.Track(0, s)
		wm.Write(0, s.Hi-1, 1, 1) // in part: the bytes' writers are made
		first := store(0)
		for step, w := range []struct {
			l      int32
			a      uint64
			size   uint32
			forget bool
		}{
			{0, s.Lo, uint32(size), false}, // whole
			{0, s.Lo, 1, true},             // in part again, then forgotten
			{1, s.Lo, uint32(size), false}, // another location, whole
			{1, s.Hi - 1, 1, false},        // in part
		} {
			if !wm.Tracked(w.l) {
				wm.Track(w.l, s)
			}
			wm.Write(w.l, w.a, w.size, int32(step+2))
			if w.size < uint32(size) {
				if got := store(w.l); got != first {
					t.Errorf("a location of %d bytes, step %d: its bytes' writers were made anew", size, step)
				}
			}
			if w.forget {
				wm.Forget(w.l)
			}
		}
	}
}
