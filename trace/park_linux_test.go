// This file tests Trace.Park's file on Linux (park_linux.go): it holds the
// tail's whole pages alone, written by direct I/O where the file system
// allows it and through the page cache where it does not, and Restore
// reads them back either way.

package trace

import (
	"os"
	"slices"
	"syscall"
	"testing"
)

func TestParkFileDirect(t *testing.T) {
	dirs := []string{t.TempDir()}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		dirs = append(dirs, "/dev/shm") // tmpfs: no direct I/O on older kernels
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			t.Setenv("TMPDIR", dir)
			const n = 20_000
			tr := &Trace{}
			for i := 0; i < n; i++ {
				tr.Events = append(tr.Events, Event{Addr: uint64(i) * 8, G: GoID(1 + i%7), Peer: int32(i), Op: OpWrite})
				if i%3 == 0 {
					tr.Values = append(tr.Values, EventValue{Event: i, Value: uint64(i) + 1})
				}
				tr.replayPos = append(tr.replayPos, uint32(i)*3+1)
			}
			events, values, rp := slices.Clone(tr.Events), slices.Clone(tr.Values), slices.Clone(tr.replayPos)
			p, err := tr.Park(1234) // not at a page's start
			if err != nil || p == nil {
				t.Fatalf("Park: %v, %v", p, err)
			}
			fi, err := p.f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			var pages int64
			for _, b := range p.tails() {
				pages += int64(len(b))
			}
			if page := int64(syscall.Getpagesize()); pages == 0 || pages%page != 0 || fi.Size() != pages {
				t.Fatalf("the file holds %d bytes; the tail's whole pages are %d", fi.Size(), pages)
			}
			flags, err := fcntl(int(p.f.Fd()), syscall.F_GETFL, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: direct I/O %v", dir, flags&syscall.O_DIRECT != 0)
			if err := p.Restore(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tr.Events, events) || !slices.Equal(tr.Values, values) || !slices.Equal(tr.replayPos, rp) {
				t.Fatal("restored: the tables differ from the trace's")
			}
		})
	}
}

// buffered clears direct I/O after EINVAL (a file system that refuses it
// at the write) and leaves the file as it is after any other error.
func TestParkFileBuffered(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "park")
	if err != nil {
		t.Fatal(err)
	}
	f = openParkFile(f)
	defer f.Close()
	direct := func() bool {
		flags, err := fcntl(int(f.Fd()), syscall.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return flags&syscall.O_DIRECT != 0
	}
	if !direct() {
		t.Skip("the test's file system has no direct I/O")
	}
	if buffered(f, syscall.EIO) || !direct() {
		t.Fatal("an I/O error cleared direct I/O")
	}
	if !buffered(f, syscall.EINVAL) || direct() {
		t.Fatal("EINVAL did not clear direct I/O")
	}
	if buffered(f, syscall.EINVAL) {
		t.Fatal("a second EINVAL asked to try again")
	}
}
