// This file implements parking a large trace's values (Trace.ParkValues)
// while Analyze's first passes replay the whole trace: the SHB layer's
// two passes and the must-happen-before pass (analyze_phases.go's
// startSHB and mustHappenBefore). Neither they nor the pass-free work
// between them reads a value; the layers that do (the WaitGroup counts of
// the blocking and misuse layers, the witness checker's) all run after
// them, once the values are back. The first passes are where such a
// trace's analysis peaks (bench/RESULTS.md, "pond within 1 GiB"), and the
// values are a sixth of the trace as read.

package predict

import "fmt"

// parkValues lets startSHB park the trace's values; false for the tests
// that compare the findings with and without.
var parkValues = true

// parkValuesForPasses parks the trace's values while the whole trace's
// passes run, one after the other or side by side under a memory limit
// (analyze_beside.go), on a trace of concurrentPassesBelow events or
// more (below, the trace is small); restoreValues reads them back once
// both passes are done.
func (a *analysis) parkValuesForPasses() error {
	if !parkValues || a.concurrent || a.o.given != nil {
		return nil
	}
	p, err := a.t.ParkValues()
	if err != nil {
		return fmt.Errorf("predict: parking the trace's values: %w", err)
	}
	a.values = p
	return nil
}

// restoreValues makes the trace's values whole again, if they were
// parked; a second call restores nothing.
func (a *analysis) restoreValues() error {
	p := a.values
	a.values = nil
	if err := p.Restore(); err != nil {
		return fmt.Errorf("predict: reading back the trace's values: %w", err)
	}
	return nil
}
