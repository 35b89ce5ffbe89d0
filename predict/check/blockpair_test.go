// This file holds the helpers of issue 32's paired blocking tests: record
// a one-file module, expect one predicted deadlock of two goroutines in
// the buggy twin and no finding in the fixed one.

package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

// recordOne records and analyses a module of the one test file src, whose
// runs must pass, and returns the report and the module's directory.
func recordOne(t *testing.T, src string) (*report.Report, string) {
	t.Helper()
	dir := testModuleFiles(t, "example.com/p", map[string]string{"p_test.go": src})
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	passed(t, rep)
	return rep, dir
}

// onePredictedDeadlock returns rep's only finding, which must be a
// predicted deadlock of two goroutines with a witness, whose blocked
// operations are ops at the lines of src marked by marks.
func onePredictedDeadlock(t *testing.T, rep *report.Report, src string, ops, marks [2]string) report.Finding {
	t.Helper()
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want one deadlock", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Kind != report.KindDeadlock || !f.Predicted || len(f.Witness) == 0 || len(f.Accesses) != 2 {
		t.Fatalf("finding %+v, want a predicted deadlock of two goroutines with a witness", f)
	}
	for k, a := range f.Accesses {
		if want := markedLine(t, src, marks[k]); a.Op != ops[k] || a.Line != want {
			t.Errorf("blocked operation %d: %s at line %d, want %s at %d (%s)", k, a.Op, a.Line, ops[k], want, marks[k])
		}
	}
	return f
}

// noFinding fails t if the module of the test file src has any finding.
func noFinding(t *testing.T, src string) {
	t.Helper()
	if rep, _ := recordOne(t, src); len(rep.Findings) != 0 {
		t.Fatalf("findings in the fixed twin: %+v", rep.Findings)
	}
}

// markedLine returns the line of src that holds mark.
func markedLine(t *testing.T, src, mark string) int {
	t.Helper()
	for n, l := range strings.Split(src, "\n") {
		if strings.Contains(l, mark) {
			return n + 1
		}
	}
	t.Fatalf("no %q", mark)
	return 0
}
