// This file opens Trace.Park's file on Linux for direct I/O (O_DIRECT):
// the parked pages go from the table to the disk and back without a copy
// through the page cache. Written through the page cache, the copy was
// most of the park's cost, and the read back more (bench/RESULTS.md,
// "parking the trace's tail without the page cache").

package trace

import (
	"errors"
	"os"
	"syscall"
)

// openParkFile returns f, the unlinked temporary file of a park, opened
// anew for direct I/O when its file system allows it (and f closed), or
// f itself.
func openParkFile(f *os.File) *os.File {
	d, err := os.OpenFile(f.Name(), os.O_RDWR|syscall.O_DIRECT, 0)
	if err != nil {
		return f
	}
	f.Close()
	return d
}

// buffered clears f's direct I/O after err if err says the file system
// refused it (EINVAL), and reports whether it did: the caller tries again.
func buffered(f *os.File, err error) bool {
	if !errors.Is(err, syscall.EINVAL) {
		return false
	}
	fd := int(f.Fd())
	flags, err := fcntl(fd, syscall.F_GETFL, 0)
	if err != nil || flags&syscall.O_DIRECT == 0 {
		return false
	}
	_, err = fcntl(fd, syscall.F_SETFL, flags&^syscall.O_DIRECT)
	return err == nil
}

// fcntl is fcntl(2) with an int argument.
func fcntl(fd, cmd, arg int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(arg))
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}
