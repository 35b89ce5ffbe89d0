// This file defines what the report says of seer check -explore (issue
// 28): the run each finding came from (Origin), and how each run of tests
// was explored (Exploration). Package check's explore.go does the
// exploring.

package report

import (
	"fmt"
	"io"
	"strings"
)

// A Strategy is a way of steering a run.
type Strategy string

// The strategies (package check's explore.go says how each steers).
const (
	StrategyPCT      Strategy = "pct"
	StrategySelect   Strategy = "select"
	StrategyPartner  Strategy = "partner"
	StrategyFindings Strategy = "findings"
	// StrategyFirst marks the findings of the first, unsteered run.
	StrategyFirst Strategy = "first"
)

// An Origin is the run a finding came from.
type Origin struct {
	Run      int      `json:"run"`      // 0: the first run; i: the i-th steered run
	Strategy Strategy `json:"strategy"` // how that run was steered
	Seed     uint64   `json:"seed"`     // the run's own seed
	Runs     int      `json:"runs"`     // runs it took to find it: Run+1
}

// An Exploration is how one run of tests was explored.
type Exploration struct {
	Package string       `json:"package"`
	Run     string       `json:"run,omitempty"` // the -run pattern of the runs
	Seed    uint64       `json:"seed"`          // -explore-seed gives the same runs
	Budget  int          `json:"budget"`        // runs asked for (-explore)
	Runs    []ExploreRun `json:"runs"`
	// Found counts the distinct findings, and goroutines left running
	// that the first run did not leave, after each run (Found[0]: the
	// first run's): the found-vs-runs curve.
	Found []int `json:"found"`
	// Stopped says why exploring stopped before its budget, or "".
	Stopped string `json:"stopped,omitempty"`
	// Leaks are the goroutines that steered runs, and not the first,
	// left running when their test ended (also in Test.Leaked).
	Leaks []ExploreLeak `json:"leaks,omitempty"`
}

// An ExploreRun is one steered run.
type ExploreRun struct {
	Index    int      `json:"index"`
	Strategy Strategy `json:"strategy"`
	Seed     uint64   `json:"seed"`
	New      int      `json:"new"`      // findings no run before had
	Coverage int      `json:"coverage"` // coverage no run before had
	Delays   int      `json:"delays"`   // delays planned (select, partner)
	Delayed  int      `json:"delayed"`  // delays the recorder took
	Steps    int      `json:"steps"`    // PCT steering points passed
	Outcome  string   `json:"outcome"`  // how the test process ended
}

// An ExploreLeak is a goroutine that a steered run left running when its
// test ended, and the first run did not.
type ExploreLeak struct {
	Test   string `json:"test"`
	Site   string `json:"site"` // where the goroutine was created
	Origin Origin `json:"origin"`
}

// Sentence says which run a finding came from.
func (o *Origin) Sentence() string {
	if o.Run == 0 {
		return "found in the first run"
	}
	return fmt.Sprintf("found in explore run %d (%s, seed %d): it took %d runs", o.Run, o.Strategy, o.Seed, o.Runs)
}

// writeExplorations sums up each exploration: its seed, its runs and the
// found-vs-runs curve, and why it stopped early.
func writeExplorations(w io.Writer, rep *Report) {
	for _, x := range rep.Explore {
		name := x.Package
		if x.Run != "" {
			name += " (-run " + x.Run + ")"
		}
		curve := make([]string, len(x.Found))
		for i, n := range x.Found {
			curve[i] = fmt.Sprint(n)
		}
		fmt.Fprintf(w, "seer: %s: explored %d of %d runs, -explore-seed %d; findings after each run: %s\n",
			name, len(x.Runs), x.Budget, x.Seed, strings.Join(curve, " "))
		if x.Stopped != "" {
			fmt.Fprintf(w, "seer: %s: %s\n", name, x.Stopped)
		}
	}
}
