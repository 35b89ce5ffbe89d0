// This file checks that leaving out the goroutine-local accesses
// (trace/local.go) loses no finding: on one recording of Go's race suite,
// every finding of the whole trace is a finding of the compacted one.

package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

func TestCompactLocalKeepsFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("records the toolchain's race suite: skipped in -short mode")
	}
	if _, err := record.PrepareToolchain(context.Background(), ""); err != nil {
		t.Skipf("cannot record here: %v", err)
	}
	dir := raceSuiteModule(t)
	rec, err := record.Record(context.Background(), record.RecordOptions{
		Dir: dir, NoFile: true, KeepLocal: true, Timeout: 2 * time.Minute,
		Skip: "^TestRaceCrawl$", // see TestRaceSuite
	})
	if err != nil {
		t.Fatal(err)
	}
	full := rec.Trace
	compact := *full
	compact.Events = slices.Clone(full.Events)
	compact.Values = slices.Clone(full.Values)
	compact.Objects = slices.Clone(full.Objects)
	left := trace.CompactLocal(&compact)
	t.Logf("%d events, %d of them local", len(full.Events), left)
	if left < len(full.Events)/2 {
		// Say how the run ended: once, under a loaded go test ./...,
		// it held 95K events instead of 12.5M.
		t.Errorf("only %d of %d events left out as local, want most (the run: %+v, %d tests, cut %v)",
			left, len(full.Events), rec.Outcome, len(rec.Tests), rec.Cut)
	}
	keys := func(tr *trace.Trace) map[string]bool {
		// A solve bounded by time can end undecided on a loaded machine
		// in one analysis and not the other: bound it generously.
		rep, err := Predict(context.Background(), tr, PredictOptions{SolveTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, f := range rep.Findings {
			// A finding is its pair of sites, in either order: the two
			// analyses may pick another representative pair of events.
			var sites []string
			for _, a := range f.Accesses {
				sites = append(sites, fmt.Sprintf("%s:%d:%s", a.File, a.Line, a.Op))
			}
			slices.Sort(sites)
			out[string(f.Kind)+" "+f.Test+" "+strings.Join(sites, " ")] = true
		}
		return out
	}
	before, after := keys(full), keys(&compact)
	for k := range before {
		if !after[k] {
			t.Errorf("lost by leaving out the local accesses: %s", k)
		}
	}
	for k := range after {
		if !before[k] {
			t.Logf("found only in the compacted trace (each checked by its witness): %s", k)
		}
	}
	t.Logf("%d findings in the whole trace, %d in the compacted one", len(before), len(after))
}
