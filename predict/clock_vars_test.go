// Tests of the numbering of a pass's synchronisation addresses
// (clock_vars.go) and of the set-up that scans by it (deadAfter,
// idleMerges): the same marks as scans keyed by the address itself.

package predict

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// deadAfterByAddr and idleMergesByAddr are deadAfter's and idleMerges's
// scans keyed by address in maps, as they were before the numbering.
func deadAfterByAddr(c *ctp, mode clockMode) bitset {
	vars := newBitset(len(c.ev))
	last := make(map[uint64]int32)
	for i := range c.ev {
		if a, ok := c.varOf(i, &mode); ok {
			last[a] = int32(i)
		}
	}
	for _, i := range last {
		vars.set(i)
	}
	return vars
}

func idleMergesByAddr(c *ctp, mode clockMode) bitset {
	idle := newBitset(len(c.ev))
	ahead := make(map[uint64]bool)
	for i := len(c.ev) - 1; i >= 0; i-- {
		switch c.passKind(i, &mode) {
		case trace.SyncAcquire, trace.SyncReleaseAcquire:
			ahead[c.syncAddr(i)] = true
		case trace.SyncRelease:
			ahead[c.syncAddr(i)] = false
		case trace.SyncReleaseMerge:
			if !ahead[c.syncAddr(i)] {
				idle.set(int32(i))
			}
		}
		if c.overAtomic.has(int32(i)) {
			ahead[atomicVar(c.ev[i].Addr)] = false
		}
	}
	return idle
}

func TestPassVarsNumbering(t *testing.T) {
	traces := randomTraces(17, 150, func(r *rand.Rand, i int) genParams {
		p := syncParams(r)
		p.goroutines += r.Intn(8)
		return p
	}, true)
	modes := []clockMode{{}, {locks: true}, {locks: true, serial: true, rf: true, want: map[int32][]int32{}}}
	merges := 0
	for ti, tr := range traces {
		c := newCTP(tr)
		for mi, mode := range modes {
			pv := numberVars(c, &mode)
			// One number an address, a different one each; with locks,
			// in the order of first use (without, a lock's number is
			// left unused).
			num := make(map[uint64]int32)
			addr := make(map[int32]uint64)  // by number
			given := make(map[uint64]int32) // by address
			each := 0
			pv.each(false, func(i int, r int32) {
				if _, ok := c.varOf(i, &mode); !ok {
					t.Fatalf("trace %d mode %d event %d: scanned, uses no address", ti, mi, i)
				}
				if got := pv.at(r); got != pv.of(i) {
					t.Fatalf("trace %d mode %d event %d: rank %d's number %d, the event's %d", ti, mi, i, r, got, pv.of(i))
				}
				each++
			})
			uses := 0
			for i := range c.ev {
				a, ok := c.varOf(i, &mode)
				if got := c.vars.at(int32(i)) != 0 && pv.uses(i); got != ok {
					t.Fatalf("trace %d mode %d event %d: numbered %v, uses an address %v", ti, mi, i, got, ok)
				}
				if !ok {
					continue
				}
				uses++
				k, seen := num[a]
				if !seen {
					k = int32(len(num))
					num[a] = k
				}
				got := pv.of(i)
				if mode.locks && got != k {
					t.Fatalf("trace %d mode %d event %d: number %d, want %d", ti, mi, i, got, k)
				}
				if b, ok := addr[got]; got < 0 || int(got) >= pv.n || ok && b != a {
					t.Fatalf("trace %d mode %d event %d: number %d of %d, shared by %#x and %#x", ti, mi, i, got, pv.n, a, b)
				}
				addr[got] = a
				if n, ok := given[a]; ok && n != got {
					t.Fatalf("trace %d mode %d event %d: address %#x numbered %d and %d", ti, mi, i, a, n, got)
				}
				given[a] = got
			}
			if each != uses {
				t.Fatalf("trace %d mode %d: each scans %d events, %d use an address", ti, mi, each, uses)
			}
			if mode.locks && pv.n != len(num) || pv.n < len(num) {
				t.Fatalf("trace %d mode %d: %d addresses, want %d", ti, mi, pv.n, len(num))
			}
			vars, _ := deadAfter(c, &pv)
			if want := deadAfterByAddr(c, mode); !slices.Equal(vars, want) {
				t.Fatalf("trace %d mode %d: deadAfter's vars differ from the scan by address", ti, mi)
			}
			if mode.want != nil {
				idle, want := idleMerges(c, mode, &pv), idleMergesByAddr(c, mode)
				if !slices.Equal(idle, want) {
					t.Fatalf("trace %d mode %d: idleMerges differ from the scan by address", ti, mi)
				}
				merges += idle.count()
			}
		}
	}
	if merges == 0 {
		t.Fatal("no idle release-merge in any trace: the test checks nothing of idleMerges")
	}
}

// TestSHBKnowsMemo: an access's knows, which remembers its last answer,
// answers each goroutine as its clock does, in any order of questions.
func TestSHBKnowsMemo(t *testing.T) {
	cur := vclock{delta: []centry{{g: 0, v: 4}, {g: 2, v: 7}, {g: 5, v: 1}}}
	want := map[int32]int32{0: 4, 1: 0, 2: 7, 3: 0, 5: 1}
	x := &shbAccess{g: 3, cur: cur}
	for _, h := range []int32{2, 2, 0, 2, 1, 1, 5, 0, 0, 3, 2} {
		if got := x.knows(h); got != want[h] {
			t.Fatalf("knows(%d) = %d, want %d", h, got, want[h])
		}
	}
}
