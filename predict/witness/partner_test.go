// This file tests the re-paired rendezvous (partner.go): a receive that
// takes another goroutine's send, in a schedule that leaves the send it
// took in the run waiting for ever.

package witness

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

// takenPartner: g1 the harness, g2 the test, g3 a goroutine that
// receives once on c, g4 one that sends once on c. In the run the test's
// send meets g3's receive and g4's send the test's own receive later.
//
// Events: 0 go g2, 1 start g2, 2 go g3, 3 start g3, 4 go g4, 5 start
// g4, 6 g2 send c (release), 7 g3 recv (acquire), 8 g3 recv (release),
// 9 g2 send (acquire), 10 g3 end, 11 g4 send (release), 12 g2 recv
// (acquire), 13 g2 recv (release), 14 g4 send (acquire), 15 g4 end, 16
// g2 end.
func takenPartner(t *testing.T) *trace.Trace { return takenPartnerOf(t, false, false) }

// takenPartnerOf is takenPartner, with g3 arriving second at the
// rendezvous (its receive a release, then an acquire) when second, and
// with a goroutine g5 that the harness starts at the end and that closes
// c (events 17 go g5, 18 start, 19 close, 20 end) when closer.
func takenPartnerOf(t *testing.T, second, closer bool) *trace.Trace {
	gs := []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}, {2, "TestX", false}}
	rendezvous := []bev{{2, trace.OpSend, "c", trace.SyncRelease, 0}, {3, trace.OpRecv, "c", trace.SyncAcquire, 6},
		{3, trace.OpRecv, "c", trace.SyncRelease, 0}, {2, trace.OpSend, "c", trace.SyncAcquire, 0}}
	if second {
		rendezvous = []bev{{3, trace.OpRecv, "c", trace.SyncRelease, 0}, {2, trace.OpSend, "c", trace.SyncAcquire, 0},
			{2, trace.OpSend, "c", trace.SyncRelease, 0}, {3, trace.OpRecv, "c", trace.SyncAcquire, 7}}
	}
	evs := append([]bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1},
		{2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{2, trace.OpGo, "", 0, 4}, {4, trace.OpStart, "", 0, 2},
	}, rendezvous...)
	evs = append(evs, []bev{
		{3, trace.OpEnd, "", 0, 0},
		{4, trace.OpSend, "c", trace.SyncRelease, 0}, {2, trace.OpRecv, "c", trace.SyncAcquire, 11},
		{2, trace.OpRecv, "c", trace.SyncRelease, 0}, {4, trace.OpSend, "c", trace.SyncAcquire, 0},
		{4, trace.OpEnd, "", 0, 0}, {2, trace.OpEnd, "", 0, 0},
	}...)
	if closer {
		gs = append(gs, bgo{1, "TestX", false})
		evs = append(evs, bev{1, trace.OpGo, "", 0, 5}, bev{5, trace.OpStart, "", 0, 1},
			bev{5, trace.OpClose, "c", trace.SyncRelease, 0}, bev{5, trace.OpEnd, "", 0, 0})
	}
	return buildTrace(t, gs, evs)
}

func TestCheckTakenPartner(t *testing.T) {
	tr := takenPartner(t)
	all := func(int32) bool { return true }
	none := func(int32) bool { return false }
	claim := func(w ...int) *Schedule {
		return &Schedule{Kind: Deadlock, Events: []int{6}, Prefix: 6, Witness: w}
	}
	for _, tc := range []struct {
		name string
		tr   *trace.Trace
		free func(int32) bool
		s    *Schedule
		want string // "" means accepted
	}{
		{"g4's send taken by g3, the test's send left", tr, all, claim(11, 7, 8, 14, 10, 15), ""},
		{"the receive's value is used", tr, none, claim(11, 7, 8, 14, 10, 15), "synchronises with 11"},
		{"no static answer", tr, nil, claim(11, 7, 8, 14, 10, 15), "synchronises with 11"},
		{"not in a row", tr, all, claim(11, 7, 8, 10, 14, 15), "synchronises with 11"},
		{"the test's send in the schedule", tr, all, claim(11, 7, 8, 14, 10, 15, 6), "next event after the schedule is not 6"},
		{"half a rendezvous", tr, all, claim(11, 7, 10), "synchronises with 11"},
		{"both arrived second in the run", takenPartnerOf(t, true, false), all, &Schedule{Kind: Deadlock, Events: []int{7}, Prefix: 6, Witness: []int{11, 6, 9, 14, 10, 15}}, ""},
		{"closed before", takenPartnerOf(t, false, true), all, claim(17, 18, 19, 11, 7, 8, 14, 10, 15), "synchronises with"},
		{"g4 left running", tr, all, &Schedule{Kind: Deadlock, Events: []int{6}, Prefix: 6, Witness: []int{11, 7, 8, 10}}, "synchronises with 11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tc.tr.Events)
			k := NewChecker(tc.tr, loc, spans)
			if tc.free != nil {
				k.ValueFree(tc.free)
			}
			wantVerdict(t, k.Check(tc.s), tc.want)
		})
	}
}
