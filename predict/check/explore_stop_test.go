// This file tests Options.StopExploring (explore.go): closing it ends an
// exploration early, stopping the steered run under way, and the report
// keeps what the runs that ended found (the editors' explore lens's
// cancel, issue 28 item 6); Progress names each steered run.

package check

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

func TestExploreStop(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	stop := make(chan struct{})
	var mu sync.Mutex
	var runs []Progress
	rep, err := Run(context.Background(), Options{
		Dir:               exploreDir,
		Patterns:          []string{"./bug"},
		Run:               "^TestPredicted$",
		Timeout:           time.Minute,
		Explore:           20,
		ExploreSeed:       1,
		ExploreStrategies: []report.Strategy{report.StrategyPCT},
		StopExploring:     stop,
		Progress: func(p Progress) {
			if p.Run == 0 {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			runs = append(runs, p)
			if p.Run == 2 {
				close(stop) // while run 2 starts: it is stopped and dropped
			}
		},
	})
	if err != nil {
		t.Fatalf("a stopped exploration is not an error: %v", err)
	}
	if len(runs) != 2 || runs[0].Run != 1 || runs[1].Run != 2 || runs[1].Runs != 20 {
		t.Errorf("progress of the steered runs: %+v, want runs 1 and 2 of 20", runs)
	}
	if len(rep.Explore) != 1 {
		t.Fatalf("explorations %+v, want one", rep.Explore)
	}
	x := rep.Explore[0]
	if x.Stopped != "stopped after 1 runs: cancelled" || len(x.Runs) != 1 {
		t.Errorf("exploration stopped %q after runs %+v: want stopped after run 1", x.Stopped, x.Runs)
	}
	// The first run's predicted race stays, and Found counted it.
	if len(rep.Findings) == 0 || runs[0].Found != len(rep.Findings) {
		t.Errorf("findings %d, found before run 1: %d", len(rep.Findings), runs[0].Found)
	}
	for _, p := range runs {
		if p.Found > len(rep.Findings) {
			t.Errorf("run %d's progress counts %d findings, the report has %d", p.Run, p.Found, len(rep.Findings))
		}
	}
}
