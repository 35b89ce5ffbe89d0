// This file implements how, on a trace of concurrentPassesBelow events or
// more, the SHB layer's passes run beside the must-happen-before pass
// (analyze_phases.go's startSHB) within the memory limit: a governor
// that pauses the must-happen-before pass while memory is short.
//
// Below concurrentPassesBelow events the two passes always run at once:
// their worst-case peaks per event fit the default budget there. Above,
// the worst case (a thousand goroutines that all talk to all) would not
// fit, and the passes ran one after the other, the SHB layer first,
// unless the live heap as they started left room for as much again; on
// the largest traces (the channel stress traces, pond's root package at
// its event cap) it did not, and the SHB layer (the handoff check, or the
// SHB pass) and then the must-happen-before pass ran on one core while
// the other was idle. Yet what the passes take cannot be told before they
// run, and on those traces it was much less than that worst case.
//
// So with two processors and a memory limit the two passes start at
// once, and the must-happen-before pass asks, every governEvery+1 events
// and once more before its history's index is made, whether the process's
// resident memory has reached the room: the analysis's share of the
// limit seer gives trace.SetMemoryLimit (seven eighths of -maxmem), the
// Go runtime's limit without one. Resident memory, not the Go heap, as
// the pass's history lives in a mapped file the Go limit does not see,
// and it is the process's resident memory that -maxmem bounds. Once the
// room is reached the pass pauses, its clocks held, until the SHB layer
// has ended and its memory has been collected (startSHB's run collects
// before it says so), then goes on and asks no more. One after the
// other was the SHB layer first and the pass after it, so a pause holds
// at worst the room and what the SHB layer takes after it, where one
// after the other held the SHB layer's whole memory and the pass's after
// it; from the room up the collector, which the Go limit drives, would
// also have to work harder for two passes than for one. The pause waits
// on the analysis's context too, so cancelling stops a paused pass at
// once. Without a limit (a library caller that set none), on one
// processor, or where resident memory cannot be read (resident returns
// -1: the pass pauses at its first question) the passes run one after
// the other in effect, as before.
//
// The limit is the whole process's, and the resident memory too: when
// several analyses may hold memory under it at once (seer check's
// packages checked side by side, Options.Sharing), each was budgeted its
// share of the limit (the events and the history of each package). The
// room is then this analysis's share alone, the limit divided by the
// analyses that may run at once, with the whole resident memory counted
// as this one's: never more than it may take. seer check counts only the
// packages not yet done, so the last package (pond's root package, whose
// analysis runs alone) has the whole limit.
//
// Pausing changes no finding, no funnel count and no history cut, nor
// does which way the passes run: the two passes read neither the
// other's clocks nor the trace's values (parked for both ways,
// analyze_values.go), and the must-happen-before pass's budget counts
// only its own history. What comes after the passes (the values read
// back, the layers after the races, the access classes, the prefix after
// a cut) waits for the SHB layer first, so that no third goroutine runs
// beside the two passes but the cut history's index (history_cut.go),
// which reads only its log.

package predict

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"

	"github.com/seer-tools/seer/trace"
)

// passesBeside says whether a large trace's SHB layer runs beside its
// must-happen-before pass; the tests set it to run both ways.
var passesBeside = besideGoverned

// besideGoverned reports whether a large trace's passes may run at once
// under the governor: there are two processors and a memory limit.
func besideGoverned(o *Options) bool {
	return runtime.GOMAXPROCS(0) >= 2 && limitShare(o) > 0
}

// besideRoom returns the resident bytes at which the must-happen-before
// pass pauses beside the SHB layer (0 or less: it never pauses, for the
// tests that run the passes beside without a limit); the tests set it.
var besideRoom = limitShare

// limitShare returns o's share of the process's memory limit (see the
// file's comment), 0 without a limit.
func limitShare(o *Options) int64 {
	l := trace.MemoryLimit()
	if l <= 0 {
		l = debug.SetMemoryLimit(-1) // reads the limit
	}
	if l <= 0 || l == math.MaxInt64 {
		return 0
	}
	shares := 1
	if o.Sharing != nil {
		shares = max(o.Sharing(), 1)
	}
	return l / int64(shares)
}

// A governor pauses the must-happen-before pass beside the SHB layer
// once the process's resident memory reaches room, until the SHB layer
// has ended (ended is closed) or ctx is done.
type governor struct {
	ctx   context.Context
	room  int64
	ended <-chan struct{} // nil once it was seen closed
}

// governEvery+1 is how many events of the must-happen-before pass go
// between two questions to its governor: reading the resident memory is
// a system call.
const governEvery = 1<<15 - 1

// besideStage names a point of the governed passes at which the tests
// act (besideHook).
type besideStage int

const (
	// besideSHB: the SHB layer beside the pass is about to start.
	besideSHB besideStage = iota
	// besidePause: the pass is about to pause.
	besidePause
)

// besideHook, if not nil, is called at each besideStage; nil outside the
// tests.
var besideHook func(besideStage)

// newGovernor returns a governor of the room, nil (none) if room is 0 or
// less.
func newGovernor(ctx context.Context, room int64, ended <-chan struct{}) *governor {
	if room <= 0 {
		return nil
	}
	return &governor{ctx: ctx, room: room, ended: ended}
}

// hold returns at once if the SHB layer has ended or the resident memory
// is below the room; otherwise it waits for the SHB layer to end, and
// returns ctx's error if ctx is done first. A nil governor holds nothing.
func (g *governor) hold() error {
	if g == nil || g.ended == nil {
		return nil
	}
	select {
	case <-g.ended:
		g.ended = nil
		return nil
	default:
	}
	if r := resident(); r >= 0 && r < g.room {
		return nil
	}
	if besideHook != nil {
		besideHook(besidePause)
	}
	select {
	case <-g.ended:
		g.ended = nil
		return nil
	case <-g.ctx.Done():
		return g.ctx.Err()
	}
}
