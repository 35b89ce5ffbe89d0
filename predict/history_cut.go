// This file implements the end of a vector-clock pass stopped by its
// history's budget (clockMode.budget, historyBudgetError): the history
// of the events before the cut is indexed once the pass's own clocks are
// dead, as at a pass's normal end (newClocks), rather than beside them.
// On the channel stress suite's trace the clocks of a thousand
// goroutines and the index were the analysis's peak together
// (bench/RESULTS.md, "stress-chan-3m: the SHB pass skipped").

package predict

import (
	"context"
	"runtime"
)

// indexPrefix makes e.Prefix, the clocks of the trace's first e.At
// events, from the pass's recorder and its chains (clockMode.chains),
// and returns e (or the index's error). The caller has dropped every
// other reference to the pass.
func (e *historyBudgetError) indexPrefix(ctx context.Context, c *ctp, rec *riseRecorder, implied bool, ch *chainMap) error {
	if len(c.ev) >= 1<<18 {
		runtime.GC() // the pass's clocks, before the index is made
	}
	h, err := rec.index(ctx, nil, c)
	if err != nil {
		return err
	}
	// Read only once the whole trace's analysis is gone and the
	// prefix's pre-passes are done: its pages wait in the file
	// (clock_rises_file.go).
	rec.ar.drop()
	h.ch = ch
	e.Prefix = &clocks{c: c, h: h, rfImplied: implied}
	return e
}
