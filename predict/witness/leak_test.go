// This file tests the check of a predicted leak after a select
// (leak.go): it accepts the schedule that stops the sender before its
// send and the receiver at its select with the timer started, and
// rejects each kind of wrong claim.

package witness

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

// selectTrace builds the run of a fetch with a timeout: g1 is the
// harness, g2 the test, which starts g3 (the worker), calls time.After
// (4) and selects; g3 starts its send (5, chansend's read) and the two
// meet (6 g3 release, 7 g2 acquire, 8 g2 release, 9 g3 acquire); both
// end (10, 11). recv is the stack of g2's receive; extra events follow.
func selectTrace(t *testing.T, recv []trace.Frame, extra ...func(b *trace.Builder, g2, g3 trace.GoID, c trace.ObjID) trace.Event) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: "/goroot"})
	st := func(fs ...trace.Frame) trace.StackID { return b.Stacks().Intern(fs) }
	fetch := trace.Frame{Func: "example.com/p.fetch", File: "/src/p/p_test.go", Line: 18}
	test := st(trace.Frame{Func: "example.com/p.TestFetch", File: "/src/p/p_test.go", Line: 27})
	goStmt := st(trace.Frame{Func: "example.com/p.fetch", File: "/src/p/p_test.go", Line: 15})
	timer := st(trace.Frame{Func: "time.After", File: "/goroot/src/time/sleep.go", Line: 203},
		trace.Frame{Func: "example.com/p.fetch", File: "/src/p/p_test.go", Line: 21})
	worker := trace.Frame{Func: "example.com/p.fetch.func1", File: "/src/p/p_test.go", Line: 16}
	start := st(trace.Frame{Func: "runtime.chansend", File: "/goroot/src/runtime/chan.go", Line: 176}, worker)
	send := st(trace.Frame{Func: "runtime.send", File: "/goroot/src/runtime/chan.go", Line: 325},
		trace.Frame{Func: "runtime.chansend", File: "/goroot/src/runtime/chan.go", Line: 232},
		trace.Frame{Func: "runtime.chansend1", File: "/goroot/src/runtime/chan.go", Line: 161}, worker)
	if recv == nil {
		recv = []trace.Frame{{Func: "runtime.selectgo", File: "/goroot/src/runtime/select.go", Line: 351}, fetch}
	}
	rs := st(recv...)
	harness := st(trace.Frame{Func: "testing.(*T).Run", File: "/goroot/src/testing/testing.go", Line: 2101})
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, harness)
	b.SetGoroutine(g2, "TestFetch", "")
	g3 := b.Goroutine(g2, goStmt)
	b.SetGoroutine(g3, "TestFetch", "")
	c := b.Object(trace.ObjChan, 0x1000, 8, "ch")
	tv := b.Object(trace.ObjVar, 0x2000, 8, "")
	cv := b.Object(trace.ObjVar, 0x1000, 8, "")
	for _, e := range []trace.Event{
		{G: g1, Op: trace.OpGo, Peer: int32(g2), Stack: harness},
		{G: g2, Op: trace.OpStart, Peer: int32(g1)},
		{G: g2, Op: trace.OpGo, Peer: int32(g3), Stack: goStmt},
		{G: g3, Op: trace.OpStart, Peer: int32(g2)},
		{G: g2, Op: trace.OpWrite, Obj: tv, Addr: 0x2000, Size: 8, Stack: timer},
		{G: g3, Op: trace.OpRead, Obj: cv, Addr: 0x1000, Size: 8, Stack: start},
		{G: g3, Op: trace.OpSend, Obj: c, Addr: 0x1000, Sync: trace.SyncRelease, Stack: send},
		{G: g2, Op: trace.OpRecv, Obj: c, Addr: 0x1000, Sync: trace.SyncAcquire, Peer: 6, Stack: rs},
		{G: g2, Op: trace.OpRecv, Obj: c, Addr: 0x1000, Sync: trace.SyncRelease, Stack: rs},
		{G: g3, Op: trace.OpSend, Obj: c, Addr: 0x1000, Sync: trace.SyncAcquire, Stack: send},
		{G: g3, Op: trace.OpEnd},
		{G: g2, Op: trace.OpRead, Obj: tv, Addr: 0x2000, Size: 8, Stack: test},
	} {
		b.Add(e)
	}
	for _, f := range extra {
		b.Add(f(b, g2, g3, c))
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestCheckSelectLeak(t *testing.T) {
	base := selectTrace(t, nil)
	closed := selectTrace(t, nil, func(b *trace.Builder, g2, _ trace.GoID, c trace.ObjID) trace.Event {
		return trace.Event{G: g2, Op: trace.OpClose, Obj: c, Addr: 0x1000, Sync: trace.SyncRelease,
			Stack: b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestFetch", File: "/src/p/p_test.go", Line: 30}})}
	})
	plain := selectTrace(t, []trace.Frame{{Func: "runtime.chanrecv1", File: "/goroot/src/runtime/chan.go", Line: 506},
		{Func: "example.com/p.fetch", File: "/src/p/p_test.go", Line: 18}})
	nbFrames := []trace.Frame{{Func: "runtime.chanrecv", File: "/goroot/src/runtime/chan.go", Line: 607},
		{Func: "runtime.selectnbrecv", File: "/goroot/src/runtime/chan.go", Line: 805},
		{Func: "example.com/p.fetch", File: "/src/p/p_test.go", Line: 18}}
	nb := selectTrace(t, nbFrames)
	// nb, and g4 (made by the harness) begins a send on the channel
	// (12 go, 13 start, 14 chansend's read) and waits there.
	var g4 trace.GoID
	pending := selectTrace(t, nbFrames,
		func(b *trace.Builder, _, _ trace.GoID, _ trace.ObjID) trace.Event {
			g4 = b.Goroutine(1, 0)
			return trace.Event{G: 1, Op: trace.OpGo, Peer: int32(g4)}
		},
		func(b *trace.Builder, _, _ trace.GoID, _ trace.ObjID) trace.Event {
			return trace.Event{G: g4, Op: trace.OpStart, Peer: 1}
		},
		func(b *trace.Builder, _, _ trace.GoID, _ trace.ObjID) trace.Event {
			o := b.Object(trace.ObjVar, 0x1000, 8, "")
			return trace.Event{G: g4, Op: trace.OpRead, Obj: o, Addr: 0x1000, Size: 8,
				Stack: b.Stacks().Intern([]trace.Frame{{Func: "runtime.chansend", File: "/goroot/src/runtime/chan.go", Line: 176},
					{Func: "example.com/p.other", File: "/src/p/p_test.go", Line: 40}})}
		})
	claim := func(evs []int, w ...int) *Schedule { return &Schedule{Kind: SelectLeak, Events: evs, Witness: w} }
	for _, tc := range []struct {
		name string
		t    *trace.Trace
		s    *Schedule
		want string // "" means accepted
	}{
		{"sender before its send, receiver at the select", base, claim([]int{5, 7, 4}, 0, 1, 2, 3, 4), ""},
		{"prefix form", base, &Schedule{Kind: SelectLeak, Events: []int{5, 7, 4}, Prefix: 4, Stops: []int{5}, Witness: []int{4}}, ""},
		{"a default case", nb, claim([]int{5, 7}, 0, 1, 2, 3, 4), ""},
		{"a default case, another sender not yet begun", pending, claim([]int{5, 7}, 0, 1, 2, 3, 4, 12, 13), ""},
		{"a default case, another sender waiting", pending, claim([]int{5, 7}, 0, 1, 2, 3, 4, 12, 13, 14), "waits in a send"},
		{"the sender began its send", base, claim([]int{5, 7, 4}, 0, 1, 2, 3, 4, 5), "next event after the schedule is not 5"},
		{"half a send", base, claim([]int{6, 7, 4}, 0, 1, 2, 3, 4, 5), "does not start a send"},
		{"the timer not started", base, claim([]int{5, 7, 4}, 0, 1, 2, 3), "next event after the schedule is not 7"},
		{"no timer, no default", base, claim([]int{5, 7}, 0, 1, 2, 3, 4), "no timer in the schedule and no default case"},
		{"the timer is the sender's", base, claim([]int{5, 7, 5}, 0, 1, 2, 3, 4), "not a timer's start"},
		{"not in a select", plain, claim([]int{5, 7, 4}, 0, 1, 2, 3, 4), "not a receive in a select"},
		{"the run closes the channel", closed, claim([]int{5, 7, 4}, 0, 1, 2, 3, 4), "closes channel"},
		{"the send and the receive swapped", base, claim([]int{7, 5, 4}, 0, 1, 2, 3, 4), "does not start a send"},
		{"one event", base, claim([]int{5}, 0, 1, 2, 3, 4), "select leak needs"},
		{"infeasible: the receive before the send", base, claim([]int{5, 8, 4}, 0, 1, 2, 3, 4, 7), "acquire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tc.t.Events)
			err := NewChecker(tc.t, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}
