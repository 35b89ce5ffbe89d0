// This file tests what seer leaves behind: when it is stopped or killed,
// no processes and no temporary files; and never anything in the user's
// GOCACHE. Each test runs the real seer binary on
// real test packages (lifecycleModule, which outcome_test.go shares).

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lifecycleModule is a module of small test packages.
var lifecycleModule = map[string]string{
	"go.mod": "module example.com/life\n\ngo 1.26\n",
	// TestSleep writes its pid to $SEER_TEST_PIDFILE and sleeps.
	"sleep/s_test.go": `package sleep

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	if f := os.Getenv("SEER_TEST_PIDFILE"); f != "" {
		os.WriteFile(f+".new", []byte(strconv.Itoa(os.Getpid())), 0o644)
		os.Rename(f+".new", f)
	}
	time.Sleep(time.Minute)
}
`,
	"exit/e_test.go": `package exit

import (
	"os"
	"testing"
)

func TestA(t *testing.T) {}

func TestExit(t *testing.T) { os.Exit(3) }

func TestAfter(t *testing.T) {}

func TestAfterToo(t *testing.T) {}
`,
	"pass/p_test.go": `package pass

import "testing"

func TestPass(t *testing.T) {
	done := make(chan int)
	go func() { done <- 1 }()
	<-done
}
`,
	"leak/l_test.go": `package leak

import "testing"

var block = make(chan int)

func TestLeak(t *testing.T) {
	for range 73 {
		go func() { <-block }()
	}
	go func() { <-block }()
}
`,
	// TestBusy makes far more events than the others.
	"busy/b_test.go": `package busy

import (
	"sync"
	"testing"
)

func TestFirst(t *testing.T) {}

func TestBusy(t *testing.T) {
	// Senders that wait for the receiver most of the time: at the cap,
	// their last events are sends that had not yet gone through.
	ch := make(chan int)
	for range 2 {
		go func() {
			for i := range 5000 {
				ch <- i
			}
		}()
	}
	for range 10000 {
		<-ch
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10000 {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestLast(t *testing.T) {}
`,
	"notests/n.go": "package notests\n\nfunc F() int { return 1 }\n",
}

// lifeDir writes lifecycleModule into a temporary directory.
func lifeDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range lifecycleModule {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// seerCmd returns the seer command for args in dir, with TMPDIR an empty
// directory of the test's (returned) and extra environment.
func seerCmd(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, string) {
	tmp := filepath.Join(t.TempDir(), "tmp")
	os.Mkdir(tmp, 0o755)
	cmd := exec.Command(seerBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	return cmd, tmp
}

// runSeer runs cmd and returns stdout, stderr and the exit status.
func runSeer(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// assertEmpty fails if dir has anything in it.
func assertEmpty(t *testing.T, dir, what string) {
	t.Helper()
	var left []string
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if path != dir {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		if len(left) > 5 {
			left = append(left[:5], "...")
		}
		t.Errorf("%s is not empty: %v", what, left)
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits up to d for pid to die.
func waitGone(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d seer started outlived seer", pid)
}

// waitFile waits up to d for a file to appear, and returns its content.
func waitFile(t *testing.T, path string, d time.Duration, running *exec.Cmd) string {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			return string(b)
		}
	}
	running.Process.Kill()
	t.Fatalf("%s did not appear in %v", path, d)
	return ""
}

// TestStopSignals stops seer check and seer record while a test runs: the
// test process dies with seer, and nothing is left in TMPDIR, not even
// the binaries built ahead for the packages after it.
func TestStopSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := lifeDir(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGTERM, []string{"check", "./sleep"}},
		// pass's test binary is built while sleep's test runs.
		{syscall.SIGTERM, []string{"check", "./sleep", "./pass"}},
		{syscall.SIGHUP, []string{"record", "-o", filepath.Join(t.TempDir(), "s.trace"), "./sleep"}},
		{syscall.SIGINT, []string{"check", "-json", "./sleep"}},
		{syscall.SIGKILL, []string{"check", "./sleep"}},
	} {
		t.Run(tc.sig.String()+"/"+tc.args[0], func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd, tmp := seerCmd(t, dir, []string{"SEER_TEST_PIDFILE=" + pidFile}, tc.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(waitFile(t, pidFile, 90*time.Second, cmd))
			if !alive(pid) {
				t.Fatalf("the test process %d is not running", pid)
			}
			if len(tc.args) > 2 {
				time.Sleep(3 * time.Second) // for the builds of the packages after
			}
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("seer took %v to stop", d)
			}
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if tc.sig == syscall.SIGKILL {
				if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Errorf("seer: %v", err)
				}
			} else if code := cmd.ProcessState.ExitCode(); code != 128+int(tc.sig) {
				t.Errorf("exit status %d, want %d\n%s", code, 128+int(tc.sig), stderr.String())
			} else if !strings.Contains(stderr.String(), "stopped by "+tc.sig.String()) {
				t.Errorf("stderr does not say why seer stopped:\n%s", stderr.String())
			}
			waitGone(t, pid, 5*time.Second)
			if tc.sig == syscall.SIGKILL {
				// Nothing can clean up after SIGKILL but the next seer.
				if ents, _ := os.ReadDir(tmp); len(ents) == 0 {
					t.Fatalf("seer left nothing behind after SIGKILL: is the test right?")
				}
				next, _ := seerCmd(t, dir, nil, "check", "./pass")
				next.Env = append(next.Env, "TMPDIR="+tmp)
				if out, stderr, code := runSeer(t, next); code != 0 {
					t.Fatalf("the next seer: exit %d\n%s%s", code, out, stderr)
				}
			}
			assertEmpty(t, tmp, "TMPDIR")
		})
	}
}

// TestStopWhileBuilding interrupts seer while the go command builds the
// test binary: the go command and the tools it runs die, and neither its
// work directory nor seer's is left in TMPDIR.
func TestStopWhileBuilding(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test")
	}
	dir := lifeDir(t)
	// A toolexec that holds the link of the test binary (go list -export,
	// which seer also runs, never links) and says where it is.
	pidFile := filepath.Join(t.TempDir(), "link.pid")
	script := filepath.Join(t.TempDir(), "slowlink")
	os.WriteFile(script, []byte(`#!/bin/sh
case "$1" in
*/link) case " $* " in *" -V=full "*) ;; *) echo $$ > "`+pidFile+`.new"; mv "`+pidFile+`.new" "`+pidFile+`"; exec sleep 60;; esac;;
esac
exec "$@"
`), 0o755)
	cmd, tmp := seerCmd(t, dir, []string{"GOFLAGS=-toolexec=" + script}, "check", "./pass")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(waitFile(t, pidFile, 90*time.Second, cmd)))
	// The go command's work directory exists now; it must be seer's.
	if builds, _ := filepath.Glob(filepath.Join(tmp, "go-build*")); len(builds) > 0 {
		t.Errorf("the go command's work directory is not under seer's: %v", builds)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130\n%s", code, stderr.String())
	}
	waitGone(t, pid, 5*time.Second)
	assertEmpty(t, tmp, "TMPDIR")
}

// TestCheckLeavesGOCACHEAlone: seer builds and lists with caches of its
// own; the user's GOCACHE is not written to, nor is anything left in
// TMPDIR. With no findings, the summary line is still printed.
func TestCheckLeavesGOCACHEAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := lifeDir(t)
	gocache := filepath.Join(t.TempDir(), "gocache")
	os.Mkdir(gocache, 0o755)
	cmd, tmp := seerCmd(t, dir, []string{"GOCACHE=" + gocache}, "check", "./pass")
	out, stderr, code := runSeer(t, cmd)
	if code != 0 {
		t.Fatalf("exit status %d, want 0\n%s%s", code, out, stderr)
	}
	if !regexp.MustCompile(`(?m)^seer: example.com/life/pass: 1 test \(1 passed\), \d+ events, no findings$`).MatchString(out) {
		t.Errorf("no summary line:\n%s", out)
	}
	assertEmpty(t, gocache, "GOCACHE")
	assertEmpty(t, tmp, "TMPDIR")
}
