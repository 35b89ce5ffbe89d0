// This file tests seer check -explore (explore.go) end to end on the
// kernels of testdata/explore: for each strategy on its own, a bug the
// first run does not show is found by a steered run within -explore 20,
// and its fixed twin stays clean under the same budget; the same seed
// steers the same way.

package check

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// exploreDir is the module of the kernels.
var exploreDir = filepath.Join("testdata", "explore")

// explore checks pkg (bug or fixed) of the kernels' module, exploring
// tests run with strategy s.
func explore(t *testing.T, pkg, run string, s report.Strategy, runs int, seed uint64) *report.Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{
		Dir:               exploreDir,
		Patterns:          []string{"./" + pkg},
		Run:               run,
		Timeout:           time.Minute,
		Explore:           runs,
		ExploreSeed:       seed,
		ExploreStrategies: []report.Strategy{s},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Explore) != 1 {
		t.Fatalf("explorations %+v, want one", rep.Explore)
	}
	return rep
}

func TestExploreStrategies(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	// A bug's runs go on until it is found: the budget, not patience,
	// is what the kernels are held to.
	defer func(p int) { ExplorePatience = p }(ExplorePatience)
	cases := []struct {
		strategy report.Strategy
		run      string
		races    []string // tests with a race the strategy must find
		leaks    []string // tests with a leak it must find
	}{
		{report.StrategyPCT, "^TestStarted$", []string{"TestStarted"}, nil},
		{report.StrategySelect, "^(TestCancel|TestTimeout)$", []string{"TestCancel"}, []string{"TestTimeout"}},
		{report.StrategyPartner, "^TestPool$", []string{"TestPool"}, nil},
	}
	for _, tc := range cases {
		t.Run(string(tc.strategy), func(t *testing.T) {
			ExplorePatience = 20
			// The kernels' first runs keep clear of their bugs by a
			// margin of milliseconds, which a loaded machine can
			// overrun: a first run that shows the bug leaves nothing to
			// find, and the check is made again (the first run takes
			// no seed).
			var rep *report.Report
			for try := 0; try < 3; try++ {
				rep = explore(t, "bug", tc.run, tc.strategy, 20, 1)
				if rep.Explore[0].Found[0] == 0 {
					break
				}
				t.Logf("try %d: the first run showed a bug", try+1)
			}
			passed(t, rep)
			x := rep.Explore[0]
			if x.Seed != 1 || x.Budget != 20 || len(x.Found) != len(x.Runs)+1 || x.Found[0] != 0 {
				t.Errorf("exploration %+v: want seed 1, budget 20, a count after each run and none after the first", x)
			}
			for _, r := range x.Runs {
				if r.Strategy != tc.strategy {
					t.Errorf("run %d took %s, want only %s", r.Index, r.Strategy, tc.strategy)
				}
			}
			for _, test := range tc.races {
				var f *report.Finding
				for i := range rep.Findings {
					if rep.Findings[i].Test == test && rep.Findings[i].Kind == "race" {
						f = &rep.Findings[i]
					}
				}
				if f == nil {
					t.Errorf("%s: no race found in %d runs (%+v)", test, len(x.Runs), x.Runs)
					continue
				}
				o := f.Origin
				if o == nil || o.Run < 1 || o.Strategy != tc.strategy || o.Runs != o.Run+1 || o.Seed != x.Runs[o.Run-1].Seed {
					t.Errorf("%s: origin %+v, want a steered run of %s", test, o, tc.strategy)
				}
				if len(f.Witness) == 0 || len(f.Accesses) != 2 {
					t.Errorf("%s: race %+v without its witness", test, f)
				}
			}
			for _, test := range tc.leaks {
				found := false
				for _, tt := range rep.Tests {
					if tt.Name == test && len(tt.Leaked) > 0 && len(tt.Errors) > 0 && strings.Contains(tt.Errors[0], "explore run") {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: no leak found in %d runs (tests %+v)", test, len(x.Runs), rep.Tests)
				}
			}
			if tc.strategy != report.StrategyPCT {
				delayed := 0
				for _, r := range x.Runs {
					delayed += r.Delayed
				}
				if delayed == 0 {
					t.Errorf("no run took a delay: the recorder's names or positions disagree with the plan's (%+v)", x.Runs)
				}
			}

			ExplorePatience = 5
			rep = explore(t, "fixed", tc.run, tc.strategy, 20, 1)
			passed(t, rep)
			if len(rep.Findings) != 0 {
				t.Errorf("fixed twins: findings %+v", rep.Findings)
			}
			for _, tt := range rep.Tests {
				if len(tt.Leaked) > 0 {
					t.Errorf("fixed twin %s: leaked %v", tt.Name, tt.Leaked)
				}
			}
			if x := rep.Explore[0]; len(x.Runs) < 20 && !strings.Contains(x.Stopped, "5 runs in a row added no finding and no coverage") {
				t.Errorf("fixed twins: %d runs, stopped %q: want 20, or a note that coverage stopped it", len(x.Runs), x.Stopped)
			}
		})
	}
}

// TestExploreFindings: the findings strategy replays the witness of a
// race the first run predicted, and that run confirms it.
func TestExploreFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	rep := explore(t, "bug", "^TestPredicted$", report.StrategyFindings, 3, 1)
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want the predicted race", rep.Findings)
	}
	f := rep.Findings[0]
	if !f.Predicted || f.Origin == nil || f.Origin.Run != 0 || f.Origin.Strategy != report.StrategyFirst {
		t.Errorf("finding %+v (origin %+v): want the first run's predicted race", f, f.Origin)
	}
	if f.Confirmed != report.ConfirmedYes || !strings.Contains(f.Replay, "explore run 1") {
		t.Errorf("confirmed %q (%s): want confirmed by explore run 1", f.Confirmed, f.Replay)
	}
	x := rep.Explore[0]
	if len(x.Runs) != 1 || x.Runs[0].Strategy != report.StrategyFindings || !strings.Contains(x.Stopped, "no predicted finding left") {
		t.Errorf("exploration %+v: want one findings run, then a stop for want of targets", x)
	}

	rep = explore(t, "fixed", "^TestPredicted$", report.StrategyFindings, 3, 1)
	if len(rep.Findings) != 0 || len(rep.Explore[0].Runs) != 0 {
		t.Errorf("fixed twin: findings %+v, runs %+v", rep.Findings, rep.Explore[0].Runs)
	}
}

// TestExploreDeterministic plans from one recording twice: the same seed
// gives the same steering, run after run, and another seed another.
func TestExploreDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	rec, err := record.Record(context.Background(), record.RecordOptions{
		Dir: exploreDir, Package: "./bug", Run: "^(TestCancel|TestTimeout|TestPool)$",
		Timeout: time.Minute, NoFile: true, Replayable: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	steer := func(seed uint64) []any {
		ex := newExplorer(Options{Explore: 6, ExploreSeed: seed}, rec.Package, "")
		ex.coverage(rec.Trace)
		ex.plan(rec.Trace)
		ex.k = opsOf(rec.Trace)
		var out []any
		for i := 1; i <= 6; i++ {
			s := ex.strategies[(i-1)%len(ex.strategies)]
			seed := ex.runSeed(i)
			rng := newRunRand(seed, i)
			out = append(out, s, seed, *ex.schedule(s, seed, rng))
		}
		return out
	}
	a, b, c := steer(11), steer(11), steer(12)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the same seed steered differently:\n%v\n%v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 11 and 12 steered alike: %v", a)
	}
	delays := 0
	for i := 2; i < len(a); i += 3 {
		delays += len(a[i].(trace.ExploreSchedule).Delays)
	}
	if delays == 0 {
		t.Errorf("no delays planned from a run with selects and a contended channel: %v", a)
	}
}

func TestParseStrategies(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []report.Strategy
		err  bool
	}{
		{"", nil, false},
		{"all", nil, false},
		{"pct", []report.Strategy{report.StrategyPCT}, false},
		{"select, partner,select", []report.Strategy{report.StrategySelect, report.StrategyPartner}, false},
		{"findings,pct", []report.Strategy{report.StrategyFindings, report.StrategyPCT}, false},
		{"fuzz", nil, true},
		{"first", nil, true},
	} {
		got, err := ParseStrategies(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("ParseStrategies(%q) = %v, %v; want %v (error: %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
