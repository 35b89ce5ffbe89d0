// This file tests analyze_beside.go: a large trace's SHB layer run beside
// its must-happen-before pass gives the same analysis as run before it,
// paused by the governor or not, the pass pauses once the room is
// reached and stops pausing on its context, and the choice follows the
// processors and the memory limit.

package predict

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

// TestPassesBesideLikeOneAfterOther analyses random traces as large
// traces (concurrentPassesBelow 0) with the SHB layer beside the
// must-happen-before pass and before it, with no history budget and with
// budgets that cut the history: the cut, the findings and the funnel's
// rows are the same, the trace is whole after Analyze, and every analysis
// that runs the SHB layer asked whether it may run beside. Under -race it
// also checks that nothing after the pass reads what the SHB layer
// writes before waiting for it.
func TestPassesBesideLikeOneAfterOther(t *testing.T) {
	defer func(n int, f func(*Options) bool) { concurrentPassesBelow, passesBeside = n, f }(concurrentPassesBelow, passesBeside)
	concurrentPassesBelow = 0 // every trace is large
	r := rand.New(rand.NewSource(53))
	cut, found := 0, 0
	for k := 0; k < 16; k++ {
		tr, text := cutTrace(r, k)
		whole := keepsTrace(tr)
		for _, budget := range []int64{0, 24, 200} {
			var res [2]*Result
			for i, beside := range []bool{false, true} {
				n := 0
				passesBeside = func(*Options) bool { n++; return beside }
				what := fmt.Sprintf("trace %d, budget %d, beside %v", k, budget, beside)
				res[i] = analyzeWhole(t, tr, Options{HistoryBudget: budget, CriticalSectionsAsTransactions: true}, whole, what, text)
				if n != 1 {
					t.Fatalf("%s: the choice was asked %d times, want once (the whole trace's SHB layer)", what, n)
				}
			}
			if res[1].Stats.HistoryCut > 0 {
				cut++
			}
			found += len(res[1].Findings)
			mustSameCut(t, res, fmt.Sprintf("trace %d, budget %d", k, budget), "one after the other", "beside", text)
		}
	}
	t.Logf("%d analyses cut, %d findings", cut, found)
	if cut < 10 || found == 0 {
		t.Fatalf("%d analyses cut their history, %d findings: the test says little", cut, found)
	}
}

// TestGovernedPauseLikeOneAfterOther analyses random traces as large
// traces beside, with a room every process has reached, so that the
// must-happen-before pass pauses at its first question; the SHB layer
// starts only once the pass has paused (besideHook), so the pass must
// pause for the analysis to go on. The cut, the findings and the rows
// are those of one after the other. With a room no process reaches the
// pass never pauses.
func TestGovernedPauseLikeOneAfterOther(t *testing.T) {
	defer func(n int, f func(*Options) bool, room func(*Options) int64) {
		concurrentPassesBelow, passesBeside, besideRoom, besideHook = n, f, room, nil
	}(concurrentPassesBelow, passesBeside, besideRoom)
	concurrentPassesBelow = 0 // every trace is large
	r := rand.New(rand.NewSource(59))
	analyses, cut := 0, 0
	for k := 0; k < 8; k++ {
		tr, text := cutTrace(r, k)
		whole := keepsTrace(tr)
		for _, budget := range []int64{0, 24, 200} {
			what := fmt.Sprintf("trace %d, budget %d", k, budget)
			var res [2]*Result
			passesBeside = func(*Options) bool { return false }
			res[0] = analyzeWhole(t, tr, Options{HistoryBudget: budget}, whole, what+", one after the other", text)

			passesBeside = func(*Options) bool { return true }
			besideRoom = func(*Options) int64 { return 1 }
			pauses, paused := 0, make(chan struct{})
			besideHook = func(s besideStage) {
				switch s {
				case besidePause:
					if pauses++; pauses == 1 {
						close(paused)
					}
				case besideSHB:
					select {
					case <-paused:
					case <-time.After(10 * time.Second):
						t.Errorf("%s: the SHB layer waited 10 s and the pass did not pause", what)
					}
				}
			}
			res[1] = analyzeWhole(t, tr, Options{HistoryBudget: budget}, whole, what+", paused", text)
			if pauses != 1 {
				t.Fatalf("%s: the pass paused %d times, want once", what, pauses)
			}
			mustSameCut(t, res, what, "one after the other", "paused", text)
			if res[1].Stats.HistoryCut > 0 {
				cut++
			}
			analyses++

			besideRoom = func(*Options) int64 { return math.MaxInt64 }
			besideHook = func(s besideStage) {
				if s == besidePause {
					t.Errorf("%s: the pass paused below its room", what)
				}
			}
			res[1] = analyzeWhole(t, tr, Options{HistoryBudget: budget}, whole, what+", not paused", text)
			mustSameCut(t, res, what, "one after the other", "not paused", text)
		}
	}
	if cut == 0 || cut == analyses {
		t.Fatalf("%d of %d analyses cut their history: the test says little", cut, analyses)
	}
}

// TestGovernorHold: a governor past its room waits for the SHB layer's
// end, and returns its context's error soon after the context is
// cancelled; below its room, or once the SHB layer has ended, it returns
// at once; a nil governor holds nothing.
func TestGovernorHold(t *testing.T) {
	if resident() < 0 {
		t.Skip("no resident memory to read")
	}
	hold := func(g *governor) (error, time.Duration) {
		t0 := time.Now()
		done := make(chan error, 1)
		go func() { done <- g.hold() }()
		select {
		case err := <-done:
			return err, time.Since(t0)
		case <-time.After(10 * time.Second):
			t.Fatal("hold did not return in 10 s")
			return nil, 0
		}
	}
	never := make(chan struct{})
	if err, d := hold(newGovernor(context.Background(), math.MaxInt64, never)); err != nil || d > time.Second {
		t.Errorf("below the room: hold = %v after %v, want nil at once", err, d)
	}
	ended := make(chan struct{})
	close(ended)
	if err, d := hold(newGovernor(context.Background(), 1, ended)); err != nil || d > time.Second {
		t.Errorf("past the room, the SHB layer ended: hold = %v after %v, want nil at once", err, d)
	}
	if err := (*governor)(nil).hold(); err != nil {
		t.Errorf("nil governor: hold = %v", err)
	}
	if newGovernor(context.Background(), 0, never) != nil {
		t.Error("room 0: a governor, want none")
	}

	later := make(chan struct{})
	time.AfterFunc(100*time.Millisecond, func() { close(later) })
	if err, d := hold(newGovernor(context.Background(), 1, later)); err != nil || d < 50*time.Millisecond {
		t.Errorf("past the room: hold = %v after %v, want nil once the SHB layer ended", err, d)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if err, d := hold(newGovernor(ctx, 1, never)); err != context.Canceled || d < 50*time.Millisecond {
		t.Errorf("past the room, cancelled: hold = %v after %v, want %v", err, d, context.Canceled)
	}
}

// TestBesideGoverned: a large trace's passes run beside only with two
// processors and a memory limit, and the room is the analysis's share of
// the limit (Options.Sharing); seer's own limit (trace.SetMemoryLimit)
// before the Go runtime's.
func TestBesideGoverned(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer trace.SetMemoryLimit(trace.MemoryLimit())
	trace.SetMemoryLimit(0)
	runtime.GOMAXPROCS(2)
	debug.SetMemoryLimit(math.MaxInt64)
	if besideGoverned(&Options{}) || limitShare(&Options{}) != 0 {
		t.Errorf("no limit: besideGoverned %v, room %d; want false, 0", besideGoverned(&Options{}), limitShare(&Options{}))
	}
	debug.SetMemoryLimit(1 << 30)
	for _, tc := range []struct {
		sharing func() int
		want    int64
	}{
		{nil, 1 << 30},
		{func() int { return 1 }, 1 << 30},
		{func() int { return 4 }, 1 << 28},
		{func() int { return 0 }, 1 << 30}, // taken as one
	} {
		o := &Options{Sharing: tc.sharing}
		if got := limitShare(o); got != tc.want || !besideGoverned(o) {
			t.Errorf("limit 1 GiB: room %d, besideGoverned %v; want %d, true", got, besideGoverned(o), tc.want)
		}
	}
	trace.SetMemoryLimit(1 << 29) // sets the Go limit too, raised by the room given back
	if got := limitShare(&Options{}); got != 1<<29 {
		t.Errorf("seer's limit 512 MiB: room %d, want %d", got, 1<<29)
	}
	runtime.GOMAXPROCS(1)
	if besideGoverned(&Options{}) {
		t.Error("one processor: besideGoverned = true, want false")
	}
}
