// This file tests CheckWitness (package witness behind predict's
// relevance closure): it accepts the schedules
// the theory allows and rejects each kind of infeasible one.

package predict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func TestCheckWitness(t *testing.T) {
	tr := parseTrace(t, `
T1|fork(T2)|1
T1|w(x)|2
T1|acq(L)|3
T1|w(y)|4
T1|rel(L)|5
T2|acq(L)|6
T2|r(y)|7
T2|rel(L)|8
T2|sig(S)|9
T1|wait(S)|10
T1|r(x)|11
T2|w(x)|12
`)
	// Events: 0 go, 1 w(x), 2 acq, 3 w(y), 4 rel, 5 start, 6 acq, 7 r(y),
	// 8 rel, 9 sig, 10 wait, 11 r(x), 12 w(x).
	race := func(w ...int) *Finding {
		return &Finding{Kind: KindRace, Events: []int{11, 12}, Witness: w}
	}
	for _, tc := range []struct {
		f    *Finding
		irr  func(*trace.Trace, int) bool
		want string // "" means accepted
	}{
		{race(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), nil, ""},
		{race(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11), nil, ""},
		{race(0, 1, 2, 3, 5, 4, 6, 7, 8, 9, 10, 11, 12), nil, ""},
		{race(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), nil, "does not end with the racing events"},
		{race(0, 2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), nil, "not the next event"},
		{race(1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), nil, "not the next event"},
		{race(0, 5, 6, 7, 8, 9, 1, 2, 3, 4, 10, 11, 12), nil, "read 7 sees writer -1"},
		{race(0, 5, 6, 7, 8, 9, 1, 2, 3, 4, 10, 11, 12), func(_ *trace.Trace, i int) bool { return i == 7 }, ""},
		{race(0, 1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 11, 12), nil, "acquired while held"},
		{race(5, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12), nil, "starts before its go"},
		{race(0, 1, 2, 3, 4, 10, 5, 6, 7, 8, 9, 11, 12), nil, "synchronises with"},
		{race(0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), nil, "twice"},
		{&Finding{Kind: KindRace, Events: []int{3, 7}, Witness: []int{0, 1, 5, 2, 6, 3, 7}}, nil, "acquired while held"},
		{&Finding{Kind: KindRace, Events: []int{1, 3}, Witness: []int{0, 1, 2, 3}}, nil, "do not conflict"},
	} {
		err := CheckWitness(tr, tc.f, Options{ControlIrrelevant: tc.irr, Feeds: feedsNothing})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("witness %v rejected: %v", tc.f.Witness, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("witness %v: got %v, want %q", tc.f.Witness, err, tc.want)
		}
	}
}

func TestCheckWitnessAtomicity(t *testing.T) {
	tr := parseTrace(t, `
T1|begin|1
T1|w(x)|2
T2|w(x)|3
T1|w(x)|4
T1|end|5
T1|r(x)|6
`)
	ok := &Finding{Kind: KindAtomicity, Events: []int{1, 2, 3}, Witness: []int{0, 1, 2, 3}}
	if err := CheckWitness(tr, ok, Options{}); err != nil {
		t.Errorf("observed violation rejected: %v", err)
	}
	for _, tc := range []struct {
		f    *Finding
		want string
	}{
		{&Finding{Kind: KindAtomicity, Events: []int{1, 2, 3}, Witness: []int{0, 2, 1, 3}}, "does not order"},
		{&Finding{Kind: KindAtomicity, Events: []int{3, 2, 5}, Witness: []int{0, 1, 2, 3, 4, 5}}, "not in one transaction"},
		{&Finding{Kind: KindAtomicity, Events: []int{1, 2, 3}, Witness: []int{0, 1, 2, 3, 4}}, "does not end with"},
	} {
		if err := CheckWitness(tr, tc.f, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.f.Events, err, tc.want)
		}
	}
}

// A witness in compact form: the prefix described by Prefix and Stops,
// then Witness.
func TestSchedule(t *testing.T) {
	tr := parseTrace(t, `
T1|fork(T2)|1
T1|fork(T3)|2
T3|w(z)|3
T2|w(x)|4
T3|w(x)|5
T1|r(x)|6
`)
	// Events: 0 go, 1 go, 2 start, 3 w(z), 4 start, 5 w(x), 6 w(x), 7 r(x).
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{Prefix: 7, Stops: []int{6}, Witness: []int{5, 7}}, "[0 1 2 3 4 5 7]"},
		{Finding{Prefix: 7, Witness: []int{5, 7}}, "[0 1 2 3 4 6 5 7]"},
		{Finding{Prefix: 3, Stops: []int{2}, Witness: []int{4, 5, 7}}, "[0 1 4 5 7]"},
		{Finding{Witness: []int{0, 1, 4, 5, 7}}, "[0 1 4 5 7]"},
	} {
		f := tc.f
		f.Kind, f.Events = KindRace, []int{5, 7}
		if got := fmt.Sprint(f.Schedule(tr)); got != tc.want {
			t.Errorf("%+v: schedule %s, want %s", tc.f, got, tc.want)
		}
		if err := CheckWitness(tr, &f, Options{}); err != nil {
			t.Errorf("%+v: %v", tc.f, err)
		}
	}
}
