// This file implements where the partner strategy of seer check -explore
// (explore.go) delays a contended operation's winner: GFuzz's message
// reordering (Liu et al., ASPLOS'22, section 4) applied to which partner
// a channel operation or lock meets.
//
// In a worker pool where one worker took every piece of work, the other
// never ran the code a piece runs, and a race between two pieces run by
// different workers never shows. Delaying that worker before its first
// receive only hands every piece to the other; delaying it before a later
// one (its j-th win, j >= 1) lets it keep j pieces and another take the
// next, so both run the code. So the goroutine that won an operation most
// often in the last run is delayed before one of its wins not tried yet
// (a later one first, then its first), and the next contender after it;
// a run never repeats a delay an earlier run took at the same win, so
// each run of the strategy tries a split of the work not yet tried. A
// delay before a goroutine's first win (so that another wins first) is
// kept for goroutines while some other contender has not yet won first in
// any run. Once every delay has been tried, the choice is rng's.

package check

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// partnerSpot is where contest c's winner is delayed in the next run, and
// whether there is such a place.
func (ex *explorer) partnerSpot(c *contested, rng *rand.Rand) (spot, bool) {
	// The contenders that won, most wins first (ties: the first to win).
	var order []uint64
	for _, p := range c.paths {
		if len(c.spots[p]) > 0 {
			order = append(order, p)
		}
	}
	if len(order) == 0 {
		return spot{}, false
	}
	slices.SortStableFunc(order, func(a, b uint64) int { return c.won[b] - c.won[a] })
	for _, p := range order {
		ss := c.spots[p]
		js := make([]int, 0, len(ss))
		for _, j := range rng.Perm(len(ss) - 1) {
			js = append(js, j+1)
		}
		if ex.firstLeft(c, p) {
			js = append(js, 0)
		}
		for _, j := range js {
			k := fmt.Sprintf("%s|%x|%d", c.key, p, j)
			if !ex.tried[k] {
				ex.tried[k] = true
				return ss[j], true
			}
		}
	}
	ss := c.spots[order[0]]
	return ss[rng.IntN(len(ss))], true
}

// firstLeft reports whether a contender of c other than p has not yet
// won c first in any run: delaying p before its first win may let it.
func (ex *explorer) firstLeft(c *contested, p uint64) bool {
	for _, q := range c.paths {
		if q != p && !ex.winners[c.key][q] {
			return true
		}
	}
	return false
}
