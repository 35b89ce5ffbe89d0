// This file tests the log of rises in the pass's arena
// (clock_rises_log_file.go): a log whose chunks are carved out of a
// riseArena, its pages given back as it is written and after, reports
// the sizes (on which the history's budget rests) and reads back the
// rises of the same log made in the heap, and a must-happen-before pass
// given an arena makes its log there. TestRiseArenaSameAsHeap compares
// the histories made so with the heap's.

package predict

import (
	"math/rand"
	"slices"
	"testing"
	"unsafe"
)

// inArena reports whether chunk b lies in one of ar's mappings.
func inArena(ar *riseArena, b []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, m := range ar.maps {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
		if p >= base && p+uintptr(cap(b)) <= base+uintptr(len(m)) {
			return true
		}
	}
	return false
}

func TestLogChunksInArena(t *testing.T) {
	defer func(n int) { dropEvery = n }(dropEvery)
	dropEvery = 4096 // pages given back while the log is written
	r := rand.New(rand.NewSource(11))
	for trial := range 12 {
		ar := new(riseArena)
		want, got := kpvLog{}, kpvLog{ar: ar}
		pos := int32(0)
		for k, rs := range randomGroups(r, 300) {
			pos += r.Int31n(1 << uint(r.Intn(20)))
			if g, w := got.add(pos, rs), want.add(pos, rs); g != w {
				t.Fatalf("trial %d, group %d: %d bytes logged in the arena, %d in the heap", trial, k, g, w)
			}
		}
		if got.n != want.n || got.size != want.size || got.last != want.last {
			t.Fatalf("trial %d: %d rises, %d bytes, last %d in the arena; %d, %d, %d in the heap",
				trial, got.n, got.size, got.last, want.n, want.size, want.last)
		}
		if len(ar.maps) == 0 {
			t.Fatalf("trial %d: the arena mapped nothing", trial)
		}
		for c, b := range append(slices.Clone(got.full), got.cur) {
			if !inArena(ar, b) {
				t.Fatalf("trial %d: chunk %d of %d is not in the arena", trial, c, len(got.full)+1)
			}
		}
		ar.drop() // read back from the file
		if g, w := got.appendAll(nil), want.appendAll(nil); !slices.Equal(g, w) {
			t.Fatalf("trial %d: the arena's log reads back %d rises, the heap's %d, not the same", trial, len(g), len(w))
		}
		ar.free()
	}
}

// A pass given an arena logs in it; one without logs in the heap.
func TestPassLogsInArena(t *testing.T) {
	tr := historyTraces(t, 43, 1)[0]
	c := newCTP(tr)
	m := newMemory(c)
	for _, ar := range []*riseArena{nil, new(riseArena)} {
		ps := newPass(c, m, clockMode{rfCheck: true, arena: ar})
		for g := range ps.rec.log {
			if ps.rec.log[g].ar != ar {
				t.Fatalf("arena %v: goroutine %d's log has arena %v", ar != nil, g, ps.rec.log[g].ar)
			}
		}
		for i := range c.ev {
			if err := ps.event(i); err != nil {
				t.Fatal(err)
			}
		}
		logged := 0
		for g := range ps.rec.log {
			l := &ps.rec.log[g]
			for _, b := range append(slices.Clone(l.full), l.cur) {
				if cap(b) == 0 {
					continue
				}
				logged++
				if ar != nil && !inArena(ar, b) {
					t.Fatalf("goroutine %d: a chunk of its log is not in the arena", g)
				}
			}
		}
		if logged == 0 {
			t.Fatal("the pass logged nothing: the test tests nothing")
		}
		ps.sf.close()
		ar.free()
	}
}
