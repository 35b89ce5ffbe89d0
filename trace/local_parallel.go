// This file implements parallelDrops: compactLocal asks of every event
// whether to leave it out on two cores at once, after the run, when the
// recorded test no longer competes for them.
//
// The question reads only what the scan gathered (the lives' owners, the
// words' owners, each goroutine's last events), so its answers for two
// halves of the table can be found at once; compactEvents then moves the
// events by those answers, alone, in order. The question is most of
// compactLocal's time once the walk is done (bench/RESULTS.md, "the
// conversion after the run on two cores").

package trace

import "runtime"

// minParallelDrops is the fewest events whose answers parallelDrops finds
// on two cores (a variable for the tests).
var minParallelDrops = 1 << 20

// parallelDrops returns drop, or, for a large table, a function that
// answers as drop would from answers found beforehand for every event of
// events, half of them on a goroutine of its own. drop must only read.
func parallelDrops(events []Event, drop func(i int, e *Event) bool) func(i int, e *Event) bool {
	n := len(events)
	if n < minParallelDrops || runtime.GOMAXPROCS(0) < 2 {
		return drop
	}
	set := make([]uint64, (n+63)/64)
	answer := func(from, to int) {
		for i := from; i < to; i++ {
			if drop(i, &events[i]) {
				set[i/64] |= 1 << (i % 64)
			}
		}
	}
	inHalves(n/2&^63, n, answer) // the halves share no word of set
	return func(i int, _ *Event) bool { return set[i/64]&(1<<(i%64)) != 0 }
}

// inHalves calls f(0, h) and f(h, n) at once, the second on a goroutine
// of its own, and returns when both have (parallelDrops,
// prefaulter.copyEvents).
func inHalves(h, n int, f func(from, to int)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(h, n)
	}()
	f(0, h)
	<-done
}
