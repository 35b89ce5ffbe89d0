// This file tests the ring model of buffered channels (bufchan.go) on
// built runs: a buffer apart from its channel (pointer elements), whose
// closes the run cannot name, and a buffer after its channel's header,
// whose close it can.

package witness

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// ringRun builds a run of goroutine 1: a close of another channel (hchan
// of life 3) if early, two sends and two receives on the one-slot
// channel at offset off of life 1 (send, receive, send, receive), then
// a close of the channel object at offset 16 of life 2 (a channel that
// may be this one's hchan), or, with own, of life 1 (this one's).
func ringRun(t *testing.T, off uint64, early, own bool) *trace.Trace {
	t.Helper()
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	user := b.Stacks().Intern([]trace.Frame{{Func: "example.com/p.TestX", File: "/src/p/p_test.go", Line: 10}})
	g := b.Goroutine(0, user)
	b.SetGoroutine(g, "TestX", "")
	obj := map[uint64]trace.ObjID{}
	add := func(op trace.Op, addr uint64, sync trace.SyncKind) {
		if obj[addr] == 0 {
			obj[addr] = b.Object(trace.ObjChan, addr, 8, "")
		}
		b.Add(trace.Event{G: g, Op: op, Obj: obj[addr], Addr: addr, Sync: sync, Peer: -1, Stack: user})
	}
	if early {
		add(trace.OpClose, trace.LifeAddr(3, 16), trace.SyncRelease)
	}
	slot := trace.LifeAddr(1, off)
	for range 2 {
		add(trace.OpSend, slot, trace.SyncReleaseAcquire)
		add(trace.OpRecv, slot, trace.SyncReleaseAcquire)
	}
	closeAt := trace.LifeAddr(2, 16)
	if own {
		closeAt = trace.LifeAddr(1, 16)
	}
	add(trace.OpClose, closeAt, trace.SyncRelease)
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBufChans(t *testing.T) {
	for _, tc := range []struct {
		name       string
		off        uint64
		early, own bool
		apart      bool
		upTo       int32 // the schedule: events below upTo
		op         trace.Op
		want       string // "" means blocked
	}{
		{"apart: empty, an earlier close", 0, true, false, true, 5, trace.OpRecv, ""},
		{"apart: a close that may be its own", 0, true, false, true, 6, trace.OpRecv, "may be this one"},
		{"apart: full after the first send", 0, false, false, true, 1, trace.OpSend, ""},
		{"after the header: another channel's close", 0x60, false, false, false, 5, trace.OpRecv, ""},
		{"after the header: its own close", 0x60, false, true, false, 5, trace.OpRecv, "closes the channel"},
		{"room in the buffer", 0x60, false, false, false, 2, trace.OpSend, "has room"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := ringRun(t, tc.off, tc.early, tc.own)
			chans := map[trace.ObjID][]int32{}
			for i := range tr.Events {
				chans[tr.Events[i].Obj] = append(chans[tr.Events[i].Obj], int32(i))
			}
			bufs, orphans := BufChans(tr, chans)
			first := int32(0)
			if tc.early {
				first = 1
			}
			bc := bufs[tr.Events[first].Obj]
			if bc == nil || bc.Cap != 1 || bc.Apart != tc.apart || len(bc.Sends) != 2 || len(bc.Recvs) != 2 {
				t.Fatalf("channel %+v, want capacity 1, apart %v, two sends and receives", bc, tc.apart)
			}
			why := bc.Blocked(tc.op, func(x int32) bool { return x < tc.upTo }, orphans)
			if tc.want == "" && why != "" || tc.want != "" && !strings.Contains(why, tc.want) {
				t.Errorf("Blocked = %q, want %q", why, tc.want)
			}
		})
	}
}
