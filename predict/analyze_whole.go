// This file implements Options.WhileWhole: the caller's own work over
// the whole trace's events, run beside Analyze's passes over it.
//
// On a large trace (concurrentPassesBelow events or more) whose SHB
// layer does not run beside the must-happen-before pass
// (analyze_beside.go), the work between the pre-pass and the
// must-happen-before pass's end (relevance, the handoff check or the SHB
// layer, the pass itself) is one goroutine's, and the second core is
// idle for its whole length; seer check then walked the whole trace
// again after Analyze, on one core, for the goroutines the run left
// blocked (predict/check's blocking.go). That walk needs only the
// trace's events, goroutines and stacks, and little memory of its own
// (two numbers a goroutine, a byte a stack), so it runs on the idle core
// instead: started once the pre-pass, whose two goroutines take both
// cores, is done, and waited for once the must-happen-before pass is
// done, before the values parked for the passes are read back (Restore
// writes the trace's tables) and so before a cut history's tail is
// parked, or else before Analyze returns. The values are not the walk's
// to read (Options.WhileWhole). On a smaller trace, or with the SHB
// layer beside that pass, the walk shares the cores with the passes; it
// is a walk of the events, a small part of either pass.

package predict

// startWhole starts Options.WhileWhole, if set, on a goroutine of its
// own (goroutine's, so that a panic in it reaches Analyze's caller).
func (a *analysis) startWhole() {
	f := a.o.WhileWhole
	if f == nil {
		return
	}
	ctx := a.ctx
	a.waitWhole = goroutine(func() { f(ctx) })
}

// endWhole waits for Options.WhileWhole, if it was started and not yet
// waited for.
func (a *analysis) endWhole() {
	if w := a.waitWhole; w != nil {
		a.waitWhole = nil
		w()
	}
}
