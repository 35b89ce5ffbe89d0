// This file tests the check of a select that can never proceed
// (select.go): the taken-partner trace of partner_test.go, with the
// test's send made in a select whose other case static analysis lists.

package witness

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

// inSelectAt puts event i of tr in a blocking select of TestX and event
// j (if not negative) at line 20 of the test's file.
func inSelectAt(tr *trace.Trace, i, j int) *trace.Trace {
	tr.Events[i].Stack = tr.Stacks.Intern([]trace.Frame{
		{Func: "runtime.selectgo", File: "/goroot/src/runtime/select.go", Line: 300},
		{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 12},
	})
	if j >= 0 {
		tr.Events[j].Stack = tr.Stacks.Intern([]trace.Frame{{Func: "example.com/p.TestX.func3", File: "/src/p/p_test.go", Line: 20}})
	}
	return tr
}

func TestCheckSelectStuck(t *testing.T) {
	free := func(int32) bool { return true }
	cases := func(lines ...int) func(int32) ([]SelectCase, bool) {
		return func(int32) ([]SelectCase, bool) {
			c := SelectCase{}
			for _, l := range lines {
				c.Partners = append(c.Partners, trace.Frame{File: "p_test.go", Line: l})
			}
			return []SelectCase{c}, true
		}
	}
	unknown := func(int32) ([]SelectCase, bool) { return nil, false }
	w := []int{11, 7, 8, 14, 10, 15} // g4's send taken by g3
	claim := &Schedule{Kind: Deadlock, Events: []int{6}, Prefix: 6, Witness: w}
	for _, tc := range []struct {
		name  string
		tr    *trace.Trace
		cases func(int32) ([]SelectCase, bool)
		want  string // "" means accepted
	}{
		{"the other case has no partner anywhere", inSelectAt(takenPartner(t), 6, -1), cases(), ""},
		{"its partners never run", inSelectAt(takenPartner(t), 6, -1), cases(99), ""},
		{"no static answer", inSelectAt(takenPartner(t), 6, -1), nil, "other cases may be ready"},
		{"cases not known", inSelectAt(takenPartner(t), 6, -1), unknown, "not known"},
		{"a partner ran in the schedule", inSelectAt(takenPartner(t), 6, -1), cases(10), "may proceed"},
		{"a goroutine not yet created may close it", inSelectAt(takenPartnerOf(t, false, true), 6, 19), cases(20), "goroutine 5 operates"},
		{"a plain send is not judged by the cases", takenPartner(t), cases(10), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tc.tr.Events)
			k := NewChecker(tc.tr, loc, spans)
			k.ValueFree(free)
			if tc.cases != nil {
				k.SelectCases(tc.cases)
			}
			wantVerdict(t, k.Check(claim), tc.want)
		})
	}
}
