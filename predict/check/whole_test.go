// This file tests whole.go: the walk of a run's every event beside the
// analysis finds what the walks after it found (the blocked goroutines
// before their check, and testsOf's tests), for each way a run ends, and
// stops with its context's error once cancelled.

package check

import (
	"context"
	"errors"
	"reflect"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

func TestWalkWholeLikeAfter(t *testing.T) {
	tr, _, err := synthtrace.Blocked(3, 2)
	if err != nil {
		t.Fatal(err)
	}
	var worker trace.GoID // a goroutine the exit hook found alive
	for g := len(tr.Goroutines) - 1; g > 0 && worker == 0; g-- {
		if tr.Goroutines[g].Test != "" {
			worker = trace.GoID(g)
		}
	}
	tests := []record.TestResult{{Name: "TestBlocked", Result: "pass"}}
	for _, tc := range []struct {
		name    string
		rec     record.RecordResult
		blocked int // findings before their check
	}{
		{"passed", record.RecordResult{Outcome: trace.Outcome{Result: "pass"}, Tests: tests}, 1},
		{"hung", record.RecordResult{Outcome: trace.Outcome{Result: "timeout"}, Tests: tests}, 1},
		{"left alive at the exit", record.RecordResult{Outcome: trace.Outcome{Result: "pass"}, Tests: tests, Left: []record.HangWait{{G: worker}}}, 1},
		// A run that hung reports its deadlock, whatever the exit hook found.
		{"hung, goroutines left", record.RecordResult{Outcome: trace.Outcome{Result: "timeout"}, Tests: tests, Left: []record.HangWait{{G: worker}}}, 1},
		{"exited", record.RecordResult{Outcome: trace.Outcome{Result: "pass"}, Tests: []record.TestResult{{Name: "TestBlocked", Result: "exit"}}}, 0},
		{"panicked", record.RecordResult{Outcome: trace.Outcome{Result: "panic"}, Tests: tests}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tc.rec
			rec.Trace, rec.Package = tr, "example.com/p"
			// What the walks after the analysis found.
			var want []predict.Finding
			if tc.blocked > 0 {
				hung := rec.Outcome.Result == "timeout"
				want = predict.ObservedBlocked(tr, hung)
				if len(rec.Left) > 0 && !hung {
					want = predict.ObservedLeft(tr, func(g trace.GoID) bool { return g == worker })
				}
			}
			w, walk := walkWhole(&rec)
			walk(context.Background())
			if w.err != nil {
				t.Fatal(w.err)
			}
			if len(w.blocked) != tc.blocked || !reflect.DeepEqual(w.blocked, want) {
				t.Errorf("blocked %+v, want %+v", w.blocked, want)
			}
			// testsOf's test: its goroutines' events, and its leaked
			// goroutines when the run ended normally.
			events := 0
			for i := range tr.Events {
				if g := tr.Events[i].G; g > 0 && tr.Goroutines[g].Test == "TestBlocked" {
					events++
				}
			}
			got := testsOfWalk(&rec, 0, 0, w.tests)
			if len(got) != 1 || got[0].Events != events || !reflect.DeepEqual(got[0].Leaked, leakedGoroutines(&rec)["TestBlocked"]) {
				t.Errorf("tests %+v, want TestBlocked with %d events and leaked %v", got, events, leakedGoroutines(&rec)["TestBlocked"])
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			w, walk = walkWhole(&rec)
			if walk(ctx); !errors.Is(w.err, context.Canceled) {
				t.Errorf("cancelled: error %v, want %v", w.err, context.Canceled)
			}
		})
	}
}
