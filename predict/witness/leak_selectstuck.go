// This file implements the check of a taken partner's leak (Kind
// StuckLeak, issue 32, items 1 and 5): a schedule after which a
// goroutine waits for ever, on a send or receive or in a select, while
// its test has returned.
//
// The claim is a blocking claim (blocking.go), its Events the next
// events of the goroutines left waiting, the first a channel operation:
// a plain send or receive, or one made in a blocking select whose other
// cases the caller lists (select.go), with one change: the test's own goroutine (testing.tRunner's: it belongs to a
// test and the testing package created it) need not be listed or have
// ended; it may have returned from the test. It has when every one of
// its events with a frame of the user's code is in the schedule: the
// test function and its Cleanups are done, and what it still does is
// the testing package's own. It is then held to what a harness goroutine
// is held to, but for what it did in the schedule, which is done (after
// the schedule it never operates on an object a listed event waits on;
// select.go: in the whole run it never operates at a place that could
// complete a listed select's other case). The checker re-checks, besides
// the blocking claim:
//
//   - the first listed event is a send or receive (blocking.go judges
//     a plain one, and one made in a blocking select, runtime.selectgo,
//     with its other cases);
//   - no listed goroutine is a test's own: the test does not wait;
//   - the first listed goroutine's test has its own goroutine, and it
//     has ended or returned in the schedule.

package witness

import (
	"fmt"
	"strings"

	"github.com/seer-tools/seer/trace"
)

// StuckLeak: the schedule leaves goroutines waiting for ever, the first
// on a channel operation (plain or in a select), after their test
// returned (leak_selectstuck.go).
const StuckLeak Kind = "stuck-leak"

// checkStuckLeak checks a StuckLeak claim (see the file comment).
func (s *fstate) checkStuckLeak() error {
	k, t, f := s.k, s.k.t, s.f
	if len(f.Events) == 0 || f.Events[0] < 0 || f.Events[0] >= k.n {
		return fmt.Errorf("a taken partner's leak needs the victim's event")
	}
	first := &t.Events[f.Events[0]]
	if first.Op != trace.OpSend && first.Op != trace.OpRecv {
		return fmt.Errorf("event %d (%s) is not a channel operation", f.Events[0], first.Op)
	}
	if err := s.checkBlocking(); err != nil {
		return err
	}
	for _, i := range f.Events {
		if g := t.Events[i].G; k.testOwn(g) {
			return fmt.Errorf("goroutine %d, a test's own, waits: the test does not return", g)
		}
	}
	gr := t.Goroutine(first.G)
	if gr == nil || gr.Test == "" {
		return fmt.Errorf("goroutine %d belongs to no test", first.G)
	}
	own := false
	for g := 1; g < k.ng; g++ {
		gid := trace.GoID(g)
		if !k.testOwn(gid) || t.Goroutine(gid).Test != gr.Test {
			continue
		}
		own = true
		if n := s.ran(gid); !(n > 0 && t.Events[k.gEv[k.gOff[g]+n-1]].Op == trace.OpEnd) && !s.userDone(gid, n) {
			return fmt.Errorf("test %s's own goroutine %d has not returned in the schedule", gr.Test, g)
		}
	}
	if !own {
		return fmt.Errorf("test %s has no goroutine of its own in the run", gr.Test)
	}
	return nil
}

// returned reports, for a StuckLeak claim, whether goroutine g is a
// test's own that has returned from the test after its first n events
// (see the file comment); false for every other claim.
func (s *fstate) returned(g trace.GoID, n int32) bool {
	return s.f.Kind == StuckLeak && s.k.testOwn(g) && s.userDone(g, n)
}

// since returns from which of goroutine g's events, n of which ran in
// the schedule, it must keep off the objects waited on (blocking.go): a
// returned test goroutine's acts in the schedule are done, and what it
// still does is the testing package's; any other goroutine's, over the
// whole run.
func (s *fstate) since(g trace.GoID, n int32) int32 {
	if s.returned(g, n) {
		return n
	}
	return 0
}

// userDone reports whether none of goroutine g's events after its first
// n has a frame of the user's code.
func (s *fstate) userDone(g trace.GoID, n int32) bool {
	k, t := s.k, s.k.t
	for _, x := range k.gEv[k.gOff[g]+n : k.gOff[g+1]] {
		if _, user := trace.UserFrame(t.Stack(t.Events[x].Stack), t.Header.GOROOT); user {
			return false
		}
	}
	return true
}

// testOwn reports whether goroutine g is a test's own goroutine: it
// belongs to a test, and the testing package created it.
func (k *Checker) testOwn(g trace.GoID) bool {
	gr := k.t.Goroutine(g)
	if gr == nil || gr.Test == "" {
		return false
	}
	create := k.t.Stack(gr.Create)
	return len(create) > 0 && strings.HasPrefix(create[0].Func, "testing.")
}
