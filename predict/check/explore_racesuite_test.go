// This file holds the race suite's check of -explore: no TestNoRace* test
// of Go's race suite may get a finding, or a leak, from any steered run.

package check

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestRaceSuiteExplore runs the suite's TestNoRace* tests (129) in one
// run and SEER_RACESUITE_EXPLORE steered runs more (unset: skipped; 5
// took about three minutes on a loaded 2-core machine).
func TestRaceSuiteExplore(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("SEER_RACESUITE_EXPLORE"))
	if err != nil || n <= 0 || testing.Short() {
		t.Skip("set SEER_RACESUITE_EXPLORE to a number of steered runs")
	}
	dir := raceSuiteModule(t)
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: 5 * time.Minute, Run: "^TestNoRace", Explore: n, ExploreSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		t.Errorf("false report on %s: %s at %s:%d (origin %+v)", f.Test, f.Kind, f.Accesses[0].File, f.Accesses[0].Line, f.Origin)
	}
	for _, x := range rep.Explore {
		for _, l := range x.Leaks {
			t.Errorf("a steered run left a goroutine of %s running: %+v", l.Test, l)
		}
		for _, r := range x.Runs {
			t.Logf("run %d: %s, %d delays taken, %d PCT steps, new coverage %d, %s", r.Index, r.Strategy, r.Delayed, r.Steps, r.Coverage, r.Outcome)
		}
	}
}
