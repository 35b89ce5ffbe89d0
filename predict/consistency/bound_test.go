package consistency

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A check whose solver runs out of time is undecided: neither consistent
// nor a violation. Without the bound the same checks decide.
func TestSolveTimeoutUndecided(t *testing.T) {
	for _, tc := range []struct {
		name       string
		h          *History
		m          Model
		consistent bool
	}{
		{"sc-run", scRun(3, 4, 600, 2), SC, true},
		{"sc-run", scRun(3, 4, 600, 2), TSO, true},
		{"sc-run-5", scRun(5, 4, 600, 2), SC, true},
	} {
		res, err := CheckContext(context.Background(), tc.h, tc.m, Options{Timeout: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Undecided || res.Consistent || res.Violation != nil {
			t.Errorf("%s %s with a 1ns bound: %+v, want undecided", tc.name, tc.m, res)
		}
		for _, explain := range []bool{false, true} {
			f := CheckContext
			if explain {
				f = ExplainContext
			}
			res, err := f(context.Background(), tc.h, tc.m, Options{Timeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Undecided || res.Consistent != tc.consistent {
				t.Errorf("%s %s unbounded (explain %v): %+v, want consistent=%v", tc.name, tc.m, explain, res, tc.consistent)
			}
			if explain && !tc.consistent && (len(res.Violation.Rules) == 0 || res.Violation.NotMinimal) {
				t.Errorf("%s %s: explanation %+v", tc.name, tc.m, res.Violation)
			}
		}
	}
	// The criteria without a solver never run out, nor does the
	// saturation of SC's store order (extend.go), which rejects fig1d.
	res, err := CheckContext(context.Background(), scRun(3, 4, 600, 2), CCM, Options{Timeout: time.Nanosecond})
	if err != nil || !res.Consistent || res.Undecided {
		t.Errorf("CCM with a 1ns bound: %+v %v", res, err)
	}
	fig1d := mustParse(t, "fig1d", "t0: w(x,1) r(y,0) w(y,1) r(x,1)\nt1: w(x,2) r(y,0) w(y,2) r(x,2)")
	res, err = CheckContext(context.Background(), fig1d, SC, Options{Timeout: time.Nanosecond})
	if err != nil || res.Consistent || res.Undecided || len(res.Violation.Cycle) == 0 {
		t.Errorf("fig1d SC with a 1ns bound: %+v %v", res, err)
	}
	res, err = ExplainContext(context.Background(), fig1d, SC, Options{Timeout: -1})
	if err != nil || len(res.Violation.Rules) == 0 || res.Violation.NotMinimal {
		t.Errorf("fig1d SC explained: %+v %v", res, err)
	}
}

// hardSC is a history whose SC check needs a search of many choices
// (hundreds of milliseconds): 10,000 operations of 32 processes on 64
// keys.
func hardSC() *History { return scRun(3, 32, 10000, 64) }

// A hard instance stops at the bound, not when the search and the solver
// are done.
func TestSolveTimeoutBoundsHardInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("solves for a while")
	}
	h := hardSC()
	start := time.Now()
	res, err := CheckContext(context.Background(), h, SC, Options{Timeout: time.Millisecond})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Undecided {
		t.Fatalf("want undecided within 1ms of search and of solving, got consistent=%v undecided=%v %v", res.Consistent, res.Undecided, res.Violation)
	}
	t.Logf("undecided after %v (the encoding before the solve is not bounded)", took)
	if took > 10*time.Second {
		t.Errorf("a 1ms bound took %v", took)
	}
}

// A cancelled context stops the solver and the check returns its error.
func TestSolveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err := CheckContext(ctx, hardSC(), SC, Options{Timeout: -1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	t.Logf("cancelled after %v", time.Since(start))
	if _, err := ExplainContext(ctx, mustParse(t, "sb", "P0: w(x,1) r(y,0)\nP1: w(y,1) r(x,0)"), SC, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("explain with a done context: %v", err)
	}
}
