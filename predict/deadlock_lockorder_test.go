// This file tests the deadlock layer (deadlock_lockorder.go) on small traces: the
// lock-order cycles it proves, with witnesses the checker accepts, and
// the ones that no schedule shows (a gate lock, a fixed ordering, two
// shared modes).

package predict

import (
	"strings"
	"testing"
)

// lockOrderCases are small traces with describe's text of their
// lock-order deadlock findings; SPDOffline's test (deadlock_spd_test.go)
// runs them too.
var lockOrderCases = []struct {
	name, trace string
	want        string // describe's text of the deadlock findings
}{
	{"AB/BA, one after the other", `
T1|fork(T2)|1
T1|acq(A)|2
T1|acq(B)|3
T1|rel(B)|4
T1|rel(A)|5
T2|acq(B)|6
T2|acq(A)|7
T2|rel(A)|8
T2|rel(B)|9
`, "deadlock 3-7 predicted"},
	{"three goroutines, three locks", `
T1|fork(T2)|1
T1|fork(T3)|2
T1|acq(A)|3
T1|acq(B)|4
T1|rel(B)|5
T1|rel(A)|6
T2|acq(B)|7
T2|acq(C)|8
T2|rel(C)|9
T2|rel(B)|10
T3|acq(C)|11
T3|acq(A)|12
T3|rel(A)|13
T3|rel(C)|14
`, "deadlock 4-8-12 predicted"},
	{"gate lock", `
T1|fork(T2)|1
T1|acq(G)|2
T1|acq(A)|3
T1|acq(B)|4
T1|rel(B)|5
T1|rel(A)|6
T1|rel(G)|7
T2|acq(G)|8
T2|acq(B)|9
T2|acq(A)|10
T2|rel(A)|11
T2|rel(B)|12
T2|rel(G)|13
`, ""},
	{"gate lock read-held by both", `
T1|fork(T2)|1
T1|racq(G)|2
T1|acq(A)|3
T1|acq(B)|4
T1|rel(B)|5
T1|rel(A)|6
T1|rrel(G)|7
T2|racq(G)|8
T2|acq(B)|9
T2|acq(A)|10
T2|rel(A)|11
T2|rel(B)|12
T2|rrel(G)|13
`, "deadlock 4-10 predicted"},
	{"ordered by a go statement", `
T1|acq(A)|1
T1|acq(B)|2
T1|rel(B)|3
T1|rel(A)|4
T1|fork(T2)|5
T2|acq(B)|6
T2|acq(A)|7
T2|rel(A)|8
T2|rel(B)|9
`, ""},
	{"ordered by a join", `
T1|fork(T2)|1
T2|acq(B)|2
T2|acq(A)|3
T2|rel(A)|4
T2|rel(B)|5
T1|join(T2)|6
T1|acq(A)|7
T1|acq(B)|8
T1|rel(B)|9
T1|rel(A)|10
`, ""},
	{"ordered by a channel", `
T1|fork(T2)|1
T1|acq(A)|2
T1|acq(B)|3
T1|rel(B)|4
T1|rel(A)|5
T1|sig(S)|6
T2|wait(S)|7
T2|acq(B)|8
T2|acq(A)|9
T2|rel(A)|10
T2|rel(B)|11
`, ""},
	{"ordered by what a read saw", `
T1|fork(T2)|1
T1|acq(A)|2
T1|acq(B)|3
T1|w(x)|4
T1|rel(B)|5
T1|rel(A)|6
T2|r(x)|7
T2|acq(B)|8
T2|acq(A)|9
T2|rel(A)|10
T2|rel(B)|11
`, ""},
	{"read locks on both sides", `
T1|fork(T2)|1
T1|racq(A)|2
T1|racq(B)|3
T1|rrel(B)|4
T1|rrel(A)|5
T2|racq(B)|6
T2|racq(A)|7
T2|rrel(A)|8
T2|rrel(B)|9
`, ""},
	{"a read lock held, a read lock requested", `
T1|fork(T2)|1
T1|racq(A)|2
T1|acq(B)|3
T1|rel(B)|4
T1|rrel(A)|5
T2|acq(B)|6
T2|racq(A)|7
T2|rrel(A)|8
T2|rel(B)|9
`, ""},
	{"a read lock held, a write lock requested", `
T1|fork(T2)|1
T1|racq(A)|2
T1|acq(B)|3
T1|rel(B)|4
T1|rrel(A)|5
T2|acq(B)|6
T2|acq(A)|7
T2|rel(A)|8
T2|rel(B)|9
`, "deadlock 3-7 predicted"},
	{"one lock order", `
T1|fork(T2)|1
T1|acq(A)|2
T1|acq(B)|3
T1|rel(B)|4
T1|rel(A)|5
T2|acq(A)|6
T2|acq(B)|7
T2|rel(B)|8
T2|rel(A)|9
`, ""},
}

func TestDeadlocks(t *testing.T) {
	for _, tc := range lockOrderCases {
		t.Run(tc.name, func(t *testing.T) {
			tr := parseTrace(t, strings.TrimSpace(tc.trace))
			res := analyze(t, tr, Options{NoRaces: true})
			var dl []Finding
			for _, f := range res.Findings {
				if f.Kind == KindDeadlock {
					dl = append(dl, f)
				}
			}
			if got := describe(tr, dl); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if res2 := analyze(t, tr, Options{NoDeadlocks: true}); strings.Contains(describe(tr, res2.Findings), "deadlock") {
				t.Errorf("NoDeadlocks: %s", describe(tr, res2.Findings))
			}
		})
	}
}

// TestDeadlockStage checks the funnel's deadlock row.
func TestDeadlockStage(t *testing.T) {
	tr := parseTrace(t, "T1|fork(T2)|1\nT1|acq(A)|2\nT1|acq(B)|3\nT1|rel(B)|4\nT1|rel(A)|5\nT2|acq(B)|6\nT2|acq(A)|7\nT2|rel(A)|8\nT2|rel(B)|9")
	st := stage(analyze(t, tr, Options{}), "deadlock")
	if st.Cycles != 1 || st.Deadlocks != 1 || st.DeadlockSites != 1 {
		t.Errorf("deadlock row %+v, want one cycle, one pattern tried, one proved", st)
	}
}
