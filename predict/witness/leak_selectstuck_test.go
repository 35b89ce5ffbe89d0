// This file tests the check of a select's leak (leak_selectstuck.go):
// a worker's select left waiting for ever while its test returns.

package witness

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

// stuckLeak: g1 the harness, g2 the test (its own goroutine, made by the
// testing package), g3 a goroutine that receives once on c, g4 one that
// sends once on c, g5 the worker, which sends on c in a select and then
// receives on c. In the run the worker's send met g3's receive, and g4's
// send the worker's receive. The test's last event, 8, is the testing
// package's (no user frame) unless testLast is set; with testEnds, it
// is the test's end.
//
// Events: 0 go g2, 1 start g2, 2 go g3, 3 start g3, 4 go g4, 5 start
// g4, 6 go g5, 7 start g5, 8 the test's last, 9 g5 send c (release, in
// the select), 10 g3 recv (acquire), 11 g3 recv (release), 12 g5 send
// (acquire), 13 g3 end, 14 g4 send (release), 15 g5 recv (acquire), 16
// g5 recv (release), 17 g4 send (acquire), 18 g4 end, 19 g5 end.
func stuckLeak(t *testing.T, testLast trace.Op, testUser bool) *trace.Trace {
	gs := []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}, {2, "TestX", false}, {2, "TestX", false}}
	evs := []bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1},
		{2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{2, trace.OpGo, "", 0, 4}, {4, trace.OpStart, "", 0, 2},
		{2, trace.OpGo, "", 0, 5}, {5, trace.OpStart, "", 0, 2},
		{2, testLast, "", 0, 0},
		{5, trace.OpSend, "c", trace.SyncRelease, 0}, {3, trace.OpRecv, "c", trace.SyncAcquire, 9},
		{3, trace.OpRecv, "c", trace.SyncRelease, 0}, {5, trace.OpSend, "c", trace.SyncAcquire, 0},
		{3, trace.OpEnd, "", 0, 0},
		{4, trace.OpSend, "c", trace.SyncRelease, 0}, {5, trace.OpRecv, "c", trace.SyncAcquire, 14},
		{5, trace.OpRecv, "c", trace.SyncRelease, 0}, {4, trace.OpSend, "c", trace.SyncAcquire, 0},
		{4, trace.OpEnd, "", 0, 0}, {5, trace.OpEnd, "", 0, 0},
	}
	tr := buildTrace(t, gs, evs)
	tr.Header.GOROOT = "/goroot"
	tr.Goroutine(2).Create = tr.Stacks.Intern([]trace.Frame{{Func: "testing.(*T).Run", File: "/goroot/src/testing/testing.go", Line: 2101}})
	if !testUser {
		tr.Events[8].Stack = tr.Stacks.Intern([]trace.Frame{{Func: "testing.tRunner", File: "/goroot/src/testing/testing.go", Line: 1800}})
	}
	tr.Events[9].Stack = tr.Stacks.Intern([]trace.Frame{
		{Func: "runtime.selectgo", File: "/goroot/src/runtime/select.go", Line: 300},
		{Func: "example.com/p.worker", File: "/src/p/p_test.go", Line: 12},
	})
	return tr
}

func TestCheckStuckLeak(t *testing.T) {
	noPartner := func(int32) ([]SelectCase, bool) { return []SelectCase{{}}, true }
	quitClosedAt := func(line int) func(int32) ([]SelectCase, bool) {
		return func(int32) ([]SelectCase, bool) {
			return []SelectCase{{Partners: []trace.Frame{{File: "p_test.go", Line: line}}}}, true
		}
	}
	w := []int{14, 10, 11, 17, 13, 18} // g4's send taken by g3
	claim := func(kind Kind, prefix int) *Schedule {
		return &Schedule{Kind: kind, Events: []int{9}, Prefix: prefix, Witness: w}
	}
	for _, tc := range []struct {
		name  string
		tr    *trace.Trace
		cases func(int32) ([]SelectCase, bool)
		s     *Schedule
		want  string // "" means accepted
	}{
		{"the test returned", stuckLeak(t, trace.OpWrite, false), noPartner, claim(StuckLeak, 9), ""},
		{"the test ended", stuckLeak(t, trace.OpEnd, false), noPartner, claim(StuckLeak, 9), ""},
		{"as a deadlock, the returned test goes on", stuckLeak(t, trace.OpWrite, false), noPartner, claim(Deadlock, 9), "goroutine 2 has not ended"},
		{"the test's own code is still to run", stuckLeak(t, trace.OpWrite, true), noPartner, claim(StuckLeak, 8), "goroutine 2 can go on"},
		{"the test's last act not yet run", stuckLeak(t, trace.OpWrite, false), noPartner, claim(StuckLeak, 8), ""},
		{"a place that could complete the quit case ran in the schedule", stuckLeak(t, trace.OpWrite, true), quitClosedAt(10), claim(StuckLeak, 9), "may proceed"},
		{"cases not known", stuckLeak(t, trace.OpWrite, false), func(int32) ([]SelectCase, bool) { return nil, false }, claim(StuckLeak, 9), "not known"},
		// issue 32 item 1's leak flavour: the worker's plain send.
		{"a plain send the test returned from", stuckLeakPlain(t, false), noPartner, claim(StuckLeak, 9), ""},
		{"a plain send, the test's own code still to run", stuckLeakPlain(t, true), noPartner, claim(StuckLeak, 8), "goroutine 2 can go on"},
		{"a plain send as a deadlock, the returned test goes on", stuckLeakPlain(t, false), noPartner, claim(Deadlock, 9), "goroutine 2 has not ended"},
		{"a plain receive the test returned from", flipped(stuckLeakPlain(t, false)), noPartner, claim(StuckLeak, 9), ""},
		{"a plain receive, the test's own code still to run", flipped(stuckLeakPlain(t, true)), noPartner, claim(StuckLeak, 8), "goroutine 2 can go on"},
		// The helper g4 is a test's own goroutine too, which returns after
		// its send (its last act the testing package's): it used c in the
		// schedule, and keeps off it after.
		{"a returned test goroutine used the channel in the schedule", testHelper(t, trace.OpWrite), noPartner, &Schedule{Kind: StuckLeak, Events: []int{9}, Prefix: 9, Witness: w[:5]}, ""},
		{"a returned test goroutine uses the channel after it", testHelper(t, trace.OpClose), noPartner, &Schedule{Kind: StuckLeak, Events: []int{9}, Prefix: 9, Witness: w[:5]}, "operates on object"},
		{"the victim is no channel operation", stuckLeakPlain(t, false), noPartner, &Schedule{Kind: StuckLeak, Events: []int{13}, Prefix: 9, Witness: w}, "not a channel operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tc.tr.Events)
			k := NewChecker(tc.tr, loc, spans)
			k.ValueFree(func(int32) bool { return true })
			k.SelectCases(tc.cases)
			wantVerdict(t, k.Check(tc.s), tc.want)
		})
	}
}

// stuckLeakPlain is stuckLeak with the worker's send not in a select
// (issue 32 item 1: the worker hands its result to a one-shot taker,
// then waits on the same channel for the next job).
func stuckLeakPlain(t *testing.T, testUser bool) *trace.Trace {
	tr := stuckLeak(t, trace.OpWrite, testUser)
	tr.Events[9].Stack = tr.Stacks.Intern([]trace.Frame{{Func: "example.com/p.worker", File: "/src/p/p_test.go", Line: 12}})
	return tr
}

// testHelper is stuckLeakPlain whose sending helper g4 is a test's own
// goroutine (of a subtest, say), whose last act, made by the testing
// package, is op (on c if a close) rather than its end.
func testHelper(t *testing.T, op trace.Op) *trace.Trace {
	tr := stuckLeakPlain(t, false)
	tr.Goroutine(4).Create = tr.Goroutine(2).Create
	last := &tr.Events[18]
	last.Op, last.Stack = op, tr.Events[8].Stack
	if op == trace.OpClose {
		last.Obj = tr.Events[9].Obj
	}
	return tr
}

// flipped turns every send of tr into a receive and every receive into a
// send: a rendezvous's four events are the same whichever side sends. Of
// stuckLeakPlain it makes the worker receive a job from a one-shot
// sender, then send its reply on the same channel; another goroutine's
// receive takes the sender first.
func flipped(tr *trace.Trace) *trace.Trace {
	for i := range tr.Events {
		switch e := &tr.Events[i]; e.Op {
		case trace.OpSend:
			e.Op = trace.OpRecv
		case trace.OpRecv:
			e.Op = trace.OpSend
		}
	}
	return tr
}
