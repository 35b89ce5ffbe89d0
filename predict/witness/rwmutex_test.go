// This file tests the RWMutex rule of blocking claims (rwmutex.go): a
// recursive RLock waits behind a writer that waits for its outer read
// lock, and only then.

package witness

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestCheckRecursiveRLock: g1 is the harness, g2 the test, g3 its
// goroutine. g3 takes m for writing and lets it go; then g2 read-locks m
// and read-locks it again inside.
//
// Events: 0 go g2, 1 start g2, 2 go g3, 3 start g3, 4 g3 lock m, 5 g3
// unlock m, 6 g2 rlock m, 7 g2 rlock m (recursive), 8 g2 runlock m, 9 g2
// runlock m, 10 g3 end, 11 g2 end.
func TestCheckRecursiveRLock(t *testing.T) {
	tr := buildTrace(t, []bgo{{0, "", false}, {1, "TestX", false}, {2, "TestX", false}}, []bev{
		{1, trace.OpGo, "", 0, 2}, {2, trace.OpStart, "", 0, 1}, {2, trace.OpGo, "", 0, 3}, {3, trace.OpStart, "", 0, 2},
		{3, trace.OpLock, "m", trace.SyncAcquire, 0}, {3, trace.OpUnlock, "m", trace.SyncRelease, 0},
		{2, trace.OpRLock, "m", trace.SyncAcquire, 0}, {2, trace.OpRLock, "m", trace.SyncAcquire, 0},
		{2, trace.OpRUnlock, "m", trace.SyncReleaseMerge, 0}, {2, trace.OpRUnlock, "m", trace.SyncReleaseMerge, 0},
		{3, trace.OpEnd, "", 0, 0}, {2, trace.OpEnd, "", 0, 0},
	})
	claim := func(evs []int, w ...int) *Schedule {
		return &Schedule{Kind: Deadlock, Events: evs, Witness: w}
	}
	for _, tc := range []struct {
		name string
		s    *Schedule
		want string // "" means accepted
	}{
		{"inner RLock behind the waiting writer", claim([]int{7, 4}, 0, 1, 2, 3, 6), ""},
		{"listed the other way round", claim([]int{4, 7}, 0, 1, 2, 3, 6), ""},
		{"no read lock held: the writer does not wait", claim([]int{6, 4}, 0, 1, 2, 3), "no goroutine holds its lock"},
		// A lone acquire is no blocking claim, nor a lock-order cycle.
		{"no writer listed", claim([]int{7}, 0, 1, 2, 3, 6), "two or more blocked acquires"},
		{"the writer has ended", claim([]int{7}, 0, 1, 2, 3, 4, 5, 10, 6), "two or more blocked acquires"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, spans := trace.GroupAccesses(tr.Events)
			err := NewChecker(tr, loc, spans).Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}
