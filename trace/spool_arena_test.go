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
