// This file implements the split of a pass over the table in two halves
// run at once (inHalves, atOnce, for a large table where there are two
// cores: twoCores): compactLocal asks of every event whether to
// leave it out on two cores at once, after the run, when the recorded test
// no longer competes for them (dropSet, local_compact.go).
//
// The question reads only what the scan gathered (the lives' owners, the
// words' owners, each goroutine's last events), so its answers for two
// halves of the table can be found at once; the events are then moved by
// those answers, alone, in order. The question is most of
// compactLocal's time once the walk is done (bench/RESULTS.md, "the
// conversion after the run on two cores").

package trace

import "runtime"

// minParallelDrops is the fewest events whose passes are split over two
// cores (twoCores; a variable for the tests).
var minParallelDrops = 1 << 20

// twoCores reports whether a pass over n events is split over two cores:
// a large table (minParallelDrops), and two to run on.
func twoCores(n int) bool {
	return n >= minParallelDrops && runtime.GOMAXPROCS(0) >= 2
}

// atOnce calls a and b at once, b on a goroutine of its own, and returns
// when both have.
func atOnce(a, b func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b()
	}()
	a()
	<-done
}

// inHalves calls f(0, h) and f(h, n) at once, the second on a goroutine
// of its own, and returns when both have (dropSet,
// prefaulter.copyEvents).
func inHalves(h, n int, f func(from, to int)) {
	atOnce(func() { f(0, h) }, func() { f(h, n) })
}
