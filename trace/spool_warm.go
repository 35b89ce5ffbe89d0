// This file implements making a spool ready for its test (PrepareSpool):
// sized for the recorder, and its first pages faulted into the page cache
// by seer while the test starts, so that the test's first records, which
// the converter has had no time to give slots back for (spool_drain.go),
// are not written to fresh pages of the file either.

package trace

import (
	"os"
	"syscall"
)

// The spool's layout (record/runtime/recorder.c).
const (
	spoolBytes       = 64 << 30                                      // SPOOL_BYTES
	spoolMallocBytes = 4 << 30                                       // MALLOC_BYTES
	spoolChunksOff   = mallocOff + spoolMallocBytes + 64<<20 + 1<<18 // CHUNKS_OFF: after the chunk table and the free ring
	spoolRegion      = 2 << 20                                       // POPULATE_BYTES
)

// warmChunks is how much of the chunk slots PrepareSpool faults in: a
// burst of about a million records, as a TLS handshake is.
const warmChunks = 32 << 20

const madvPopulateWrite = 23 // MADV_POPULATE_WRITE (Linux 5.14)

// PrepareSpool makes the empty file at path the spool of one recording:
// it sizes it as the recorder does, and until ended is closed (the test
// process is gone), faults in, in the background, the first region of
// the allocation records and the first warmChunks bytes of the chunk
// slots, in the order the recorder writes them. Faulting in changes no
// byte of the file, so it may go on while the recorder writes. Only a
// spool that nothing has claimed yet is sized; the recorder claims a
// sized one by writing its header's pid.
func PrepareSpool(path string, ended <-chan struct{}) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(spoolBytes); err != nil {
		return err
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, spoolChunksOff+warmChunks, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil // best effort: the recorder faults the pages in itself
	}
	go func() {
		defer syscall.Munmap(m) // the pages stay in the page cache
		regions := []int{mallocOff}
		for off := spoolChunksOff; off < spoolChunksOff+warmChunks; off += spoolRegion {
			regions = append(regions, off)
		}
		for _, off := range regions {
			select {
			case <-ended:
				return
			default:
			}
			if syscall.Madvise(m[off:off+spoolRegion], madvPopulateWrite) != nil {
				return // an older kernel
			}
		}
	}()
	return nil
}
