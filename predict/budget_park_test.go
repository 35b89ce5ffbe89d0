// This file tests the parking of the events past the history's cut
// (analyzePrefix, Trace.Park), of a large trace's values while its first
// passes run (analyze_values.go, Trace.ParkValues), and the file-backed
// must-happen-before history (clock_rises_file.go): the analysis finds
// the same with and without them, and leaves the trace as it found it.

package predict

import (
	"context"
	"math/rand"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/seer-tools/seer/internal/gotext"
)

func TestHistoryBudgetParked(t *testing.T) {
	defer func(p bool, n int) { parkTail, arenaMinEvents = p, n }(parkTail, arenaMinEvents)
	r := rand.New(rand.NewSource(12))
	cut := 0
	for k := 0; k < 16; k++ {
		tr, _ := genTrace(r, cutParams(r))
		events, values := slices.Clone(tr.Events), slices.Clone(tr.Values)
		for _, budget := range []int64{24, 200} {
			o := Options{HistoryBudget: budget}
			var res [2]*Result
			for i, park := range []bool{false, true} {
				parkTail = park
				arenaMinEvents = 1 << 30 // the history in the heap
				if park {
					arenaMinEvents = 0 // in a file
				}
				got, err := Analyze(context.Background(), tr, o)
				if err != nil {
					t.Fatalf("trace %d, budget %d, parked %v: %v", k, budget, park, err)
				}
				res[i] = got
				if !slices.Equal(tr.Events, events) || !slices.Equal(tr.Values, values) {
					t.Fatalf("trace %d, budget %d, parked %v: after Analyze the trace has %d events and %d values (or other contents), not its %d and %d",
						k, budget, park, len(tr.Events), len(tr.Values), len(events), len(values))
				}
			}
			if res[1].Stats.HistoryCut > 0 {
				cut++
			}
			if res[0].Stats.HistoryCut != res[1].Stats.HistoryCut || !reflect.DeepEqual(res[0].Findings, res[1].Findings) {
				t.Fatalf("trace %d, budget %d: cut at %d, %d findings parked; cut at %d, %d findings not:\n%v\n%v",
					k, budget, res[1].Stats.HistoryCut, len(res[1].Findings), res[0].Stats.HistoryCut, len(res[0].Findings), res[1].Findings, res[0].Findings)
			}
		}
	}
	t.Logf("%d analyses cut", cut)
	if cut < 10 {
		t.Fatalf("only %d analyses cut their history: the test says little", cut)
	}
}

// A large trace's values are parked while the whole trace's first passes
// run (analyze_values.go), and back before the layers that read them: the
// findings, the WaitGroup ones decided by the Adds' deltas, are the same
// with the passes run as on a large trace (sequential, values parked) and
// without parking, and the trace's values are whole after Analyze.
func TestValuesParked(t *testing.T) {
	defer func(n int, p bool) { concurrentPassesBelow, parkValues = n, p }(concurrentPassesBelow, parkValues)
	concurrentPassesBelow = 0 // every trace is large
	for _, tc := range []struct{ name, trace, want string }{
		{"Add of two, three Dones", `
g1 add wg 2 @10
g1 go g2
g1 go g3
g2 done wg @20
g3 done wg @21
g3 done wg @22
g1 wait wg @30
`, "negative-waitgroup 20 predicted; negative-waitgroup 22"},
		{"Add of three in a goroutine, Wait before its last Done", `
g1 go g2
g1 go g3
g2 add wg 3 @10
g2 done wg @20
g3 done wg @21
g1 wait wg @30
g2 done wg @23
`, "waitgroup-reuse 30-10 predicted; negative-waitgroup 21 predicted"},
		{"Adds of two and one, a race beside", `
g1 add wg 2 @5
g1 go g2
g2 w y @8
g2 done wg @20
g1 r y @9
g1 add wg 1 @6
g1 go g3
g3 done wg @21
g2 done wg @22
g1 wait wg @30
`, "race 8-9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := gotext.Build(tc.trace)
			if err != nil {
				t.Fatal(err)
			}
			values := slices.Clone(tr.Values)
			if len(values) == 0 {
				t.Fatal("the trace has no values: the test says nothing")
			}
			// The passes' phases by hand: the values are away while the
			// SHB layer's and must-happen-before's passes run, and back
			// after.
			parkValues = true
			o := Options{}
			a := &analysis{ctx: context.Background(), o: o.defaults(), t: tr, start: time.Now()}
			a.res = &Result{}
			a.prePass()
			if a.e, err = relevance(a.ctx, tr, a.c, a.m, a.o); err != nil {
				t.Fatal(err)
			}
			if err := a.startSHB(); err != nil {
				t.Fatal(err)
			}
			canPark := runtime.GOOS == "linux" // trace's discard
			if parked := a.values != nil; parked != (len(tr.Values) == 0) || parked != canPark {
				t.Fatalf("before must-happen-before's pass: parked %v with %d values; the system can park: %v", parked, len(tr.Values), canPark)
			}
			if err := a.mustHappenBefore(); err != nil {
				t.Fatal(err)
			}
			if a.values != nil || !slices.Equal(tr.Values, values) {
				t.Fatalf("after must-happen-before's pass: %d values, not the trace's %d (or other contents)", len(tr.Values), len(values))
			}
			a.waitSide()
			for _, park := range []bool{true, false} {
				parkValues = park
				res, err := Analyze(context.Background(), tr, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got := describe(tr, res.Findings); got != tc.want {
					t.Errorf("values parked %v: got %q, want %q", park, got, tc.want)
				}
				if !slices.Equal(tr.Values, values) {
					t.Fatalf("values parked %v: after Analyze %d values, not the trace's %d (or other contents)", park, len(tr.Values), len(values))
				}
			}
		})
	}
}
