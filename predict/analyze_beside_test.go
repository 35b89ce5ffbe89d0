// This file tests analyze_beside.go: a large trace's SHB layer run beside
// its must-happen-before pass gives the same analysis as run before it,
// and the choice follows the room under the Go memory limit.

package predict

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"runtime/debug"
	"testing"
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

// passesFitLimit says yes when the room under the memory limit is at least
// the live heap, and no without a limit, with a limit the live heap
// fills, or on one processor; besideFits judges the room in the
// analysis's share of the limit.
func TestPassesFitLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	keep := make([]byte, 64<<20) // live through the checks below
	for i := range keep {
		keep[i] = byte(i)
	}
	for _, tc := range []struct {
		name  string
		limit int64
		want  bool
	}{
		{"no limit", math.MaxInt64, false},
		{"a limit the live heap fills", 64 << 20, false},
		{"a limit just under twice the live heap", 120 << 20, false},
		{"a limit of eight times the live heap and more", 1 << 30, true},
	} {
		debug.SetMemoryLimit(tc.limit)
		if got := passesFitLimit(1); got != tc.want {
			t.Errorf("%s: passesFitLimit(1) = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Under a limit several analyses share, the room is judged in this
	// one's share of it (Options.Sharing).
	debug.SetMemoryLimit(1 << 30)
	for _, tc := range []struct {
		sharing func() int
		want    bool
	}{
		{nil, true},
		{func() int { return 1 }, true},
		{func() int { return 4 }, true},   // 256 MiB, twice the live heap and more
		{func() int { return 16 }, false}, // 64 MiB, which the live heap fills
		{func() int { return 0 }, true},   // taken as one
	} {
		n := 0
		if tc.sharing != nil {
			n = tc.sharing()
		}
		if got := besideFits(&Options{Sharing: tc.sharing}); got != tc.want {
			t.Errorf("sharing %d: besideFits = %v, want %v", n, got, tc.want)
		}
	}
	runtime.GOMAXPROCS(1)
	if passesFitLimit(1) {
		t.Error("one processor: passesFitLimit(1) = true, want false")
	}
	runtime.KeepAlive(keep)
}
