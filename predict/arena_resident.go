// This file gives a history's arena (clock_rises_file.go) its pages back
// while a reader reads much of it, when the process nears its memory
// budget: the candidates' sweep reads the must-happen-before history for
// every pair of classes, and the pages it faults back in from the
// arena's file (a shared mapping's pages count in the process's resident
// memory, though the Go memory limit does not see them) stayed resident
// until the sweep was done, beside the heap (bench/RESULTS.md, "the
// pre-pass's event cap from the trace's own counts"). Giving them back
// costs the faults of the pages the reader then reads again, so it is
// done only once the process's resident memory is past its memory limit
// by a sixteenth of it, and never without a limit. The limit is the one
// seer gives trace.SetMemoryLimit (seven eighths of -maxmem, so that is
// about fifteen sixteenths of -maxmem), not the Go runtime's, which
// trace/memlimit.go raises by the room given back inside the event
// tables; without one, the runtime's.

package predict

import (
	"math"
	"runtime/debug"
	"time"

	"github.com/seer-tools/seer/trace"
)

// dropNear gives a's pages back (drop) if the process's resident memory
// is past its memory limit by a sixteenth of it (see the file's
// comment). A nil arena drops nothing.
func (a *riseArena) dropNear() {
	if a == nil {
		return
	}
	l := trace.MemoryLimit()
	if l <= 0 {
		l = debug.SetMemoryLimit(-1) // reads the limit
	}
	if l <= 0 || l == math.MaxInt64 {
		return
	}
	if r := resident(); r >= 0 && r >= l+l/16 {
		a.drop()
	}
}

// A dropPacer asks its arena's dropNear every sweepDropEvery+1 steps of a
// reader (the candidates' sweep: a step a pair or triple), at most once
// a sweepDropPeriod: reading how much is resident costs a system call.
type dropPacer struct {
	a     *riseArena
	asked time.Time // when dropNear was last asked (or the reader began)
}

const (
	sweepDropEvery  = 1<<4 - 1
	sweepDropPeriod = 10 * time.Millisecond
)

// step is the reader's k-th step.
func (p *dropPacer) step(k int) {
	if k&sweepDropEvery == sweepDropEvery && time.Since(p.asked) >= sweepDropPeriod {
		p.a.dropNear()
		p.asked = time.Now()
	}
}
