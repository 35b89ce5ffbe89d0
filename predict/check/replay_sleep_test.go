// This file tests that replay waits for a goroutine that sleeps (issue
// 28): a race whose witness needs a goroutine to take its steps after a
// back-off loop that sleeps, between two events, longer than the replay
// gives a goroutine that does not reach its step (ReplayAbsent, for each
// of its steps) is confirmed, since the time it sleeps does not count.

package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

// backoffModule: the worker backs off (5 ms, doubling: 1.3 s of sleep
// in all, with no event between the sleeps) before it counts under
// the mutex and reads note, which the test wrote before its own critical
// section. In the recorded run the test's section comes first and orders
// the write before the read; the witness runs the worker's section
// first, so the test waits at its gate while the worker sleeps.
const backoffModule = `package p

import (
	"sync"
	"testing"
	"time"
)

type box struct {
	mu   sync.Mutex
	n    int
	note string
}

func backoff() {
	delay := 5 * time.Millisecond
	for i := 0; i < 8; i++ {
		time.Sleep(delay)
		if delay *= 2; delay > time.Second {
			delay = time.Second
		}
	}
}

func TestBackoff(t *testing.T) {
	b := &box{}
	done := make(chan bool)
	go func() {
		backoff()
		b.mu.Lock()
		b.n++
		b.mu.Unlock()
		_ = b.note
		done <- true
	}()
	b.note = "set"
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
	<-done
}
`

func TestReplayWaitsForSleep(t *testing.T) {
	replayTestSetup(t)
	// The worker's three steps would pass after 3 × 200 ms, before its
	// back-off ends, if the time it sleeps counted.
	defer func(d time.Duration) { ReplayAbsent = d }(ReplayAbsent)
	ReplayAbsent = 200 * time.Millisecond
	dir := testModule(t, "example.com/p", "p_test.go", backoffModule)
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Replay: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Kind != "race" || !strings.Contains(f.Variable, "note") {
			continue
		}
		n++
		t.Logf("race on %s: confirmed %q: %s", f.Variable, f.Confirmed, f.Replay)
		if !f.Predicted {
			t.Errorf("race on %s observed, want predicted", f.Variable)
		}
		if f.Confirmed != report.ConfirmedYes {
			t.Errorf("race on %s: confirmed %q: %s", f.Variable, f.Confirmed, f.Replay)
		}
	}
	if n == 0 {
		t.Fatalf("no race on note: %+v", rep.Findings)
	}
}
