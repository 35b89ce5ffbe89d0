// This file reads the process's resident memory on Linux
// (arena_resident.go).

package predict

import "syscall"

// resident returns the bytes of the process's resident pages (the
// second field of /proc/self/statm, in pages), or -1 if it cannot be
// read.
func resident() int64 {
	fd, err := syscall.Open("/proc/self/statm", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	var buf [128]byte
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return -1
	}
	field, v, digits := 0, int64(0), false
	for _, b := range buf[:n] {
		switch {
		case b >= '0' && b <= '9':
			if field == 1 {
				v, digits = v*10+int64(b-'0'), true
			}
		case b == ' ':
			if field == 1 {
				if !digits {
					return -1
				}
				return v * int64(syscall.Getpagesize())
			}
			field++
		default:
			return -1
		}
	}
	return -1
}
