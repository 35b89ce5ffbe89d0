// This file tests analyze_panic.go: a panic at each stage of Analyze
// (panicHook) reaches the caller only once every goroutine of the call
// has ended, the arena's mappings and file and the parked tail's file
// are closed, and the trace is whole.

package predict

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

// panicValue is what panicHook panics with in TestAnalyzePanicSettles.
type panicValue struct{ stage panicStage }

// stageAction is what TestAnalyzePanicSettles's hook does at its stage.
type stageAction int

const (
	actPanic  stageAction = iota // panics with a panicValue
	actCancel                    // cancels Analyze's context
)

var actNames = [...]string{actPanic: "panic", actCancel: "cancel"}

// TestAnalyzePanicSettles panics at each stage of Analyze, on a trace
// whose history is cut (the index on a goroutine, the arena in a file,
// the tail parked) and on one whose history is not, with the two passes
// at once, beside as for a large trace, and one after the other. The
// caller recovers the panic it was given, and then no goroutine of the
// call runs (each sleeps a little as it ends, so one left behind is
// still counted; the caller's work beside the passes, Options.WhileWhole,
// is one), no file or mapping of the call is open, and the trace
// is whole. The same holds when the context is cancelled there instead,
// Analyze's way out with an error, the history in a file or in the heap.
func TestAnalyzePanicSettles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts the open files and mappings in /proc/self")
	}
	defer func(i, a, c int, b func(*Options) bool, p bool) {
		indexBesideFrom, arenaMinEvents, concurrentPassesBelow, passesBeside, parkTail = i, a, c, b, p
		panicHook, trackGoroutine = nil, nil
	}(indexBesideFrom, arenaMinEvents, concurrentPassesBelow, passesBeside, parkTail)
	indexBesideFrom, arenaMinEvents, parkTail = 0, 0, true

	const budget = 24
	var cutTr, wholeTr *trace.Trace
	r := rand.New(rand.NewSource(31))
	for k := 0; k < 200 && (cutTr == nil || wholeTr == nil); k++ {
		tr, _ := genTrace(r, cutParams(r))
		if len(tr.Events) > 300 {
			continue // the witness search of the longest takes seconds
		}
		res := analyzeWhole(t, tr, Options{HistoryBudget: budget}, keepsTrace(tr), "finding the traces", "")
		if res.Stats.HistoryCut > 0 && cutTr == nil {
			cutTr = tr
		} else if res.Stats.HistoryCut == 0 && wholeTr == nil {
			wholeTr = tr
		}
	}
	if cutTr == nil || wholeTr == nil {
		t.Fatal("no trace found whose history the budget cuts, or none it does not")
	}

	var live atomic.Int64
	trackGoroutine = func() func() {
		live.Add(1)
		return func() {
			time.Sleep(20 * time.Millisecond)
			live.Add(-1)
		}
	}
	modes := []struct {
		name   string
		below  int
		beside bool
	}{{"at once", 1 << 20, false}, {"beside", 0, true}, {"one after the other", 0, false}}
	cases := []struct {
		name  string
		tr    *trace.Trace
		stage panicStage
		nth   int // the stage's nth call panics
	}{
		{"pre-pass", cutTr, panicPrePass, 1},
		{"cut, its index beside", cutTr, panicCut, 1},
		{"the prefix's pre-pass", cutTr, panicPrePass, 2},
		{"the prefix's side layers", cutTr, panicSide, 1},
		{"side layers, no cut", wholeTr, panicSide, 1},
	}
	cancelled := 0
	for _, act := range []stageAction{actPanic, actCancel} {
		for _, arena := range []int{0, 1 << 30} {
			arenaMinEvents = arena
			for _, m := range modes {
				concurrentPassesBelow = m.below
				passesBeside = func(*Options) bool { return m.beside }
				for _, c := range cases {
					what := fmt.Sprintf("%s, %s, %s, arena from %d", c.name, m.name, actNames[act], arena)
					if settles(t, c.tr, budget, c.stage, c.nth, act, &live, what) {
						cancelled++
					}
				}
			}
		}
	}
	if cancelled == 0 {
		t.Fatal("no cancelled analysis returned its context's error: the test says little of the error's way out")
	}
}

// settles runs one case of TestAnalyzePanicSettles: Analyze of tr, the
// hook acting at stage's nth call; it says whether Analyze returned the
// cancelled context's error.
func settles(t *testing.T, tr *trace.Trace, budget int64, stage panicStage, nth int, act stageAction, live *atomic.Int64, what string) (errored bool) {
	t.Helper()
	whole := keepsTrace(tr)
	files, maps := openFiles(t), mappedFiles(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	panicHook = func(s panicStage) {
		if s == stage {
			if calls++; calls == nth {
				if act == actCancel {
					cancel()
					return
				}
				panic(panicValue{s})
			}
		}
	}
	// The caller's work beside the passes (Options.WhileWhole) is
	// still running at the cut's stage, and stops early on a cancel.
	beside := func(ctx context.Context) {
		select {
		case <-ctx.Done():
		case <-time.After(30 * time.Millisecond):
		}
	}
	got, err := analyzeRecover(ctx, tr, Options{HistoryBudget: budget, WhileWhole: beside})
	panicHook = nil
	switch {
	case calls < nth:
		t.Fatalf("%s: the stage was reached %d times", what, calls)
	case act == actPanic && got != (panicValue{stage}):
		t.Fatalf("%s: the caller recovered %v, not the hook's panic", what, got)
	case act == actCancel && (got != nil || err != nil && !errors.Is(err, context.Canceled)):
		t.Fatalf("%s: Analyze panicked with %v or returned %v", what, got, err)
	}
	if n := live.Load(); n != 0 {
		t.Errorf("%s: %d goroutines of Analyze still run after it", what, n)
	}
	if f := openFiles(t); f != files {
		t.Errorf("%s: %d files of Analyze open after it, %d before", what, f, files)
	}
	if mp := mappedFiles(t); mp != maps {
		t.Errorf("%s: %d mappings of Analyze's files after it, %d before", what, mp, maps)
	}
	if !whole() {
		t.Errorf("%s: the trace is not whole after Analyze", what)
	}
	for live.Load() != 0 {
		time.Sleep(time.Millisecond) // what was left behind, before the next case
	}
	return err != nil
}

// analyzeRecover analyses tr with o and returns what it panicked with,
// or its error.
func analyzeRecover(ctx context.Context, tr *trace.Trace, o Options) (p any, err error) {
	defer func() { p = recover() }()
	_, err = Analyze(ctx, tr, o)
	return nil, err
}

// seerFile says whether a file (a link in /proc/self/fd, a line of
// /proc/self/maps) is one of Analyze's temporary files: the arena's or a
// spill's (clock_spill.go), or a parked tail's (trace.Park).
func seerFile(s string) bool {
	return strings.Contains(s, "seer-spill-") || strings.Contains(s, "seer-park-")
}

// openFiles counts the process's open temporary files of Analyze's.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && seerFile(to) {
			n++
		}
	}
	return n
}

// mappedFiles counts the process's mappings of Analyze's temporary
// files.
func mappedFiles(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if seerFile(l) {
			n++
		}
	}
	return n
}
