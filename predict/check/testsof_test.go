// This file tests testsOf's event counts (check.go): each top-level
// test's events are those its goroutines made, recorded or left out of
// the trace as local accesses, and no event of a harness goroutine or of
// goroutine id 0 counts. BenchmarkTestsOfTrace times testsOf on a kept
// trace:
//
//	SEER_BENCH_TRACE=T go test -run XXX -bench TestsOfTrace -benchtime 5x ./predict/check

package check

import (
	"os"
	"reflect"
	"testing"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

func TestTestsOfCountsEvents(t *testing.T) {
	tr := &trace.Trace{Goroutines: []trace.Goroutine{
		{}, {ID: 1}, {ID: 2, Test: "TestA"}, {ID: 3, Test: "TestB"}, {ID: 4, Test: "TestA"}, {ID: 5, Test: "TestC"},
	}}
	for _, g := range []trace.GoID{1, 2, 2, 3, 4, 4, 4, 0, 1, 3} { // 0: no goroutine
		tr.Events = append(tr.Events, trace.Event{G: g, Op: trace.OpRead})
	}
	tr.Local = []int{7, 5, 10, 0, 1, 0} // id 0 is no goroutine's; 1 is the harness's
	rec := &record.RecordResult{Package: "p", Trace: tr, Outcome: trace.Outcome{Result: "pass"},
		Tests: []record.TestResult{{Name: "TestA", Result: "pass"}, {Name: "TestB", Result: "pass"}, {Name: "TestC", Result: "pass"}, {Name: "TestA/sub", Result: "pass"}}}
	want := map[string]int{"TestA": 2 + 10 + 3 + 1, "TestB": 2, "TestC": 0}
	got := testsOf(rec, 0)
	if len(got) != len(want) {
		t.Fatalf("testsOf listed %d tests, want %d: %+v", len(got), len(want), got)
	}
	for _, r := range got {
		if r.Events != want[r.Name] {
			t.Errorf("%s: %d events, want %d", r.Name, r.Events, want[r.Name])
		}
	}
}

func BenchmarkTestsOfTrace(b *testing.B) {
	path := os.Getenv("SEER_BENCH_TRACE")
	if path == "" {
		b.Skip("SEER_BENCH_TRACE names no trace")
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	rec := &record.RecordResult{Trace: tr, Outcome: trace.Outcome{Result: "pass"}}
	b.ResetTimer()
	for range b.N {
		testsOf(rec, 0)
	}
}

// A failed test's output reaches its report, and stays when -count's runs
// are united: the first run that did not pass says why.
func TestTestsOfOutput(t *testing.T) {
	tr := &trace.Trace{Goroutines: []trace.Goroutine{{}, {ID: 1}}}
	out := []string{"    a_test.go:9: got 1, want 2"}
	rec := &record.RecordResult{Package: "p", Trace: tr, Outcome: trace.Outcome{Result: "fail"},
		Tests: []record.TestResult{{Name: "TestA", Result: "fail", Output: out}, {Name: "TestB", Result: "pass"}}}
	got := testsOf(rec, 0)
	if len(got) != 2 || !reflect.DeepEqual(got[0].Output, out) || got[1].Output != nil {
		t.Fatalf("testsOf: %+v, want TestA's output %q", got, out)
	}
	pass := report.Test{Package: "p", Name: "TestA", Outcome: "pass"}
	united := uniteTests([]report.Test{pass, got[0], pass})
	if len(united) != 1 || united[0].Outcome != "fail" || !reflect.DeepEqual(united[0].Output, out) {
		t.Errorf("united: %+v, want TestA failed with output %q", united, out)
	}
}
