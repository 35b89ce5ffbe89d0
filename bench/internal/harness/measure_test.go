package harness

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestMeasure(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	m, err := Measure(context.Background(), "", nil, 5*time.Millisecond, nil, "sh", "-c", "echo out; echo err >&2; sleep 0.05; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if m.Exit != 3 || m.Signal != "" || string(m.Stdout) != "out\n" || string(m.Stderr) != "err\n" {
		t.Errorf("Measure = exit %d, signal %q, stdout %q, stderr %q", m.Exit, m.Signal, m.Stdout, m.Stderr)
	}
	if m.Wall < 50*time.Millisecond || m.MaxRSS <= 0 || m.TreeRSS <= 0 || m.TreeAnon <= 0 {
		t.Errorf("Measure = wall %v, maxrss %d, tree %d, anon %d", m.Wall, m.MaxRSS, m.TreeRSS, m.TreeAnon)
	}
}

// TestMeasureKill: when the context ends, the child's whole process group
// is killed, grandchildren too.
func TestMeasureKill(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	m, err := Measure(ctx, "", nil, 0, nil, "sh", "-c", "sleep 30 & sleep 30; wait")
	if err == nil {
		t.Error("no error from a killed run")
	}
	if m.Signal != "killed" || time.Since(start) > 5*time.Second {
		t.Errorf("Measure = exit %d, signal %q after %v", m.Exit, m.Signal, time.Since(start))
	}
}
