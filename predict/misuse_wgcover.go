// This file implements the misuse layer's covering filter for
// negative-waitgroup (misuse.go): a proof, from must-happen-before alone,
// that no schedule takes a WaitGroup's counter below zero, so that none
// of its Dones needs a closure.
//
// The filter pairs every Done of the group with a unit of an Add's delta
// that must happen before it (every schedule that runs the Done's
// goroutine up to the Done has run the Add: misuse.mustBefore), no unit
// twice. Given such a pairing, take any schedule after which a Done d is
// its goroutine's next step, and let D be the Dones it ran. Each Done of
// D, and d, has its paired unit's Add in the schedule, units distinct, so
// the counter before d is at least |D| + 1 - |D| = 1 (Adds here have
// positive deltas: misuse.known refuses a group with an Add(-n)), and d
// leaves it at zero or above. This is Hall's condition met by a witness
// matching; it covers the idiom `wg.Add(1); go func() { defer wg.Done()
// }()`, where each Done's own go statement comes after its Add.
//
// misuse.waitGroup's per-Done filter (the Adds that must precede d
// against all Dones that need not follow it) cannot see that: on the
// bench's stress ring (1,000 workers, each Add before its go statement)
// a worker's Done must follow only about a hundred Adds and need not
// follow 999 Dones, so four Dones per site pattern were tried, each a
// closure on the causal cone and a lowering that adds Dones one at a
// time, every one bringing its own Add, and none proved.
//
// The pairing is found greedily, and a failure to find one only means
// the per-Done filter and the closures run as before. The Adds a Done
// must follow are, per goroutine of Adds, a prefix of that goroutine's
// Adds (must-happen-before is closed under program order), so a Done's
// choice within one goroutine is its first unused unit; Dones go in
// ascending order of the units they know, which is exact when one
// goroutine makes the Adds (the prefixes are nested), and for several it
// takes from the goroutine whose known prefix is shortest first.

package predict

import (
	"cmp"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// wgCover lets misuse.waitGroup use the filter; false for the test that
// compares the findings with and without it.
var wgCover = true

// maxCoverQueries bounds the must-happen-before queries of one group's
// covering filter (Dones times goroutines that Add); past it the filter
// is not tried.
const maxCoverQueries = 1 << 20

// donesCovered reports whether every Done of the WaitGroup whose events
// are evs can be paired with its own unit of an Add that must happen
// before it, which proves that no schedule takes the counter below zero.
// It reads the deltas that misuse.known left in m.wgd.
func (m *misuse) donesCovered(evs []int32) bool {
	c := m.e.c
	// The Adds' goroutines, each with its Adds' positions and the units
	// (deltas) of its first j Adds summed in units[j].
	type adder struct {
		g     int32
		pos   []int32
		units []int64
		used  int64
	}
	var adders []*adder
	byG := map[int32]*adder{}
	var dones []int32
	for j, i := range evs {
		switch c.ev[i].Op {
		case trace.OpWGAdd:
			g := int32(c.ev[i].G)
			a := byG[g]
			if a == nil {
				a = &adder{g: g, units: []int64{0}}
				byG[g] = a
				adders = append(adders, a)
			}
			a.pos = append(a.pos, c.pos[i])
			a.units = append(a.units, a.units[len(a.units)-1]+max(m.wgd[j], 0))
		case trace.OpWGDone:
			if m.wgd[j] != -1 {
				return false // a Done is one unit (witness.DoneDelta)
			}
			dones = append(dones, i)
		}
	}
	if len(dones) == 0 {
		return true
	}
	if len(adders) == 0 || len(adders)*len(dones) > maxCoverQueries {
		return false
	}
	// known[k*len(adders)+a]: the units of adder a that Done k must follow.
	known := make([]int64, len(dones)*len(adders))
	total := make([]int64, len(dones))
	for k, d := range dones {
		g, p := int32(c.ev[d].G), c.pos[d]-1
		for a, ad := range adders {
			n, _ := slices.BinarySearch(ad.pos, m.e.mhb.knows(g, p, ad.g)+1)
			known[k*len(adders)+a] = ad.units[n]
			total[k] += ad.units[n]
		}
	}
	order := make([]int, len(dones))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(total[x], total[y]) })
	for _, k := range order {
		best := -1
		for a, ad := range adders {
			if n := known[k*len(adders)+a]; ad.used < n && (best < 0 || n < known[k*len(adders)+best]) {
				best = a
			}
		}
		if best < 0 {
			return false
		}
		adders[best].used++
	}
	return true
}
