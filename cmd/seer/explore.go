// This file implements seer check's and seer record's -explore flags
// (issue 28) and how the text report shows exploring.

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/trace/record"
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

// recordRuns records the tests once, or with steer, once and then up to n
// steered runs more, each written next to the first (exploreName); it
// returns the first run's result.
func recordRuns(ctx context.Context, ropts record.RecordOptions, steer *check.Steerer, n int) (*record.RecordResult, error) {
	if steer == nil {
		return record.Record(ctx, ropts)
	}
	b, err := record.Build(ctx, ropts)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	first, err := b.Run(ctx, ropts)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "seer: exploring %d runs more, -explore-seed %d\n", n, steer.Seed())
	steer.Learn(first.Trace, 0)
	for k := 0; k < n; k++ {
		i, st, seed, sc := steer.Next()
		o := ropts
		o.Output, o.Explore = exploreName(ropts.Output, i), sc
		rec, err := b.Run(ctx, o)
		if err != nil {
			return nil, err
		}
		steps := 0
		if rec.Explore != nil && sc.PCT {
			steps = rec.Explore.Steps
		}
		fmt.Fprintf(os.Stderr, "seer: explore run %d (%s, seed %d): %d events (%s) in %s\n", i, st, seed, rec.Events, rec.Outcome.Result, rec.Path)
		steer.Learn(rec.Trace, steps)
		if steer.Idle() >= check.ExplorePatience && k+1 < n {
			fmt.Fprintf(os.Stderr, "seer: stopped after %d runs: %d runs in a row covered nothing new\n", i, steer.Idle())
			break
		}
	}
	return first, nil
}

// exploreName is the file of steered run i, next to out: seer.trace,
// seer.explore1.trace.
func exploreName(out string, i int) string {
	ext := filepath.Ext(out)
	return fmt.Sprintf("%s.explore%d%s", strings.TrimSuffix(out, ext), i, ext)
}
