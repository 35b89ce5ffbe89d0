// This file tests the checker on a small trace in RAPID's STD format: it
// accepts the schedules the maximal causal model allows and rejects each
// kind of infeasible one; and it tests that the package stays independent
// of seer's analyses.

package witness

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

const stdTrace = `T1|fork(T2)|1
T1|w(x)|2
T1|acq(L)|3
T1|w(y)|4
T1|rel(L)|5
T2|acq(L)|6
T2|r(y)|7
T2|rel(L)|8
T2|fork(T3)|9
T3|r(y)|10
T1|r(x)|11
T2|w(x)|12
`

// Events: 0 go(g2), 1 w(x), 2 acq, 3 w(y), 4 rel, 5 start g2, 6 acq,
// 7 r(y), 8 rel, 9 go(g3), 10 start g3, 11 r(y), 12 r(x) g1, 13 w(x) g2.

func TestCheck(t *testing.T) {
	tr, loc, spans := readTrace(t, stdTrace)
	race := func(w ...int) *Schedule { return &Schedule{Kind: Race, Events: []int{12, 13}, Witness: w} }
	only7 := func(i int32) bool { return i == 7 }
	for _, tc := range []struct {
		name    string
		s       *Schedule
		relaxed func(int32) bool
		want    string // "" means accepted
	}{
		{"observed order", race(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), nil, ""},
		{"racing pair swapped", race(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 12), nil, ""},
		{"prefix form", &Schedule{Kind: Race, Events: []int{12, 13}, Prefix: 12, Witness: []int{13, 12}}, nil, ""},
		{"g3 stopped early", &Schedule{Kind: Race, Events: []int{12, 13}, Prefix: 12, Stops: []int{11}, Witness: []int{12, 13}}, nil, ""},
		{"race not last", race(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), nil, "does not end with the racing events"},
		{"program order broken", race(0, 2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), nil, "not the next event"},
		{"read sees another writer", race(0, 5, 6, 7, 8, 1, 2, 3, 4, 9, 10, 11, 12, 13), nil, "read 7 sees writer -1"},
		{"relaxed read", race(0, 5, 6, 7, 8, 1, 2, 3, 4, 9, 10, 11, 12, 13), only7, ""},
		{"lock held twice", race(0, 1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 11, 12, 13), nil, "acquired while held"},
		{"start before go", race(5, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13), nil, "starts before its go"},
		{"event twice", race(0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), nil, "twice"},
		{"no conflict", &Schedule{Kind: Race, Events: []int{1, 3}, Witness: []int{0, 1, 2, 3}}, nil, "do not conflict"},
		{"out of range", race(0, 99), nil, "out of range"},
		{"empty", race(), nil, "empty witness"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := NewChecker(tr, loc, spans)
			k.Relax(tc.relaxed)
			err := k.Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// TestIndependent keeps the checker independent of the analyses whose
// witnesses it checks: of seer's packages it may import only trace, and
// so depend on trace and what trace itself is built from (internal
// packages such as bigslice), never on predict or another analysis.
func TestIndependent(t *testing.T) {
	const mod = "github.com/seer-tools/seer"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		return strings.Fields(string(out))
	}
	allowed := map[string]bool{mod + "/predict/witness": true}
	for _, p := range deps(mod + "/trace") {
		allowed[p] = true
	}
	for _, p := range []string{mod + "/predict", mod + "/predict/check", mod + "/static"} {
		if allowed[p] {
			t.Fatalf("trace depends on %s: the checker would share the analysis's code", p)
		}
	}
	for _, p := range deps(".") {
		if (p == mod || strings.HasPrefix(p, mod+"/")) && !allowed[p] {
			t.Errorf("package witness depends on %s; it may import only %s/trace of seer", p, mod)
		}
	}
}

// deadlockTrace takes A then B in T1 and B then A in T2, one after the
// other; T2 reads x, which T1 wrote, while it holds B.
const deadlockTrace = `T1|fork(T2)|1
T1|w(x)|2
T1|acq(A)|3
T1|acq(B)|4
T1|rel(B)|5
T1|rel(A)|6
T2|acq(B)|7
T2|r(x)|8
T2|acq(A)|9
T2|rel(A)|10
T2|rel(B)|11
T1|acq(C)|12
T1|rel(C)|13
`

// Events: 0 go(g2), 1 w(x), 2 acq A, 3 acq B, 4 rel B, 5 rel A, 6 start g2,
// 7 acq B, 8 r(x), 9 acq A, 10 rel A, 11 rel B, 12 acq C, 13 rel C.

func TestCheckDeadlock(t *testing.T) {
	tr, loc, spans := readTrace(t, deadlockTrace)
	dl := func(evs []int, prefix int, stops []int, w ...int) *Schedule {
		return &Schedule{Kind: Deadlock, Events: evs, Prefix: prefix, Stops: stops, Witness: w}
	}
	for _, tc := range []struct {
		name string
		s    *Schedule
		want string // "" means accepted
	}{
		{"both blocked", dl([]int{3, 9}, 8, []int{3}, 8), ""},
		{"whole schedule", dl([]int{3, 9}, 0, nil, 0, 1, 2, 6, 7, 8), ""},
		{"cycle given the other way round", dl([]int{9, 3}, 0, nil, 0, 1, 2, 6, 7, 8), ""},
		{"one goroutine not yet there", dl([]int{3, 9}, 0, nil, 0, 1, 2, 6, 7), "next event after the schedule is not 9"},
		{"one goroutine past its acquire", dl([]int{3, 9}, 0, nil, 0, 1, 2, 3, 6), "next event after the schedule is not 3"},
		{"a blocked goroutine's last read sees another writer", dl([]int{3, 9}, 0, nil, 0, 6, 7, 8, 1, 2), "read 8 sees writer -1"},
		{"a free lock", dl([]int{12, 9}, 0, nil, 0, 1, 2, 3, 4, 5, 6, 7, 8), "acquire 12: no other goroutine"},
		{"a release is no wait", dl([]int{4, 7}, 0, nil, 0, 1, 2, 3, 6), "not an operation known to block"},
		{"one goroutine twice", dl([]int{3, 12}, 0, nil, 0, 1, 2), "blocks twice"},
		{"one acquire", dl([]int{3}, 0, nil, 0, 1, 2), "two or more"},
		{"infeasible", dl([]int{3, 9}, 0, nil, 0, 1, 2, 3, 6, 7, 8), "acquired while held"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := NewChecker(tr, loc, spans)
			err := k.Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// readTrace reads an STD trace and groups its accesses, as NewChecker wants.
func readTrace(t *testing.T, text string) (*trace.Trace, []int32, []trace.Span) {
	t.Helper()
	tr, err := trace.ReadSTD(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	loc, spans := trace.GroupAccesses(tr.Events)
	return tr, loc, spans
}

// wantVerdict checks a checker's verdict: accepted when want is "",
// else rejected with an error that contains want.
func wantVerdict(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("rejected: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}
