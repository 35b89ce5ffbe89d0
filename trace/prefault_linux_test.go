// This file tests populate (prefault_linux.go): it faults in the pages
// it is given, and only those, and leaves what they hold as it was.

package trace

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestPopulate checks that populate faults in the pages it is given, and
// only those, and leaves what they hold as it was.
func TestPopulate(t *testing.T) {
	if !prefaults {
		t.Skip("no populate here")
	}
	page := syscall.Getpagesize()
	// A mapping of its own, not Go's heap, whose spans may have been
	// faulted in before.
	m, err := syscall.Mmap(-1, 0, 64<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(m)
	syscall.Madvise(m, 15) // MADV_NOHUGEPAGE: a page at a time, whatever the system's setting
	ev := unsafe.Slice((*Event)(unsafe.Pointer(&m[0])), len(m)/int(unsafe.Sizeof(Event{})))
	per := page / int(unsafe.Sizeof(Event{}))
	ev[0] = Event{Addr: 42}
	ev[3*per] = Event{Addr: 43}
	lo, hi := 2*per, 9*per // pages 2 to 8 of the mapping
	if !populate(unsafe.Pointer(&ev[lo]), uintptr(hi-lo)*unsafe.Sizeof(Event{})) {
		t.Skip("the kernel does not populate (before Linux 5.14)")
	}
	if ev[0].Addr != 42 || ev[3*per].Addr != 43 || ev[5*per] != (Event{}) {
		t.Errorf("populate changed the table: %+v %+v %+v", ev[0], ev[3*per], ev[5*per])
	}
	res := resident(t, unsafe.Pointer(&ev[0]), len(ev)*int(unsafe.Sizeof(Event{})))
	for p := 2; p < 9; p++ {
		if !res[p] {
			t.Errorf("page %d of the table not resident after populate", p)
		}
	}
	for p := 16; p < 32; p++ {
		if res[p] {
			t.Errorf("page %d of the table, past what populate was given, is resident", p)
		}
	}
}

// resident returns, for each page of the n bytes at p (from p's page),
// whether it is in memory (mincore).
func resident(t *testing.T, p unsafe.Pointer, n int) []bool {
	page := uintptr(syscall.Getpagesize())
	lo := uintptr(p) &^ (page - 1)
	pages := (uintptr(p) + uintptr(n) - lo + page - 1) / page
	vec := make([]byte, pages)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, lo, pages*page, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Skipf("mincore: %v", e)
	}
	res := make([]bool, pages)
	for i, v := range vec {
		res[i] = v&1 != 0
	}
	return res
}
