// This file implements what seer check reads of every event of a run's
// trace beside the analysis's first passes (predict.Options.WhileWhole):
// the goroutines the run left blocked (blockedWalk) and each test's
// events and leaked goroutines (walkTests). Both read the trace's events,
// goroutines and stacks only. After the analysis they were walks of a
// trace whose tail a cut history had parked and read back, and the first
// walk over the pages read back was the slowest step after the analysis,
// on one core (bench/RESULTS.md, branch serial); beside the analysis's
// passes over the whole trace, which on a large trace are one
// goroutine's, they take the second core instead.

package check

import (
	"context"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace/record"
)

// wholeWalk is what walkWhole's walk found of one run's trace.
type wholeWalk struct {
	blocked []predict.Finding // the goroutines the run left blocked, not yet checked (reportObserved)
	tests   testWalk          // for testsOfWalk
	err     error             // the walk's context's, if it stopped early
}

// walkWhole returns the walk of rec's trace for what seer check reads of
// its every event, and where it leaves what it found.
func walkWhole(rec *record.RecordResult) (*wholeWalk, func(context.Context)) {
	w := &wholeWalk{}
	blocked := blockedWalk(rec)
	return w, func(ctx context.Context) {
		if w.blocked, w.err = blocked(ctx); w.err != nil {
			return
		}
		if w.err = ctx.Err(); w.err != nil {
			return
		}
		w.tests = walkTests(rec)
	}
}
