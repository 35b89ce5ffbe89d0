// This file tests the handoff check's lists of one entry a goroutine,
// scanned while few and indexed once many: pendingReleases
// (race_handoff_pending.go) and latestAccesses (race_handoff.go), each
// against a scan of a slice; and the check on a trace where more
// goroutines merge into one address than a scan keeps.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// Random overwrites and merges, by few goroutines (the scan) and by many
// (the index, dropped and made again across overwrites), leave the
// entries a scan of a slice leaves, in the same order.
func TestPendingReleasesLikeScan(t *testing.T) {
	for _, tc := range []struct{ ng, ops, overwriteOneIn int }{
		{3, 200, 5}, {latestScanUpTo + 1, 2000, 400}, {300, 20000, 3000}, {300, 20000, 0},
	} {
		for seed := range int64(4) {
			name := fmt.Sprintf("ng %d ops %d overwrite 1/%d seed %d", tc.ng, tc.ops, tc.overwriteOneIn, seed)
			rng := rand.New(rand.NewSource(seed))
			var pr pendingReleases
			var ref []centry
			for p := range int32(tc.ops) {
				g := int32(rng.Intn(tc.ng))
				if tc.overwriteOneIn > 0 && rng.Intn(tc.overwriteOneIn) == 0 {
					pr.overwrite(g, p)
					ref = append(ref[:0], centry{g, p})
				} else {
					pr.merge(g, p)
					if at := slices.IndexFunc(ref, func(r centry) bool { return r.g == g }); at >= 0 {
						ref[at].v = p
					} else {
						ref = append(ref, centry{g, p})
					}
				}
				if !slices.Equal(pr.ents, ref) {
					t.Fatalf("%s: after %d ops %v, the scan %v", name, p+1, pr.ents, ref)
				}
			}
		}
	}
}

// With more goroutines merging into one address than a scan keeps, each
// merging twice, the wait knows each goroutine's latest merge: an access
// between a goroutine's two merges is handed over, one after its last is
// not.
func TestHandoffManyMerges(t *testing.T) {
	const ng = 3 * latestScanUpTo
	for _, late := range []bool{false, true} {
		var lines []string
		add := func(g int, op, arg string) {
			lines = append(lines, fmt.Sprintf("T%d|%s(%s)|%d", g, op, arg, len(lines)+1))
		}
		for g := 2; g <= ng+1; g++ {
			add(1, "fork", fmt.Sprintf("T%d", g))
		}
		for range 2 {
			for g := 2; g <= ng+1; g++ {
				// The writes of round 1 come after the goroutine's
				// first merge: only its second orders them.
				add(g, "w", fmt.Sprintf("x%d", g))
				add(g, "merge", "S")
			}
		}
		if late {
			add(ng/2, "w", fmt.Sprintf("x%d", ng/2))
		}
		add(1, "wait", "S")
		for g := 2; g <= ng+1; g++ {
			add(1, "r", fmt.Sprintf("x%d", g))
		}
		c := newCTP(parseTrace(t, strings.Join(lines, "\n")+"\n"))
		ok, err := handedOver(context.Background(), c, newMemory(c))
		if err != nil {
			t.Fatal(err)
		}
		if ok == late {
			t.Errorf("a write after the last merge %v: handed over %v", late, ok)
		}
	}
}

// latestAccesses, reset between locations of few and many accesses (its
// index kept, cleared or dropped), holds what a scan of a slice holds for
// each location, in the same order.
func TestLatestAccessesLikeScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var ls latestAccesses
	for loc := range 400 {
		// Sizes around the scan's bound and far past it, large ones
		// followed by small ones (the index dropped) and by ones of
		// about their size (kept).
		ng := []int{2, latestScanUpTo, latestScanUpTo + 3, 200, 40, 1000, 30}[rng.Intn(7)]
		ls.reset()
		var ref []lastAccess
		for p := range int32(3 * ng) {
			x := lastAccess{g: int32(rng.Intn(ng)), p: p, mask: uint32(1 + rng.Intn(2)), atomic: rng.Intn(4) == 0}
			ls.put(x)
			if at := slices.IndexFunc(ref, func(y lastAccess) bool {
				return y.g == x.g && y.mask == x.mask && y.atomic == x.atomic
			}); at >= 0 {
				ref[at].p = x.p
			} else {
				ref = append(ref, x)
			}
		}
		if !slices.Equal(ls.ents, ref) {
			t.Fatalf("location %d of %d goroutines: %v, the scan %v", loc, ng, ls.ents, ref)
		}
	}
}
