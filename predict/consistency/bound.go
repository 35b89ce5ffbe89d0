// This file implements the time bound on the SAT solving of SC and TSO
// (issue 17): checking them is NP-complete, and one hard history must not
// stall a test or the CLI. Each solve (satEnc.solve: the lazy loop that
// completes a store order, under a set of rules) gets Options.Timeout and
// stops early when the context is done; a check whose solve ran out is
// Undecided, never reported as a violation nor as consistent.

package consistency

import (
	"context"
	"time"

	"github.com/go-air/gini"
)

// DefaultTimeout bounds each solve when Options.Timeout is zero.
const DefaultTimeout = time.Minute

// Options bound a check.
type Options struct {
	// Timeout bounds each search and each SAT solve of an SC or TSO
	// check: the search for an execution (schedule.go) and, when it
	// gives up, the solve that completes the partial store order, and
	// with Explain each solve that decides whether a rule can be
	// dropped. Zero means DefaultTimeout; a
	// negative Timeout means no bound. A check that runs out is
	// Result.Undecided; an explanation whose deletion step runs out keeps
	// the rule (Violation.NotMinimal).
	Timeout time.Duration
}

// bound is one check's solving budget.
type bound struct {
	ctx     context.Context
	timeout time.Duration // negative: none
}

func newBound(ctx context.Context, o Options) *bound {
	if ctx == nil {
		ctx = context.Background()
	}
	b := &bound{ctx: ctx, timeout: o.Timeout}
	if b.timeout == 0 {
		b.timeout = DefaultTimeout
	}
	return b
}

// deadline returns the end of a solve starting now (zero: none).
func (b *bound) deadline() time.Time {
	if b == nil || b.timeout < 0 {
		return time.Time{}
	}
	return time.Now().Add(b.timeout)
}

// solveSlice is how long one attempt runs before the context is looked
// at again.
const solveSlice = 20 * time.Millisecond

// try solves s until deadline (zero: none) or until b's context is done,
// in slices, calling assume before each attempt (gini forgets
// assumptions after every attempt; learnt clauses stay). It returns 1
// (satisfiable), -1 (unsatisfiable) or 0 (out of time, or cancelled).
func (b *bound) try(s *gini.Gini, deadline time.Time, assume func()) int {
	if b == nil {
		assume()
		return s.Solve()
	}
	for {
		if b.ctx.Err() != nil {
			return 0
		}
		slice := solveSlice
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return 0
			}
			slice = min(slice, left)
		}
		assume()
		if r := s.Try(slice); r != 0 {
			return r
		}
	}
}
