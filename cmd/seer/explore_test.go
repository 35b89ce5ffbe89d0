// This file tests the -explore flags and the names of steered runs'
// trace files.

package main

import (
	"flag"
	"slices"
	"testing"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

func TestExploreFlags(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		runs       int
		seed       uint64
		strategies []report.Strategy
		bad        bool
	}{
		{nil, 0, 0, nil, false},
		{[]string{"-explore", "20", "-explore-seed", "7"}, 20, 7, nil, false},
		{[]string{"-explore", "5", "-explore-strategies", "pct,partner"}, 5, 0, []report.Strategy{report.StrategyPCT, report.StrategyPartner}, false},
		{[]string{"-explore", "-1"}, 0, 0, nil, true},
		{[]string{"-explore", "3", "-explore-strategies", "random"}, 0, 0, nil, true},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		e := addExploreFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		var opts check.Options
		err := e.apply(&opts)
		if (err != nil) != tc.bad {
			t.Errorf("%v: error %v, want one: %v", tc.args, err, tc.bad)
			continue
		}
		if !tc.bad && (opts.Explore != tc.runs || opts.ExploreSeed != tc.seed || !slices.Equal(opts.ExploreStrategies, tc.strategies)) {
			t.Errorf("%v: options %+v", tc.args, opts)
		}
	}
}

func TestExploreName(t *testing.T) {
	for out, want := range map[string]string{
		"seer.trace":     "seer.explore3.trace",
		"/tmp/x/a.trace": "/tmp/x/a.explore3.trace",
		"run":            "run.explore3",
	} {
		if got := exploreName(out, 3); got != want {
			t.Errorf("exploreName(%q, 3) = %q, want %q", out, got, want)
		}
	}
}
