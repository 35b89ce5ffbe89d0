// This file tests the SHB pass's memory budget (clock_spill.go): with the
// budget forced tiny, so that every event spills every idle address's
// clock and every read-from snapshot (clock_spill_snap.go), the SHB
// layer (race_shb.go) proves the same races with the same witnesses,
// and seer reports the same findings.

package predict

import (
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"
)

// tinySHBBudget makes the SHB passes spill before every event: a sweep
// then, a budget of one byte, and every clock worth spilling. It
// returns what restores the defaults.
func tinySHBBudget() (budget int64, restore func()) {
	sweep, least, every := sweepEntries, spillMin, spillEvery
	sweepEntries, spillMin, spillEvery = 16, 1, 1
	return 1, func() { sweepEntries, spillMin, spillEvery = sweep, least, every }
}

func TestSpillSameSHB(t *testing.T) {
	traces := randomTraces(31, 40, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 4 + r.Intn(12), vars: 2 + r.Intn(6), locks: r.Intn(3), sigs: 1 + r.Intn(4),
			ops: 50 + r.Intn(150), atomics: r.Intn(2) == 0, cut: 0.01}
	}, true)
	stage := func(r *Result) Stage {
		i := slices.IndexFunc(r.Stats.Stages, func(s Stage) bool { return s.Name == "shb" })
		s := r.Stats.Stages[i]
		s.Time = 0
		return s
	}
	before, beforeSnaps := spilled, spilledSnaps
	var races int
	for k, tr := range traces {
		// No solve may run out of time in one and not the other.
		o := Options{NoAtomicity: true, SolveTimeout: time.Hour}
		want := analyze(t, tr, o)
		budget, restore := tinySHBBudget()
		o.SHBBudget = budget
		got := analyze(t, tr, o)
		restore()
		if a, b := stage(want), stage(got); a != b {
			t.Fatalf("trace %d: shb stage %+v without a budget, %+v with", k, a, b)
		}
		if !reflect.DeepEqual(want.Findings, got.Findings) {
			t.Fatalf("trace %d: findings differ with the budget", k)
		}
		races += len(got.Findings)
	}
	if spilled == before || spilledSnaps == beforeSnaps || races == 0 {
		t.Fatalf("%d clocks spilled (%d snapshots), %d races: the test says nothing", spilled-before, spilledSnaps-beforeSnaps, races)
	}
	t.Logf("%d traces, %d races, %d clocks spilled (%d read-from snapshots)", len(traces), races, spilled-before, spilledSnaps-beforeSnaps)
}
