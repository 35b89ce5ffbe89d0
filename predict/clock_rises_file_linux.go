// This file maps a riseArena's file (clock_rises_file.go) on Linux.

package predict

import "syscall"

// mapMore grows the arena's file by size bytes and maps them.
func (a *riseArena) mapMore(size int) ([]byte, error) {
	if err := a.sf.open(); err != nil {
		return nil, err
	}
	// The blocks are taken now: a page of a sparse file that finds the
	// disk full when first written would stop seer with SIGBUS; a full
	// disk here leaves the rest of the history in the heap.
	if err := syscall.Fallocate(int(a.sf.f.Fd()), 0, a.size, int64(size)); err != nil {
		return nil, err
	}
	m, err := syscall.Mmap(int(a.sf.f.Fd()), a.size, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	a.size += int64(size)
	a.maps = append(a.maps, m)
	return m, nil
}

// dropPages gives mapping m's pages back (madvise MADV_DONTNEED): on a
// shared mapping of a file the data stays in the file.
func dropPages(m []byte) { syscall.Madvise(m, syscall.MADV_DONTNEED) }

// free unmaps the arena and closes its file. Nothing may read the
// histories made in it afterwards.
func (a *riseArena) free() {
	if a == nil {
		return
	}
	for _, m := range a.maps {
		syscall.Munmap(m)
	}
	a.maps, a.cur = nil, nil
	a.sf.close()
}
