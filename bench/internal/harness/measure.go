package harness

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Measurement is one timed run of a command.
type Measurement struct {
	Wall    time.Duration
	MaxRSS  int64 // bytes: ru_maxrss of the child (largest single process in the tree)
	TreeRSS int64 // bytes: peak of the sampled sum over the process tree
	// TreeAnon is the peak of the sampled sum of anonymous memory.
	TreeAnon int64
	Exit     int // exit status; -1 if the process was killed by a signal
	Signal   string
	Stdout   []byte
	Stderr   []byte
}

// Measure runs name with args in dir (extra environment env) and measures
// it. The child gets a process group of its own, and when ctx ends the
// whole group is killed. sample is the /proc sampling interval for
// the tree (0 = 50ms). tee, if not nil, also receives the output.
func Measure(ctx context.Context, dir string, env []string, sample time.Duration, tee io.Writer, name string, args ...string) (Measurement, error) {
	if sample <= 0 {
		sample = 50 * time.Millisecond
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if tee != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&stdout, tee), io.MultiWriter(&stderr, tee)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second

	var m Measurement
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return m, err
	}
	done := make(chan struct{})
	var peak TreeMem
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(sample)
		defer t.Stop()
		for {
			if mem, err := SampleTree(cmd.Process.Pid); err == nil {
				peak.RSS = max(peak.RSS, mem.RSS)
				peak.Anon = max(peak.Anon, mem.Anon)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	err := cmd.Wait()
	m.Wall = time.Since(start)
	close(done)
	wg.Wait()
	m.TreeRSS, m.TreeAnon = peak.RSS, peak.Anon
	m.Stdout, m.Stderr = stdout.Bytes(), stderr.Bytes()
	st := cmd.ProcessState
	if st == nil {
		return m, err
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		m.MaxRSS = MaxRSSBytes(ru)
	}
	m.Exit = st.ExitCode()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		m.Signal = ws.Signal().String()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return m, err // e.g. the context ended
	}
	if ctx.Err() != nil {
		return m, ctx.Err()
	}
	return m, nil
}

// LoadAverage returns the machine's 1, 5 and 15-minute load averages as
// /proc/loadavg gives them, or "unknown".
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
