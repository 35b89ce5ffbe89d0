// This file tests the first phase's event cap (prepass_cap.go): the cost
// of each event by what it is, and the most events within a budget.

package predict

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

func TestEventsWithin(t *testing.T) {
	const ev, sync, g = prePassEventBytes, prePassSyncBytes, prePassGoroutineBytes
	plain := func(gid trace.GoID) trace.Event { return trace.Event{G: gid, Op: trace.OpWrite} }
	lock := func(gid trace.GoID) trace.Event {
		return trace.Event{G: gid, Op: trace.OpLock, Sync: trace.SyncAcquire}
	}
	ten := func(f func(trace.GoID) trace.Event, gs ...trace.GoID) []trace.Event {
		var out []trace.Event
		for i := range 10 {
			out = append(out, f(gs[i%len(gs)]))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		events []trace.Event
		budget int64
		want   int
	}{
		{"empty", nil, 0, 0},
		{"none within", ten(plain, 1), g + ev - 1, 0},
		{"the first", ten(plain, 1), g + ev, 1},
		{"plain, to the byte", ten(plain, 1), g + 4*ev, 4},
		{"plain, a byte short", ten(plain, 1), g + 4*ev - 1, 3},
		{"all", ten(plain, 1), g + 10*ev, 10},
		{"more than all", ten(plain, 1), 1 << 40, 10},
		{"sync costs more", ten(lock, 1), g + 4*(ev+sync), 4},
		{"sync, a byte short", ten(lock, 1), g + 4*(ev+sync) - 1, 3},
		{"a goroutine once", ten(plain, 1, 2), 2*g + 4*ev, 4},
		{"its second goroutine not within", ten(plain, 1, 2), 2*g + ev - 1, 1},
		{"goroutines by id, far apart", ten(plain, 7, 1000, 7), 2*g + 3*ev, 3},
		{"four goroutines", ten(plain, 1, 2, 3, 4), 4*g + 10*ev, 10},
	} {
		if got := eventsWithin(tc.events, tc.budget); got != tc.want {
			t.Errorf("%s: %d events within %d bytes, want %d", tc.name, got, tc.budget, tc.want)
		}
	}
}

func TestPrePassShare(t *testing.T) {
	for _, tc := range []struct{ mem, want int64 }{
		{1 << 30, 13 << 26},
		{384 << 20, 312 << 20},
		{16, 13},
	} {
		if got := PrePassShare(tc.mem); got != tc.want {
			t.Errorf("PrePassShare(%d) = %d, want %d", tc.mem, got, tc.want)
		}
	}
}
