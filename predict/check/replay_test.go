// This file tests confirming findings by replay (replay.go) end to end:
// record, predict, replay, confirm.

package check

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

func replayTestSetup(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("records and replays tests")
	}
	if _, err := record.PrepareToolchain(context.Background(), ""); err != nil {
		t.Skipf("cannot record here: %v", err)
	}
}

// TestReplayExamples replays the findings of examples/: the race in
// TestAudit, which the recorded run ordered by the order of two critical
// sections, is confirmed (the replay runs the auditor's first); the
// atomicity violation is not tried.
func TestReplayExamples(t *testing.T) {
	replayTestSetup(t)
	dir, _ := filepath.Abs("../../examples")
	rep, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}, Timeout: time.Minute, Replay: true})
	if err != nil {
		t.Fatal(err)
	}
	races := 0
	for _, f := range rep.Findings {
		switch f.Kind {
		case "race":
			races++
			if !f.Predicted {
				t.Errorf("%s: race at %s:%d observed, want predicted", f.Test, f.Accesses[0].File, f.Accesses[0].Line)
			}
			if f.Confirmed != report.ConfirmedYes {
				t.Errorf("%s: race not confirmed by replay: %s: %s", f.Test, f.Confirmed, f.Replay)
			}
		default:
			if f.Confirmed != report.ConfirmedNotTried || f.Replay == "" {
				t.Errorf("%s: %s finding: confirmed %q (%q), want not tried with a reason", f.Test, f.Kind, f.Confirmed, f.Replay)
			}
		}
	}
	if races == 0 {
		t.Fatalf("no race in examples/: %+v", rep.Findings)
	}
}

// replayPairs are predicted races: the recorded run orders the two
// accesses (so the finding is predicted), and only another schedule
// shows them unordered. Each is confirmed by replaying its witness, which
// shows that the recorder enforced it: left alone, the test keeps the
// recorded order (its sleeps make sure of it), and the race detector
// would be silent.
var replayPairs = []struct {
	name, src string
}{
	{"critical sections reversed", `package p

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

func TestPair(t *testing.T) {
	b := &box{}
	done := make(chan bool)
	go func() {
		time.Sleep(50 * time.Millisecond)
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
`},
	{"read-write lock, reader first", `package p

import (
	"sync"
	"testing"
	"time"
)

var (
	rw    sync.RWMutex
	table = map[string]int{}
	note  string
)

func TestPair(t *testing.T) {
	done := make(chan bool)
	go func() {
		note = "writer"
		rw.Lock()
		table["a"] = 1
		rw.Unlock()
		done <- true
	}()
	time.Sleep(50 * time.Millisecond)
	rw.RLock()
	_ = note
	rw.RUnlock()
	<-done
}
`},
	{"two goroutines and a WaitGroup", `package p

import (
	"sync"
	"testing"
	"time"
)

type stats struct {
	mu    sync.Mutex
	count int
	last  string
}

func (s *stats) add(name string) {
	s.last = name
	s.mu.Lock()
	s.count++
	s.mu.Unlock()
}

func TestPair(t *testing.T) {
	s := &stats{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.add("a")
	}()
	go func() {
		defer wg.Done()
		time.Sleep(50 * time.Millisecond)
		s.mu.Lock()
		_ = s.last
		s.mu.Unlock()
	}()
	wg.Wait()
}
`},
}

func TestReplayConfirmsPredictedRaces(t *testing.T) {
	replayTestSetup(t)
	for _, tc := range replayPairs {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			dir := testModule(t, "example.com/p", "p_test.go", tc.src)
			rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Replay: true})
			if err != nil {
				t.Fatal(err)
			}
			var races []report.Finding
			for _, f := range rep.Findings {
				if f.Kind == "race" {
					races = append(races, f)
				}
			}
			if len(races) == 0 {
				t.Fatalf("no race found: %+v", rep.Findings)
			}
			for _, f := range races {
				if !f.Predicted {
					t.Errorf("race on %s observed, want predicted (the test's sleeps order the run)", f.Variable)
				}
				if f.Confirmed != report.ConfirmedYes {
					t.Errorf("race on %s: confirmed %q: %s", f.Variable, f.Confirmed, f.Replay)
				}
			}
		})
	}
}

// TestReplayNotTried: a replay is not tried for an atomicity violation,
// nor without a replayable trace, and says why.
func TestReplayNotTried(t *testing.T) {
	f := &report.Finding{Kind: "race", Accesses: []report.Access{{Event: 0}, {Event: 1}}}
	tr := &trace.Trace{Events: make([]trace.Event, 2)}
	if _, err := planReplay(tr, f); err == nil || !strings.Contains(err.Error(), "not recorded to be replayed") {
		t.Errorf("planReplay on a trace without replay positions: %v", err)
	}
	for _, d := range []*report.Finding{{Kind: "atomicity"}, {Kind: "deadlock"}, {Kind: "race", Accesses: []report.Access{{Event: 0}, {Event: 1}}}} {
		if err := replayFinding(context.Background(), nil, record.RecordOptions{}, tr, d); err != nil || d.Confirmed != report.ConfirmedNotTried || d.Replay == "" {
			t.Errorf("%s: %v, %q %q", d.Kind, err, d.Confirmed, d.Replay)
		}
	}
}

// TestReplayDeadlock: two goroutines take two locks in opposite orders;
// a sleep keeps the recorded run from hanging. (It is shorter than
// ReplayStall: the sleep comes between the second goroutine's gate and
// its first Lock, and a turn whose goroutine makes no record for the
// stall time passes on.) The replay holds each at
// its second acquire until both have their first lock, and the test then
// hangs: the deadlock is confirmed. The twin whose ordering the witness
// cannot see (lockOrderModule's: main waits, by polling
// runtime.NumGoroutine, for the first goroutine to exit) is predicted but
// not confirmed: in its replay the second goroutine never starts.
func TestReplayDeadlock(t *testing.T) {
	replayTestSetup(t)
	const sleepy = `package p

import (
	"sync"
	"testing"
	"time"
)

func TestTransfers(t *testing.T) {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
`
	for _, tc := range []struct {
		name, src string
		want      string
	}{
		{"sleep", sleepy, report.ConfirmedYes},
		{"polled", polledLockOrder, report.ConfirmedNo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testModule(t, "example.com/p", "p_test.go", tc.src)
			rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Replay: true})
			if err != nil {
				t.Fatal(err)
			}
			var dl []report.Finding
			for _, f := range rep.Findings {
				if f.Kind == "deadlock" {
					dl = append(dl, f)
				}
			}
			if len(dl) != 1 {
				t.Fatalf("findings %+v, want one deadlock", rep.Findings)
			}
			if dl[0].Confirmed != tc.want {
				t.Errorf("deadlock: confirmed %q (%s), want %q", dl[0].Confirmed, dl[0].Replay, tc.want)
			}
		})
	}
}

// polledLockOrder is a lock-order inversion whose two moves a loop over
// runtime.NumGoroutine orders for real: the test starts the second move
// only after the first goroutine has exited. The recording cannot see
// that ordering (it goes through runtime state), so seer predicts a
// deadlock that no schedule shows, and replay must not confirm it.
const polledLockOrder = `package p

import (
	"runtime"
	"sync"
	"testing"
)

func TestTransfers(t *testing.T) {
	var a, b sync.Mutex
	n := runtime.NumGoroutine()
	go func() {
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	for runtime.NumGoroutine() > n {
		runtime.Gosched()
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
`
