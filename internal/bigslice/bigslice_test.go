// This file tests Grow and Copy: what they copy and the room they make,
// and that a collection started while a large slice grows completes
// before the copy does (the copy is preemptible between its steps).

package bigslice

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestGrow(t *testing.T) {
	large := stepOf[uint64]() * 3
	for _, c := range []struct {
		name     string
		len, cap int
		n        int
	}{
		{"room already", 10, 20, 10},
		{"small", 10, 10, 1},
		{"small, many more", 10, 10, 1000},
		{"large, one more", large, large, 1},
		{"large, past double", large, large, 3 * large},
		{"large, not a whole step", large + 7, large + 7, 5},
		{"large, room already", large, large + 5, 5},
	} {
		s := make([]uint64, c.len, c.cap)
		for i := range s {
			s[i] = uint64(i)*2654435761 + 1
		}
		want := slices.Clone(s)
		g := Grow(s, c.n)
		if !slices.Equal(g, want) {
			t.Errorf("%s: Grow changed the elements", c.name)
		}
		if cap(g)-len(g) < c.n {
			t.Errorf("%s: Grow(len %d cap %d, %d) has room for %d", c.name, c.len, c.cap, c.n, cap(g)-len(g))
		}
		if c.cap-c.len >= c.n && &g[:1][0] != &s[:1][0] {
			t.Errorf("%s: Grow made a new array where there was room", c.name)
		}
		if g := append(g, make([]uint64, c.n)...); cap(g) != cap(g[:len(g)]) || len(g) != c.len+c.n {
			t.Errorf("%s: append after Grow: len %d", c.name, len(g))
		}
	}
}

func TestExtend(t *testing.T) {
	large := stepOf[uint32]() * 3
	for _, c := range []struct {
		name     string
		len, cap int
		n        int
	}{
		{"small", 10, 10, 5},
		{"small, room reused", 10, 40, 5},
		{"large", large, large, large + 1024},
		{"large, room reused", large, 3 * large, 2*large - 3},
		// Room past len, too little for n: grown, the old room copied.
		{"small, some room, grown", 1, 4, 5},
		{"large, some room, grown", large, large + 100, 1000},
	} {
		s := make([]uint32, c.cap)
		for i := range s {
			s[i] = uint32(i) + 1 // the room past len is not zero
		}
		s = s[:c.len]
		want := append(slices.Clone(s), make([]uint32, c.n)...)
		if got := Extend(s, c.n); !slices.Equal(got, want) {
			t.Errorf("%s: Extend(len %d cap %d, %d) is not s and %d zeros", c.name, c.len, c.cap, c.n, c.n)
		}
	}
}

func TestCopyShiftDown(t *testing.T) {
	n := stepOf[uint32]()*2 + 5
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i)
	}
	const by = 3
	want := slices.Clone(s[by:])
	if got := Copy(s, s[by:]); got != n-by {
		t.Fatalf("Copy copied %d, want %d", got, n-by)
	}
	if !slices.Equal(s[:n-by], want) {
		t.Errorf("Copy down by %d changed the elements", by)
	}
}

// TestCollectionDuringGrow grows a large slice (a fresh array whose pages
// the copy faults in, so that the copy takes long) while another goroutine
// runs a collection, and holds that the collection completes before the
// copy does. With copy in place of Copy, the collection's stop-the-world
// and its scan of the growing goroutine's stack wait until the whole
// memmove has ended, every time.
func TestCollectionDuringGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("copies hundreds of megabytes")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const n = 128 << 20 / 8 // 128 MiB of uint64s
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i)
	}
	var lags []time.Duration
	for range 3 {
		started, grown := make(chan struct{}), make(chan time.Time, 1)
		go func() {
			close(started)
			g := Grow(s, 1)
			grown <- time.Now()
			runtime.KeepAlive(g)
		}()
		<-started
		runtime.GC()
		collected := time.Now()
		end := <-grown
		if collected.Before(end) {
			return
		}
		lags = append(lags, collected.Sub(end))
	}
	t.Errorf("a collection started as a 128 MiB slice began to grow completed only after the copy had, in 3 tries (%v after it)", lags)
}

// TestChunks: elements appended are read back at their index, across
// chunks of a small and of a large element, and each chunk is within a
// step.
func TestChunks(t *testing.T) {
	var small Chunks[int32]
	var large Chunks[[100]int64]
	const n = 200_000
	for i := range n {
		small.Append(int32(i))
		large.Append([100]int64{int64(i), 99: -int64(i)})
	}
	if small.Len() != n || large.Len() != n {
		t.Fatalf("Len: %d, %d, want %d", small.Len(), large.Len(), n)
	}
	for i := range n {
		if v := *small.At(i); v != int32(i) {
			t.Fatalf("small At(%d) = %d", i, v)
		}
		if v := large.At(i); v[0] != int64(i) || v[99] != -int64(i) {
			t.Fatalf("large At(%d) = %d, %d", i, v[0], v[99])
		}
	}
	*small.At(7) = -7
	if *small.At(7) != -7 || *small.At(8) != 8 {
		t.Fatal("At does not point into the sequence")
	}
	for _, c := range [][]int{{len(small.c), len(small.c[0])}, {len(large.c), len(large.c[0])}} {
		if c[0] < 2 {
			t.Errorf("%d chunks, want several", c[0])
		}
	}
	if b := len(large.c[0]) * 800; b > stepBytes || b <= stepBytes/2 {
		t.Errorf("a chunk of the large element holds %d bytes, want at most %d and over half", b, stepBytes)
	}
}
