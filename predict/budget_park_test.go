// This file tests the parking of the events past the history's cut
// (analyzePrefix, Trace.Park) and the file-backed must-happen-before
// history (clock_rises_file.go): the analysis finds the same with and
// without them, and leaves the trace as it found it.

package predict

import (
	"context"
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

func TestHistoryBudgetParked(t *testing.T) {
	defer func(p bool, n int) { parkTail, arenaMinEvents = p, n }(parkTail, arenaMinEvents)
	r := rand.New(rand.NewSource(12))
	cut := 0
	for k := 0; k < 16; k++ {
		p := genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(3), sigs: 1 + r.Intn(3),
			ops: 40 + r.Intn(60), atomics: r.Intn(3) == 0}
		tr, _ := genTrace(r, p)
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
