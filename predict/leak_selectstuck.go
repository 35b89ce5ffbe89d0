// This file implements the leak flavour of a taken channel partner
// (issue 32, items 1 and 5): a worker left waiting for ever, on a plain
// send or receive whose partner another goroutine took, or in a select
// that can never proceed, while its test returns. The plain shape, a
// worker that hands its result to a collector that reads one value, and
// then waits on the same channel for its next job:
//
//	func worker(jobs chan int) {
//		jobs <- 1 // W: the collector took it in the run
//		<-jobs    // the dispatcher's job
//	}
//
//	go func() { <-jobs }()    // collector
//	go func() { jobs <- 2 }() // dispatcher
//	go worker(jobs)
//	// the test returns
//
// In a schedule where the dispatcher's send meets the collector, W's
// send has no partner left; the test returns, and W is left blocked: the
// goroutine leak a Go programmer fixes by buffering the channel for every
// sender (or selecting on a context the test cancels). The select shape
// is the same worker whose send is a select's case:
//
//	func worker(jobs chan int, quit <-chan struct{}) {
//		select {          // W: the collector took jobs <- 1 in the run
//		case jobs <- 1:
//		case <-quit:      // the test never closes quit
//			return
//		}
//		<-jobs            // the dispatcher's value
//	}
//
// (static.Program.SelectCases follows its channels to their makes
// through the arguments of go worker): with no partner on jobs, and none
// that can ever come on quit, it waits for ever after its test returned,
// fixed by closing quit (or cancelling a context) when the test is done.
//
// The schedule is the taken partner's (deadlock_partner.go: the
// sync-preserving closure extended to a fixpoint, the one re-paired
// rendezvous, the two goroutines' ends). The rule at its end is the
// blocking claim's (allBlocked, with selectStuck judging each select
// from static's list of its cases' partners, deadlock_select.go), for a
// victim that is not the test's own goroutine, in which the test's own
// goroutine (testing.tRunner's) need not wait: it
// may instead have returned from the test — every event of it with a
// frame of the user's code, the test function's and its Cleanups', is
// in the schedule, so that what it still does is the testing package's
// reporting, with no user code — and is then held to what a harness
// goroutine is, but for what it did in the schedule, which is done:
// after the schedule it never operates on an object a waiting goroutine
// waits on, and (selectStuck, over the whole run) never at a place that
// could complete a waiting select's other case. So the test's own
// goroutine may be the re-paired collector or dispatcher (H or Gp of
// deadlock_partner.go), which then runs to its last event with a frame
// of the user's code rather than to its exit (tailEnd): the result
// channel read once by the first of many,
//
//	go worker(jobs)                            // jobs <- 1; <-jobs
//	go func() { jobs <- 2 }()                  // dispatcher
//	<-jobs                                     // the first result
//
// whose witness gives the test the dispatcher's value. Every other goroutine of
// the test has ended or waits for ever, the victim's goroutine first:
// no goroutine that may still act can reach a partner of its operation
// (of any of the select's cases), so it waits for ever after its test
// returned.
//
// The finding is a predicted leak (Kind leak, Predicted, TestReturns),
// its Events the waiting goroutines' next events (the victim's first),
// Stuck the cases of the selects among them; the checker
// (witness/leak_selectstuck.go, Kind StuckLeak) re-checks the same claim
// with the same static list. A claim in which the test's own goroutine
// waits too, or whose victim is the test's own, stays a deadlock: the
// test never returns.
//
// Not covered, as for the deadlock: a goroutine of the test that is
// neither ended nor waiting for ever (what it does next is not in the
// trace); a partner in the run that was itself in a select; a test's own
// goroutine whose user code after the rendezvous is more than tail steps
// (it uses a value it read, or waits on another goroutine).

package predict

import (
	"strings"

	"github.com/seer-tools/seer/trace"
)

// leakWaiting is allBlocked for the leak flavour (see the file comment):
// the goroutines waiting for ever after cut, victim x first (a plain
// send or receive, or one made in a select), when x's goroutine is not
// its test's own, and that test's own goroutine has ended or returned
// and does not wait.
func (e *engine) leakWaiting(cut []int32, x int32, co *chanOps) ([]int32, bool) {
	c, t := e.c, e.t
	g := trace.GoID(c.ev[x].G)
	if testOwn(t, g) {
		return nil, false
	}
	returned := func(h int32) bool { return testOwn(t, trace.GoID(h)) && e.userDone(cut, h) }
	if !e.testReturned(cut, g) {
		return nil, false
	}
	waiting, ok := e.allBlockedOr(cut, []int32{x}, co, -1, returned)
	if !ok {
		return nil, false
	}
	for _, w := range waiting {
		if testOwn(t, trace.GoID(c.ev[w].G)) {
			return nil, false // the test does not return: a deadlock
		}
	}
	return waiting, true
}

// testReturned reports whether goroutine g's test has its own goroutine
// and it has ended or returned after cut.
func (e *engine) testReturned(cut []int32, g trace.GoID) bool {
	c, t := e.c, e.t
	gr := t.Goroutine(g)
	if gr == nil || gr.Test == "" {
		return false
	}
	own := false
	for h := 1; h < len(c.byG); h++ {
		if hr := t.Goroutine(trace.GoID(h)); hr == nil || hr.Test != gr.Test || !testOwn(t, trace.GoID(h)) {
			continue
		}
		own = true
		if n := cut[h]; !(n > 0 && c.ev[c.at(int32(h), n)].Op == trace.OpEnd) && !e.userDone(cut, int32(h)) {
			return false
		}
	}
	return own
}

// userDone reports whether goroutine g's every event with a frame of the
// user's code is among its first cut[g].
func (e *engine) userDone(cut []int32, g int32) bool { return e.lastUser(g, cut[g]) == cut[g] }

// lastUser returns the position of goroutine g's last event with a frame
// of the user's code, found from its end backwards, or floor when none
// comes after its first floor events.
func (e *engine) lastUser(g, floor int32) int32 {
	c, t := e.c, e.t
	for p := int32(len(c.byG[g])); p > floor; p-- {
		if _, user := t.Stacks.UserFrameOf(t.Events[c.at(g, p)].Stack, t.Header.GOROOT); user {
			return p
		}
	}
	return floor
}

// testOwn reports whether goroutine g is a test's own goroutine
// (testing.tRunner's): it belongs to a test, and the testing package
// created it.
func testOwn(t *trace.Trace, g trace.GoID) bool {
	gr := t.Goroutine(g)
	if gr == nil || gr.Test == "" {
		return false
	}
	create, ok := t.Stacks.Top(gr.Create)
	return ok && strings.HasPrefix(create.Func, "testing.")
}
