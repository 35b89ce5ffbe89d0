// This file implements how often the analysis's loops ask whether they
// should stop (issue 31: every long analysis stops within a second or
// two of the first SIGINT or SIGTERM). Asking a context costs an
// interface call and an atomic load (context.cancelCtx.Err), so a loop
// asks every stopEvery+1 steps whatever a step costs: a step of the
// clock passes joins clocks of up to a hundred thousand goroutines
// (tens of microseconds), a step of the cone's closures or the
// atomicity layer walks a whole critical section.

package predict

// stopEvery masks a loop counter: a loop asks its context when
// i&stopEvery == 0.
const stopEvery = 0xff
