// This file tests noteMisuseStop (check.go): the test during which the
// misuse layer's first undecided WaitGroup candidate ran gets
// MisuseStopNote, and no test gets it when the layer decided them all.

package check

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

func TestNoteMisuseStop(t *testing.T) {
	tr := &trace.Trace{Goroutines: []trace.Goroutine{{}, {ID: 1}, {ID: 2, Test: "TestA"}, {ID: 3, Test: "TestB"}}}
	for _, g := range []trace.GoID{1, 2, 2, 3, 3, 1} {
		tr.Events = append(tr.Events, trace.Event{G: g, Op: trace.OpRead})
	}
	rec := &record.RecordResult{Package: "p", Trace: tr, Outcome: trace.Outcome{Result: "pass"},
		Tests: []record.TestResult{{Name: "TestA", Result: "pass"}, {Name: "TestB", Result: "pass"}}}
	for _, tc := range []struct {
		name    string
		row     predict.Stage
		noteFor string // the test that gets the note, "" for none
	}{
		{"none stopped", predict.Stage{Name: "misuse"}, ""},
		{"stopped in TestA", predict.Stage{Name: "misuse", MisuseStopped: 3, MisuseStoppedAt: 2}, "TestA"},
		{"stopped in TestB", predict.Stage{Name: "misuse", MisuseStopped: 1, MisuseStoppedAt: 4}, "TestB"},
		{"stopped at the harness's first event", predict.Stage{Name: "misuse", MisuseStopped: 1, MisuseStoppedAt: 0}, "TestA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tests := testsOf(rec, 0)
			noteMisuseStop(tests, tr, predict.Stats{Stages: []predict.Stage{{Name: "shb"}, tc.row}})
			for _, r := range tests {
				has := strings.Contains(strings.Join(r.Errors, "\n"), MisuseStopNote(tc.row.MisuseStopped))
				if has != (r.Name == tc.noteFor) {
					t.Errorf("%s: note %v, want it on %q; errors %q", r.Name, has, tc.noteFor, r.Errors)
				}
			}
		})
	}
}
