// This file tests history_cut.go: the index of a history cut by its
// budget, made beside the prefix's pre-passes or in place, gives the same
// analysis.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestIndexBesideLikeInPlace analyses random traces whose history is cut
// with the index made on a goroutine beside the prefix's pre-passes and
// made in place, the history in a file (an arena) and in the heap: the
// cut, the findings and the funnel's rows are the same, and so is the
// trace after Analyze. Under -race it also checks that nothing reads the
// index or its arena before the prefix's buildMHB waits for it.
func TestIndexBesideLikeInPlace(t *testing.T) {
	defer func(b, a int) { indexBesideFrom, arenaMinEvents = b, a }(indexBesideFrom, arenaMinEvents)
	r := rand.New(rand.NewSource(31))
	cut := 0
	for k := 0; k < 12; k++ {
		tr, text := cutTrace(r, k)
		whole := keepsTrace(tr)
		for _, budget := range []int64{24, 200} {
			for _, arena := range []int{0, 1 << 30} {
				arenaMinEvents = arena
				var res [2]*Result
				for i, beside := range []int{1 << 30, 0} {
					indexBesideFrom = beside
					what := fmt.Sprintf("trace %d, budget %d, arena from %d, beside from %d", k, budget, arena, beside)
					res[i] = analyzeWhole(t, tr, Options{HistoryBudget: budget}, whole, what, text)
				}
				if res[1].Stats.HistoryCut > 0 {
					cut++
				}
				mustSameCut(t, res, fmt.Sprintf("trace %d, budget %d, arena from %d", k, budget, arena), "in place", "beside", text)
			}
		}
	}
	t.Logf("%d analyses cut", cut)
	if cut < 10 {
		t.Fatalf("only %d analyses cut their history: the test says little", cut)
	}
}

// keepsTrace returns a check that tr's events and values are still what
// they are now.
func keepsTrace(tr *trace.Trace) func() bool {
	events, values := slices.Clone(tr.Events), slices.Clone(tr.Values)
	return func() bool { return slices.Equal(tr.Events, events) && slices.Equal(tr.Values, values) }
}

// analyzeWhole analyses tr with o, failing t on an error or if the trace
// is not whole after Analyze (whole, from keepsTrace).
func analyzeWhole(t *testing.T, tr *trace.Trace, o Options, whole func() bool, what, text string) *Result {
	t.Helper()
	res, err := Analyze(context.Background(), tr, o)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, text)
	}
	if !whole() {
		t.Fatalf("%s: the trace is not whole after Analyze", what)
	}
	return res
}

// mustSameCut fails t unless two analyses, done the ways named a and b,
// have the same history cut, findings and funnel rows (but for the rows'
// times).
func mustSameCut(t *testing.T, res [2]*Result, what, a, b, text string) {
	t.Helper()
	x, y := res[0], res[1]
	if x.Stats.HistoryCut != y.Stats.HistoryCut || !reflect.DeepEqual(x.Findings, y.Findings) || !sameRows(x.Stats.Stages, y.Stats.Stages) {
		t.Fatalf("%s: %s cut at %d, %d findings, rows %v; %s cut at %d, %d findings, rows %v\n%s",
			what, a, x.Stats.HistoryCut, len(x.Findings), x.Stats.Stages, b, y.Stats.HistoryCut, len(y.Findings), y.Stats.Stages, text)
	}
}

// sameRows compares funnel rows but for their times.
func sameRows(a, b []Stage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Time, y.Time = 0, 0
		if x != y {
			return false
		}
	}
	return true
}

// cutTrace returns the k-th of a series of random traces long enough for
// small history budgets to cut them, every fourth a channel stress trace,
// and the text of those that have one.
func cutTrace(r *rand.Rand, k int) (*trace.Trace, string) {
	if k%4 == 0 {
		return synthChan(4+r.Intn(20), 1+r.Intn(6), 200+r.Intn(800), r.Int63()), "synthChan"
	}
	return genTrace(r, cutParams(r))
}

// cutParams are random traces' parameters long enough for small history
// budgets to cut them.
func cutParams(r *rand.Rand) genParams {
	return genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(3), sigs: 1 + r.Intn(3),
		ops: 40 + r.Intn(60), atomics: r.Intn(3) == 0}
}

// TestCutPrefixClassesBeside analyses traces whose history outgrows its
// budget as large traces (the whole trace's passes one after the other,
// the index made on a goroutine, the prefix's classes made beside the
// wait for it: startSHB given the longer trace's history) and as small
// ones (the classes beside, as they always were), and compares the cut,
// the findings and the funnel's rows.
func TestCutPrefixClassesBeside(t *testing.T) {
	defer func(n, i int, f func(*Options) bool) { concurrentPassesBelow, indexBesideFrom, passesBeside = n, i, f }(concurrentPassesBelow, indexBesideFrom, passesBeside)
	passesBeside = func(*Options) bool { return false } // one after the other, whatever GOMEMLIMIT says
	r := rand.New(rand.NewSource(17))
	cut, found := 0, 0
	for k := 0; k < 12; {
		tr, _ := genTrace(r, cutParams(r))
		if len(tr.Events) > 300 {
			continue // the witness search of the longest takes seconds
		}
		k++
		for _, budget := range []int64{24, 200} {
			var res [2]*Result
			for j, large := range []bool{false, true} {
				concurrentPassesBelow, indexBesideFrom = 1<<30, 1<<30
				if large {
					concurrentPassesBelow, indexBesideFrom = 0, 0
				}
				res[j] = analyze(t, tr, Options{HistoryBudget: budget})
			}
			if res[1].Stats.HistoryCut > 0 {
				cut++
			}
			mustSameCut(t, res, fmt.Sprintf("trace %d, budget %d", k, budget), "small", "large", "")
			found += len(res[0].Findings)
		}
	}
	t.Logf("%d analyses cut, %d findings", cut, found)
	if cut < 10 || found == 0 {
		t.Fatalf("%d analyses cut, %d findings: the test says little", cut, found)
	}
}
