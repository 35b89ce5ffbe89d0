// This file runs seer check with its standard error on a pseudo-terminal
// (opened with the kernel's /dev/ptmx, no package needed): the live
// progress lines are drawn there and erased before the report, and a pipe
// gets none of them.

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		master.Close()
		t.Skipf("unlockpt: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		master.Close()
		t.Skipf("ptsname: %v", errno)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("opening the terminal: %v", err)
	}
	return master, slave
}

func TestProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/prog\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package prog\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n\nfunc TestB(t *testing.T) {}\n"), 0o644)

	master, slave := openPTY(t)
	defer master.Close()
	cmd, _ := seerCmd(t, dir, nil, "check", "-count=1", ".")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&screen, master) // ends with EIO once seer and its children are gone
		close(done)
	}()
	cmd.Wait()
	<-done
	got := screen.String()
	for _, want := range []string{
		"\x1b[2Kseer: example.com/prog: building\r\n",
		"seer: example.com/prog: analysing",
		"; tests: 2 passed; last TestB", // cut at the 80 columns of a terminal that says no size
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal did not show %q:\n%q", want, got)
		}
	}
	if !strings.HasSuffix(got, "\x1b[J") {
		t.Errorf("the progress is not erased at the end:\n%q", got)
	}
	if !strings.Contains(stdout.String(), "example.com/prog: 2 tests (2 passed)") {
		t.Errorf("report:\n%s", stdout.String())
	}

	// On a pipe: the line it always printed, no escapes.
	out, stderr, code := seer(t, dir, "check", "-count=1", ".")
	if code != 0 || strings.Contains(stderr, "\x1b[") || stderr != "seer: recording example.com/prog\n" {
		t.Errorf("on a pipe: exit %d, stderr %q\n%s", code, stderr, out)
	}
	// -json on a terminal: nothing but the report.
	master2, slave2 := openPTY(t)
	defer master2.Close()
	cmd2, _ := seerCmd(t, dir, nil, "check", "-json", "-count=1", ".")
	cmd2.Stdout, cmd2.Stderr = io.Discard, slave2
	cmd2.Start()
	slave2.Close()
	var screen2 bytes.Buffer
	done2 := make(chan struct{})
	go func() {
		io.Copy(&screen2, master2)
		close(done2)
	}()
	cmd2.Wait()
	<-done2
	if screen2.Len() != 0 {
		t.Errorf("-json wrote to the terminal: %q", screen2.String())
	}
}
