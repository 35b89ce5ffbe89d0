// This file tests the plumbing that has no other test of its own: build
// error parsing, the sweep of dead processes' temporary directories, and
// the stopping of an owned process's group.

package gocmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseBuildError(t *testing.T) {
	for _, tc := range []struct {
		line string
		want BuildError
		ok   bool
	}{
		{"./a.go:3:4: undefined: x", BuildError{File: "/src/p/a.go", Line: 3, Col: 4, Msg: "undefined: x"}, true},
		{"/abs/b_test.go:10: missing return", BuildError{File: "/abs/b_test.go", Line: 10, Msg: "missing return"}, true},
		{"\tsub/c.go:7:1: syntax error: unexpected }", BuildError{File: "/src/p/sub/c.go", Line: 7, Col: 1, Msg: "syntax error: unexpected }"}, true},
		{"# example.com/p", BuildError{}, false},
		{"FAIL\texample.com/p [build failed]", BuildError{}, false},
		{"a.txt:3: not go", BuildError{}, false},
	} {
		got, ok := ParseBuildError(tc.line, "/src/p")
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseBuildError(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
		if ok {
			// A BuildError's String parses back to itself.
			if again, ok := ParseBuildError(got.String(), "/elsewhere"); !ok || again != got {
				t.Errorf("ParseBuildError(%q) = %+v, %v; want %+v", got.String(), again, ok, got)
			}
		}
	}
	out := "# example.com/p\n./a.go:3:4: undefined: x\nnote: module requires Go 1.30\n./a.go:5:2: declared and not used: y\n"
	if errs := ParseBuildErrors(out, "/src/p"); len(errs) != 2 || errs[1].Line != 5 {
		t.Errorf("ParseBuildErrors: %+v, want the two positioned errors", errs)
	}
}

// TestTempDirSweep: a temporary directory whose lock nobody holds (its
// process is gone) is removed by the next sweep; one a live process made
// with TempDir, and other directories, are not.
func TestTempDirSweep(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := filepath.Join(tmp, "seer-dead")
	if err := os.Mkdir(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, lockName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "other-dir")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	live, remove, err := TempDir("seer-live-")
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if !strings.HasPrefix(live, tmp) {
		t.Fatalf("TempDir made %s outside TMPDIR %s", live, tmp)
	}
	sweepTempDirs()
	for dir, want := range map[string]bool{dead: false, other: true, live: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("after the sweep, %s exists: %v, want %v", dir, err == nil, want)
		}
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Errorf("remove left %s: %v", live, err)
	}
}

// TestRunOwnedStops: when the context is done, RunOwned stops the
// command and what it started (its process group), and says so.
func TestRunOwnedStops(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(sh, "-c", "sleep 20 & echo $! > "+pidFile+"; wait")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	stopped, err := RunOwned(ctx, cmd, time.Second)
	if !stopped || err == nil {
		t.Fatalf("RunOwned = %v, %v; want stopped with an error", stopped, err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("RunOwned returned after %v", d)
	}
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The grandchild got the group's signal; it may linger a moment as a
	// zombie until its new parent reaps it.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		if state, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(state), ") Z ") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		if state, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(state), ") Z ") {
			t.Errorf("the command's child %d still runs after RunOwned stopped it", pid)
		}
	}
}
