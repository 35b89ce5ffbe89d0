// This file tests that a long analysis stops at once when seer is told
// to (issue 31): seer predict on a generated trace of many goroutines
// (internal/synth's ring, the case), signalled at several points
// of its analysis, exits within two seconds with 128+n and leaves
// nothing in TMPDIR.

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

// stopWithin is how long seer may take to stop after the first signal:
// the issue asks for a second or two. seer takes a few tenths on an idle
// machine, but a run of the whole suite beside other work (load 12 on two
// cores) once took 1.03 s, its few tenths of CPU spread over the wait.
const stopWithin = 2 * time.Second

func TestStopDuringAnalysis(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses a trace of half a million events")
	}
	// Three times the ring, so that the analysis outlasts the
	// last signal: since clocks count per chain of goroutines, the
	// issue's own ring (1,000 members) is analysed in under a second.
	tr, err := synth.Ring(3000, 50)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ring.trace")
	if err := trace.WriteFile(path, tr); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig   syscall.Signal
		after time.Duration // after the trace is read
		args  []string
	}{
		// Within the analysis on an idle two-core machine, where it
		// takes about two and a half seconds after the trace is read.
		{syscall.SIGTERM, 100 * time.Millisecond, nil},
		{syscall.SIGINT, 400 * time.Millisecond, nil},
		{syscall.SIGTERM, 700 * time.Millisecond, []string{"-atomicity"}},
		{syscall.SIGHUP, time.Second, nil},
	} {
		t.Run(tc.sig.String()+"/"+tc.after.String(), func(t *testing.T) {
			cmd, tmp := seerCmd(t, t.TempDir(), nil, append(append([]string{"predict"}, tc.args...), path)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			waitRead(t, cmd.Process.Pid, path, exited)
			select {
			case <-time.After(tc.after):
			case <-exited:
				t.Fatalf("the analysis ended before the signal (exit %d): the trace is too small to test stopping\n%s", cmd.ProcessState.ExitCode(), stderr.String())
			}
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("seer was still running 30s after %v", tc.sig)
			}
			d := time.Since(start)
			if d > stopWithin {
				t.Errorf("seer took %v to stop after %v, want at most %v", d, tc.sig, stopWithin)
			}
			t.Logf("stopped %v after %v", d, tc.sig)
			if code := cmd.ProcessState.ExitCode(); code != 128+int(tc.sig) {
				t.Errorf("exit status %d, want %d\n%s", code, 128+int(tc.sig), stderr.String())
			} else if !strings.Contains(stderr.String(), "stopped by "+tc.sig.String()) {
				t.Errorf("stderr does not say why seer stopped:\n%s", stderr.String())
			}
			assertEmpty(t, tmp, "TMPDIR")
		})
	}
}

// waitRead waits until process pid has opened and closed the file at
// path: seer predict has read the trace and is analysing it.
func waitRead(t *testing.T, pid int, path string, exited <-chan struct{}) {
	t.Helper()
	open := func() bool {
		fds, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fd", "*"))
		for _, fd := range fds {
			if l, err := os.Readlink(fd); err == nil && l == path {
				return true
			}
		}
		return false
	}
	seen := false
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatal("seer exited while reading the trace")
		default:
		}
		if o := open(); o {
			seen = true
		} else if seen {
			return
		}
	}
	t.Fatalf("seer did not read %s within a minute (seen open: %v)", path, seen)
}
