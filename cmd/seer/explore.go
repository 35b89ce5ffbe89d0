// This file implements seer check's and seer record's -explore flags
// (issue 28) and how the text report shows exploring.

package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/seer-tools/seer/predict/check"
)

// exploreFlags are the -explore flags of one command.
type exploreFlags struct {
	runs       *int
	seed       *uint64
	strategies *string
}

func addExploreFlags(fs *flag.FlagSet) exploreFlags {
	return exploreFlags{
		runs:       fs.Int("explore", 0, "after the first run, run the tests up to `n` more times under schedules seer's runtime steers, and report the findings of every run"),
		seed:       fs.Uint64("explore-seed", 0, "steer the runs of -explore as the report's seed `s` says, to get the same runs again (0: a new seed)"),
		strategies: fs.String("explore-strategies", "all", "the steering strategies of -explore: a comma-separated `list` of findings, pct, select, partner"),
	}
}

// apply puts the flags into opts; a bad value is a usage error.
func (e exploreFlags) apply(opts *check.Options) error {
	if *e.runs < 0 {
		return fmt.Errorf("-explore %d: want a number of runs, 0 or more", *e.runs)
	}
	st, err := check.ParseStrategies(*e.strategies)
	if err != nil {
		return fmt.Errorf("-explore-strategies: %v", err)
	}
	opts.Explore, opts.ExploreSeed, opts.ExploreStrategies = *e.runs, *e.seed, st
	return nil
}

// originLine says which run a finding came from.
func originLine(o *check.Origin) string {
	if o.Run == 0 {
		return "\tfound in the first run"
	}
	return fmt.Sprintf("\tfound in explore run %d (%s, seed %d): it took %d runs", o.Run, o.Strategy, o.Seed, o.Runs)
}

// printExplorations sums up each exploration: its seed, its runs and the
// found-vs-runs curve, and why it stopped early.
func printExplorations(w io.Writer, rep *check.Report) {
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
