// This file tests the leak flavour of a select that can never proceed
// (leak_selectstuck.go) on the built run of deadlock_select_test.go: the
// same schedule is a predicted leak when the test's own goroutine ends
// in it while the select waits, and stays a deadlock when the select is
// the test's own goroutine's.

package predict

import (
	"context"
	"testing"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

func TestSelectLeakFlavour(t *testing.T) {
	valueFree := func(tr *trace.Trace, recv int) bool { return tr.Site(&tr.Events[recv]).Line == 12 }
	noPartner := func(*trace.Trace, int) ([]witness.SelectCase, bool) { return []witness.SelectCase{{}}, true }
	for _, tc := range []struct {
		name string
		own  trace.GoID // the goroutine the testing package made
		want report.Kind
	}{
		// g3 takes the helper's value and ends; the select's g2 waits.
		{"the test's own goroutine ends", 3, KindLeak},
		{"the test's own goroutine waits in the select", 2, KindDeadlock},
		{"the test has no goroutine of its own", 0, KindDeadlock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := selectRun(t) // deadlock_select_test.go
			if tc.own != 0 {
				tr.Goroutine(tc.own).Create = tr.Stacks.Intern([]trace.Frame{{Func: "testing.(*T).Run", File: "/goroot/src/testing/testing.go", Line: 2101}})
			}
			opts := Options{RecvValueFree: valueFree, SelectCases: noPartner}
			res, err := Analyze(context.Background(), tr, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Findings) != 1 {
				t.Fatalf("findings %+v, want one", res.Findings)
			}
			f := res.Findings[0]
			if f.Kind != tc.want || !f.Predicted || len(f.Stuck) != 1 || len(f.Events) != 1 || tr.Events[f.Events[0]].G != 2 {
				t.Fatalf("finding %+v, want a predicted %s of the select's goroutine 2", f, tc.want)
			}
			if err := CheckWitness(tr, &f, opts); err != nil {
				t.Errorf("witness rejected: %v", err)
			}
		})
	}
}
