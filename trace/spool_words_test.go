package trace

import (
	"encoding/binary"
	"slices"
	"testing"
)

// TestLoadWords: loadWords reads exactly len(dst) little-endian words
// from the start of src, whatever follows them.
func TestLoadWords(t *testing.T) {
	le := binary.LittleEndian
	words := []uint64{0x0102030405060708, 0, 1 << 63, 0xdeadbeef, 42}
	src := make([]byte, 8*len(words)+8)
	for i, w := range words {
		le.PutUint64(src[8*i:], w)
	}
	le.PutUint64(src[8*len(words):], 0xffffffffffffffff) // not to be read
	for n := 0; n <= len(words); n++ {
		dst := make([]uint64, n, n+1)
		loadWords(dst, src)
		if !slices.Equal(dst, words[:n]) {
			t.Errorf("loadWords(%d) = %#x, want %#x", n, dst, words[:n])
		}
		if got := dst[:n+1][n]; got != 0 {
			t.Errorf("loadWords(%d) wrote past dst: %#x", n, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("loadWords of more words than src holds did not panic")
		}
	}()
	loadWords(make([]uint64, 2), src[:15])
}
