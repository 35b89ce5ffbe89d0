// This file tests the select that can never proceed (deadlock_select.go)
// on built traces: the taken-partner run of deadlock_partner_test.go
// with the test's send made in a select, whose other case static
// analysis lists. With no partner of that case anywhere, or none that
// runs, the select is a predicted deadlock whose witness the checker
// accepts; with a partner that runs in the schedule, with the cases not
// known, or with no static answer, nothing is reported.

package predict

import (
	"testing"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// selectRun is takenPartnerRun with the test's send (its two events) made
// in a select on line 19 of the test.
func selectRun(t *testing.T) *trace.Trace {
	tr := takenPartnerRun(t, false, false, 0)
	sel := tr.Stacks.Intern([]trace.Frame{
		{Func: "runtime.selectgo", File: "/goroot/src/runtime/select.go", Line: 300},
		{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 19},
	})
	n := 0
	for i := range tr.Events {
		if e := &tr.Events[i]; e.G == 2 && e.Op == trace.OpSend {
			e.Stack = sel
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d events of the test's send", n)
	}
	return tr
}

func TestSelectStuckLayer(t *testing.T) {
	worker := func(tr *trace.Trace, recv int) bool { return tr.Site(&tr.Events[recv]).Line == 12 }
	// other lists one receive case whose partners are at the given lines.
	other := func(lines ...int) func(*trace.Trace, int) ([]witness.SelectCase, bool) {
		return func(*trace.Trace, int) ([]witness.SelectCase, bool) {
			c := witness.SelectCase{}
			for _, l := range lines {
				c.Partners = append(c.Partners, trace.Frame{File: "/src/p/p_test.go", Line: l})
			}
			return []witness.SelectCase{c}, true
		}
	}
	unknown := func(*trace.Trace, int) ([]witness.SelectCase, bool) { return nil, false }
	for _, tc := range []struct {
		name  string
		cases func(*trace.Trace, int) ([]witness.SelectCase, bool)
		want  bool
	}{
		{"the other case has no partner", other(), true},
		{"its partner never runs", other(40), true},
		{"its partner is the helper's send, which runs", other(16), false},
		{"the cases are not known", unknown, false},
		{"no static answer", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := selectRun(t)
			opts := Options{RecvValueFree: worker, SelectCases: tc.cases}
			f, ok := testSendBlocked(t, tr, opts, tc.want) // deadlock_partner_test.go
			if !ok {
				return
			}
			if len(f.Stuck) != 1 || f.Stuck[0].Event != f.Events[0] {
				t.Errorf("stuck selects %+v, want the test's", f.Stuck)
			}
			if err := CheckWitness(tr, &f, Options{RecvValueFree: worker, SelectCases: other(16)}); err == nil {
				t.Errorf("witness accepted with a partner of the other case in the schedule")
			}
		})
	}
}
