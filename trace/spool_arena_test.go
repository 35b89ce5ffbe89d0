// This file tests spool.go's pcArena: the slices it hands out are of the
// length asked, never overlap, and an append to one never writes another.

package trace

import "testing"

func TestPCArena(t *testing.T) {
	var a pcArena
	var got [][]uint64
	for i, n := range []int{3, 0, 12, 4090, 7, pcArenaChunk + 5, 1, 24} {
		s := a.take(n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("take %d (%d): len %d, cap %d", n, i, len(s), cap(s))
		}
		for k := range s {
			s[k] = uint64(i)<<32 | uint64(k)
		}
		got = append(got, s)
	}
	_ = append(got[0], 99) // capacity is length: a copy, not the next slice
	for i, s := range got {
		for k, v := range s {
			if v != uint64(i)<<32|uint64(k) {
				t.Fatalf("slice %d, pc %d: %#x, written %#x (slices overlap)", i, k, v, uint64(i)<<32|uint64(k))
			}
		}
	}
}

// TestPCArenaReuse: with a batcher, a full chunk is handed out again only
// once the batch being filled when it filled has been consumed, and then
// it is (rather than a new chunk).
func TestPCArenaReuse(t *testing.T) {
	b := newBatcher(make(chan []rawEvent, 4), nil, nil)
	a := pcArena{out: b}
	first := a.take(pcArenaChunk) // fills the first chunk, in batch 0
	for _, tc := range []struct {
		name     string
		sent     uint64 // batches handed on before the take
		consumed uint64 // batches consumed before the take
		reused   bool   // the take gets the first chunk again
	}{
		{"batch 0 not handed on", 0, 0, false},
		{"batch 0 handed on, not consumed", 1, 0, false},
		{"batch 0 consumed", 2, 1, true},
	} {
		b.sent = tc.sent
		b.consumed.Store(tc.consumed)
		s := a.take(pcArenaChunk)
		if got := &s[0] == &first[0]; got != tc.reused {
			t.Fatalf("%s: first chunk handed out again: %v, want %v", tc.name, got, tc.reused)
		}
		if tc.reused {
			return
		}
	}
	t.Fatal("first chunk never handed out again")
}
