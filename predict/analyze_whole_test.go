// This file tests analyze_whole.go: Options.WhileWhole runs once a call
// of Analyze, sees the whole trace for as long as it runs (no tail
// parked, no table written back under it), has ended when Analyze
// returns, changes no finding, and its panic reaches Analyze's caller.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWhileWholeSeesWholeTrace analyses random and channel stress traces
// as large traces (one after the other and beside) and as small ones,
// with no history budget and one that cuts, and with the baselines. The
// hook compares the trace's events with a copy as it starts and again
// after a sleep (a tail parked by a cut, or a Restore writing the tables,
// meanwhile would show, and -race would report the write); it must run
// once, have ended when Analyze returns, and leave the findings, the cut
// and the funnel's rows as they are without it.
func TestWhileWholeSeesWholeTrace(t *testing.T) {
	defer func(n int, f func(*Options) bool, p bool) { concurrentPassesBelow, passesBeside, parkTail = n, f, p }(concurrentPassesBelow, passesBeside, parkTail)
	parkTail = true
	modes := []struct {
		name   string
		below  int
		beside bool
	}{{"small", 1 << 20, false}, {"large, one after the other", 0, false}, {"large, beside", 0, true}}
	r := rand.New(rand.NewSource(71))
	cut := 0
	for k := 0; k < 6; k++ {
		tr, text := cutTrace(r, k)
		whole := keepsTrace(tr)
		events := slices.Clone(tr.Events)
		for _, m := range modes {
			concurrentPassesBelow = m.below
			passesBeside = func(*Options) bool { return m.beside }
			for _, o := range []Options{{HistoryBudget: 0}, {HistoryBudget: 24}, {Analysis: AnalysisSHB}, {Analysis: AnalysisHB}} {
				what := fmt.Sprintf("trace %d, %s, %s analysis, budget %d", k, m.name, o.Analysis, o.HistoryBudget)
				var res [2]*Result
				res[0] = analyzeWhole(t, tr, o, whole, what+", no hook", text)
				var calls, ended atomic.Int32
				var seen atomic.Value // what the hook saw amiss, if anything
				o.WhileWhole = func(context.Context) {
					calls.Add(1)
					if !slices.Equal(tr.Events, events) {
						seen.Store("a trace other than the whole as it started")
					}
					time.Sleep(5 * time.Millisecond)
					if !slices.Equal(tr.Events, events) {
						seen.Store("a trace other than the whole after a while")
					}
					ended.Store(1)
				}
				res[1] = analyzeWhole(t, tr, o, whole, what, text)
				if n := calls.Load(); n != 1 {
					t.Fatalf("%s: the hook ran %d times, want once", what, n)
				}
				if ended.Load() != 1 {
					t.Fatalf("%s: Analyze returned before the hook had", what)
				}
				if s := seen.Load(); s != nil {
					t.Fatalf("%s: the hook saw %s", what, s)
				}
				if res[1].Stats.HistoryCut > 0 {
					cut++
				}
				mustSameCut(t, res, what, "without the hook", "with it", text)
			}
		}
	}
	if cut < 6 {
		t.Fatalf("%d analyses cut their history: the test says little of the cut's park", cut)
	}
}

// TestWhileWholePanicReachesCaller: a panic in the hook reaches Analyze's
// caller, with the hook's value, once Analyze's goroutines have ended.
func TestWhileWholePanicReachesCaller(t *testing.T) {
	defer func(f func() func()) { trackGoroutine = f }(trackGoroutine)
	var live atomic.Int64
	trackGoroutine = func() func() {
		live.Add(1)
		return func() {
			time.Sleep(10 * time.Millisecond)
			live.Add(-1)
		}
	}
	r := rand.New(rand.NewSource(5))
	tr, _ := genTrace(r, cutParams(r))
	whole := keepsTrace(tr)
	got, err := analyzeRecover(context.Background(), tr, Options{HistoryBudget: 24, WhileWhole: func(context.Context) { panic("the hook's panic") }})
	if s, ok := got.(string); !ok || !strings.Contains(s, "the hook's panic") {
		t.Fatalf("the caller recovered %v (error %v), not the hook's panic", got, err)
	}
	if n := live.Load(); n != 0 {
		t.Errorf("%d goroutines of Analyze still run after it", n)
	}
	if !whole() {
		t.Error("the trace is not whole after Analyze")
	}
}
