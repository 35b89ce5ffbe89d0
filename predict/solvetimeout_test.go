package predict

import (
	"context"
	"math/rand"
	"testing"
	"time"
)

// A candidate the solver cannot decide within Options.SolveTimeout is
// counted in Stats.SolverUnknown and never reported: with a 1ns bound,
// every finding is one the analysis reports without it too, and a finding
// that only the solver proved is lost to the bound and counted.
func TestSolveTimeoutUndecidedNotReported(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	lost, undecided, traces := 0, 0, 0
	for k := 0; k < 3000 && lost < 5; k++ {
		p := genParams{goroutines: 2 + r.Intn(3), vars: 1 + r.Intn(2), locks: 1 + r.Intn(3), sigs: r.Intn(2),
			ops: 3 + r.Intn(5), atomics: r.Intn(3) == 0, cut: 0.02}
		tr, text := genTrace(r, p)
		full, err := Analyze(context.Background(), tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if stage(full, "sat").RaceSites == 0 && stage(full, "sat").AtomicitySites == 0 {
			continue
		}
		traces++
		bounded, err := Analyze(context.Background(), tr, Options{SolveTimeout: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, f := range full.Findings {
			have[describe(tr, []Finding{f})] = true
		}
		for _, f := range bounded.Findings {
			if !have[describe(tr, []Finding{f})] {
				t.Fatalf("with a 1ns bound, a finding the unbounded analysis lacks: %s\n%s", describe(tr, []Finding{f}), text)
			}
		}
		if n := len(full.Findings) - len(bounded.Findings); n > 0 {
			lost += n
			if bounded.Stats.SolverUnknown == 0 {
				t.Fatalf("%d findings lost to the bound, none counted undecided\n%s", n, text)
			}
		}
		undecided += bounded.Stats.SolverUnknown
	}
	t.Logf("%d traces with solver findings: %d findings lost to a 1ns bound, %d candidates undecided", traces, lost, undecided)
	if lost == 0 {
		t.Fatal("no trace had a finding that needs the solver: the test tests nothing")
	}
}
