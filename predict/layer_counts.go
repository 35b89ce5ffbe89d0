// This file implements the funnel counters of the layers after the
// races, one type a layer's kind, each of which the layer turns into its
// row of the exported funnel (Stage, api.go) when it ends: the counters a
// layer keeps are its own, and the row's other fields stay zero.

package predict

import "time"

// deadlockCounts is the funnel of a deadlock layer: lock-order deadlocks
// (deadlock_lockorder.go) and channel and Cond deadlocks
// (deadlock_channel.go).
type deadlockCounts struct {
	patterns int64 // lock-order cycles; lock-across-channel, Cond, WaitGroup and recursive-RLock patterns
	closures int64 // patterns tried after the filters, each a closure
}

// stage returns the layer's row: proved deadlocks, one per pattern of
// sites, in time d.
func (n deadlockCounts) stage(name string, proved int, d time.Duration) Stage {
	return Stage{Name: name, Cycles: n.patterns, Deadlocks: n.closures, DeadlockSites: proved, Time: d}
}

// leakCounts is the funnel of the predicted-leak layer (leak_select.go).
type leakCounts struct {
	// receives counts the select receives, from a sender on an
	// unbuffered channel, that Options.SelectLeak proves the channel's
	// only receive.
	receives int64
}

// stage returns the layer's row: proved leaks, one per pair of sites,
// in time d.
func (n leakCounts) stage(proved int, d time.Duration) Stage {
	return Stage{Name: "leak", Leaks: n.receives, LeakSites: proved, Time: d}
}

// misuseCounts is the funnel of the misuse layer (misuse.go).
type misuseCounts struct {
	tried int64 // candidates tried after the must-happen-before filters
	// steps counts the lowering steps (misuse.lower's closures), work
	// their cost, which misuseWork bounds; stopped the candidates whose
	// lowering the budget stopped, the first of them at event stoppedAt.
	steps, work, stopped int64
	stoppedAt            int32
}

// stage returns the layer's row: proved findings, one per pattern of
// sites and kind, in time d.
func (n misuseCounts) stage(proved int, d time.Duration) Stage {
	return Stage{Name: "misuse", Misuse: n.tried, MisuseSites: proved, MisuseSteps: n.steps, MisuseStopped: n.stopped, MisuseStoppedAt: int(n.stoppedAt), Time: d}
}
