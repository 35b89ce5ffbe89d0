// This file implements the rule that keeps the misuse layer (misuse.go)
// from reporting a panic the program expected: an observed misuse whose
// panic the goroutine recovered (issue 32, item 8).
//
// A send on a closed channel, a second close and a WaitGroup counter
// taken below zero panic; an unrecovered panic ends the process (Go
// spec, "Handling panics": "if the goroutine's function returns, the
// program is terminated"; testing's tRunner recovers only to panic
// again). So a goroutine that the run saw reach its end after the
// failing operation (its OpEnd, which the runtime records from goexit,
// never from the fatal-panic path), or any goroutine of a run that
// exited with status 0, recovered the panic (or a deferred call ended
// the goroutine with runtime.Goexit, which abandons the panic): the
// program handled its own misuse (ristretto's TestCacheProcessItems
// sends on a closed channel on purpose and recovers). The observed
// misuse is then not reported.
//
// A predicted misuse is reported as before: the witness's schedule
// reaches the operation in the failing state, and the trace says nothing
// of what a panic there would meet (the defer statements are not
// recorded). Only what the run itself showed is judged here, and only in
// the direction of reporting less of what the run showed was harmless.

package predict

import (
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

// outcomePass is the Outcome.Result of a run whose process exited with
// status 0 (trace/record).
const outcomePass = "pass"

// survived reports whether the goroutine of event op went on after op
// in the run without the panic ending the process: it reached its end,
// or the run exited with status 0.
func (e *engine) survived(op int32) bool {
	c := e.c
	if c.t.Outcome.Result == outcomePass {
		return true
	}
	evs := c.byG[c.ev[op].G]
	for _, i := range evs[c.pos[op]:] {
		if c.ev[i].Op == trace.OpEnd {
			return true
		}
	}
	return false
}

// recoveredMisuse reports whether an observed misuse at op (its failing
// operation) is one whose panic the program recovered: the finding is
// then the program's own business and is not made. A predicted misuse
// is never judged so.
func (e *engine) recoveredMisuse(op int32, predicted bool) bool {
	return !predicted && e.survived(op)
}

// panics reports whether a misuse kind's failing operation panics (a
// panic the program may recover), rather than throwing a fatal error
// (unlock-of-unlocked) or not failing at once (waitgroup-reuse).
func panics(kind report.Kind) bool {
	switch kind {
	case KindSendOnClosed, KindCloseOfClosed, KindNegativeWaitGroup:
		return true
	}
	return false
}
