// This file tests that a riseArena gives its pages back as a log is
// written in it (clock_rises_log_file.go's touched): what stays mapped
// into the process, read from /proc/self/pagemap, is about dropEvery, not
// the log. The other tests only check that the data survives the drops.

package predict

import (
	"encoding/binary"
	"math/rand"
	"os"
	"testing"
	"unsafe"
)

// presentBytes returns the bytes of ar's mappings whose pages are in the
// process's page tables (pagemap's bit 63), whatever the page cache holds.
func presentBytes(t *testing.T, ar *riseArena) int {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer f.Close()
	const page = 4096
	n := 0
	for _, m := range ar.maps {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
		buf := make([]byte, 8*(len(m)/page))
		if _, err := f.ReadAt(buf, int64(base/page*8)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(buf); i += 8 {
			if binary.LittleEndian.Uint64(buf[i:])>>63 == 1 {
				n += page
			}
		}
	}
	return n
}

func TestArenaGivesLogPagesBack(t *testing.T) {
	defer func(n int) { dropEvery = n }(dropEvery)
	dropEvery = 256 << 10
	ar := new(riseArena)
	defer ar.free()
	l := kpvLog{ar: ar}
	r := rand.New(rand.NewSource(5))
	pos := int32(0)
	for l.size < 8<<20 {
		for _, rs := range randomGroups(r, 100) {
			pos += 1 + r.Int31n(8)
			l.add(pos, rs)
		}
	}
	if len(ar.maps) == 0 {
		t.Fatal("the arena mapped nothing")
	}
	// Since the last drop: dropEvery bytes of chunks made, the one that
	// crossed it and the one it cut short (each at most 256 KiB,
	// kpvLog.add), written as the log goes on.
	if got, most := presentBytes(t, ar), dropEvery+2*256<<10+4096; got > most {
		t.Fatalf("a log of %d bytes leaves %d bytes of its arena mapped in, more than %d", l.size, got, most)
	}
}
