// This file implements the end of a vector-clock pass stopped by its
// history's budget (clockMode.budget, historyBudgetError): the history
// of the events before the cut is indexed once the pass's own clocks are
// dead, as at a pass's normal end (newClocks), rather than beside them.
// On the channel stress suite's trace the clocks of a thousand
// goroutines and the index were the analysis's peak together
// (bench/RESULTS.md, "stress-chan-3m: the SHB pass skipped").
//
// On a large trace the index is made on a goroutine of its own, beside
// what the prefix's analysis does before its must-happen-before clocks
// are read (analyzePrefix: the SHB findings' checks, parking the events
// past the cut, the prefix's CTP, locations and read-from): none of that
// reads the history or the arena it is written to, and the prefix's
// buildMHB waits for it (prefixIndex). The index reads nothing but the
// pass's log (riseRecorder.index with no acquire rises reads no CTP),
// so parking the trace's tail beside it is safe. When the SHB layer runs
// beside the must-happen-before pass (analyze_beside.go), the index
// starts beside what is left of the SHB pass, whose clocks are then live
// with it: the gate there, not this file, keeps that within the limit.

package predict

import (
	"context"
	"runtime"
)

// indexBesideFrom is the number of events from which indexPrefix makes
// the index on a goroutine of its own, beside the prefix's pre-passes: a
// second core then does it while the first builds the prefix's CTP.
// Below, it is made in place, as it was. A variable for the tests, which
// run both ways.
var indexBesideFrom = 1 << 18

// prefixIndex is the index of a cut pass's history, being made or made.
type prefixIndex struct {
	wait func() // returns once h and err are set
	h    *riseLog
	err  error
}

// result waits for the index and returns it.
func (p *prefixIndex) result() (*riseLog, error) {
	p.wait()
	return p.h, p.err
}

// indexPrefix makes e.Index, the history of the trace's first e.At
// events, from the pass's recorder and its chains (clockMode.chains),
// sets e.RFImplied, and returns e. The caller has dropped every
// other reference to the pass. On a trace of indexBesideFrom events or
// more the index is still being made when indexPrefix returns: its
// error, like its history, comes from e.Index.result.
func (e *historyBudgetError) indexPrefix(ctx context.Context, c *ctp, rec *riseRecorder, implied bool, ch *chainMap) error {
	if len(c.ev) >= 1<<18 {
		runtime.GC() // the pass's clocks, before the index is made
	}
	p := &prefixIndex{}
	index := func() {
		h, err := rec.index(ctx, nil, nil) // no acquire rises: no CTP read
		if err == nil {
			h.ch = ch
		}
		// Read only once the whole trace's analysis is gone and the
		// prefix's pre-passes are done: its pages wait in the file
		// (clock_rises_file.go).
		rec.ar.drop()
		p.h, p.err = h, err
	}
	if len(c.ev) >= indexBesideFrom {
		p.wait = goroutine(index) // Analyze waits for it on every path (analysis.waitIndex)
	} else {
		index()
		p.wait = func() {}
		if p.err != nil {
			return p.err
		}
	}
	e.Index, e.RFImplied = p, implied
	return e
}
