// This file tests the leak flavour of a taken partner
// (leak_selectstuck.go) on the built runs of deadlock_partner_test.go
// and deadlock_select_test.go: the same schedule is a predicted leak when
// the test's own goroutine ends in it while the victim's send (plain or
// in a select) waits, and stays a deadlock when the victim is the test's
// own goroutine.

package predict

import (
	"context"
	"testing"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

func TestSelectLeakFlavour(t *testing.T) {
	valueFree := func(tr *trace.Trace, recv int) bool { l := tr.Site(&tr.Events[recv]).Line; return l == 12 || l == 16 } // the worker's, or recvRun's helper's
	noPartner := func(*trace.Trace, int) ([]witness.SelectCase, bool) { return []witness.SelectCase{{}}, true }
	plainRun := func(t *testing.T) *trace.Trace { return takenPartnerRun(t, false, false, 0) } // deadlock_partner_test.go
	helperOwnRun := func(t *testing.T) *trace.Trace {                                          // the worker ends with wg.Done; the helper's end becomes a Wait on wg
		tr := takenPartnerRun(t, false, false, trace.OpWGDone)
		tr.Header.GOROOT = "/goroot"
		var wg trace.ObjID
		for i := range tr.Events {
			if e := &tr.Events[i]; e.Op == trace.OpWGDone {
				wg = e.Obj
			}
		}
		for i := range tr.Events {
			if e := &tr.Events[i]; e.G == 4 && e.Op == trace.OpEnd {
				e.Op, e.Obj = trace.OpWGWait, wg
				e.Stack = tr.Stacks.Intern([]trace.Frame{{Func: "testing.tRunner", File: "/goroot/src/testing/testing.go", Line: 1800}})
			}
		}
		return tr
	}
	recvRun := func(t *testing.T) *trace.Trace { // plainRun with every send a receive and every receive a send
		tr := plainRun(t)
		for i := range tr.Events {
			switch e := &tr.Events[i]; e.Op {
			case trace.OpSend:
				e.Op = trace.OpRecv
			case trace.OpRecv:
				e.Op = trace.OpSend
			}
		}
		return tr
	}
	for _, tc := range []struct {
		name  string
		run   func(*testing.T) *trace.Trace
		own   trace.GoID // the goroutine the testing package made
		want  report.Kind
		stuck int // selects the finding lists
	}{
		// g3 takes the helper's value and ends; the select's g2 waits.
		{"the test's own goroutine ends", selectRun, 3, KindLeak, 1}, // deadlock_select_test.go
		{"the test's own goroutine waits in the select", selectRun, 2, KindDeadlock, 1},
		{"the test has no goroutine of its own", selectRun, 0, KindDeadlock, 1},
		// Issue 32 item 1: g2's plain send waits while the test returns.
		{"a plain send, the test's own goroutine ends", plainRun, 3, KindLeak, 0},
		{"a plain send of the test's own goroutine", plainRun, 2, KindDeadlock, 0},
		{"a plain send, the test has no goroutine of its own", plainRun, 0, KindDeadlock, 0},
		// The helper g4 is the test's own goroutine, whose last act is the
		// testing package's (a WaitGroup.Wait): it returns after its send.
		{"a plain send, the test's own goroutine the helper, returns", helperOwnRun, 4, KindLeak, 0},
		// g2's receive, whose one-shot sender g3 the helper's receive takes.
		{"a plain receive, the test's own goroutine ends", recvRun, 3, KindLeak, 0},
		{"a plain receive of the test's own goroutine", recvRun, 2, KindDeadlock, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.run(t)
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
			if f.Kind != tc.want || !f.Predicted || len(f.Stuck) != tc.stuck || len(f.Events) != 1 || tr.Events[f.Events[0]].G != 2 || f.TestReturns != (tc.want == KindLeak) {
				t.Fatalf("finding %+v, want a predicted %s of goroutine 2", f, tc.want)
			}
			if err := CheckWitness(tr, &f, opts); err != nil {
				t.Errorf("witness rejected: %v", err)
			}
		})
	}
}
