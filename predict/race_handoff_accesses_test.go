// This file tests the runs of locations whose accesses the handoff check
// writes out (race_handoff_accesses.go): run by run, each location's
// accesses are sharedByLocation's, read from the events, and the
// check's verdict is the same in runs of one access as in one run.

package predict

import (
	"context"
	"testing"
)

func TestHandoffChunksSame(t *testing.T) {
	defer func(n int32) { handoffChunkMin = n }(handoffChunkMin)
	runsSeen := 0
	for n, tr := range handoffTraces(t) {
		c := newCTP(tr)
		m := newMemory(c)
		start, byL := sharedByLocation(c, m)
		var verdict [2]bool
		for k, least := range []int32{1 << 20, 1} {
			handoffChunkMin = least
			runs := newHandoffChunks(c, m)
			runs.chunk = min(runs.chunk, least) // runs of one access at k 1
			l := 0
			for runs.nextRun() {
				if runs.l0 != l || runs.l1 <= l {
					t.Fatalf("trace %d: run [%d,%d) after location %d", n, runs.l0, runs.l1, l)
				}
				if k == 1 {
					runsSeen++
				}
				for ; l < runs.l1; l++ {
					got := runs.of(l)
					want := byL[start[l]:start[l+1]]
					if len(got) != len(want) {
						t.Fatalf("trace %d location %d: %d accesses, want %d", n, l, len(got), len(want))
					}
					for j, i := range want {
						e := &c.ev[i]
						w := handoffAccess{g: int32(e.G), p: c.pos[i], mask: wordMask(e.Addr, e.Size), atomic: e.Op.IsAtomic(), write: isWrite(e.Op)}
						if got[j] != w {
							t.Fatalf("trace %d location %d access %d: %+v, want %+v", n, l, j, got[j], w)
						}
					}
				}
			}
			if l != len(m.locs) {
				t.Fatalf("trace %d: runs end at location %d of %d", n, l, len(m.locs))
			}
			held, err := handedOver(context.Background(), c, m)
			if err != nil {
				t.Fatal(err)
			}
			verdict[k] = held
		}
		if verdict[0] != verdict[1] {
			t.Fatalf("trace %d: handed over %v in one run, %v in runs of one access", n, verdict[0], verdict[1])
		}
	}
	if runsSeen == 0 {
		t.Fatal("no run taken: the test checks nothing")
	}
}
