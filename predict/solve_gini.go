// This file implements the small typed facade over the gini SAT solver
// (github.com/go-air/gini) that the witness encoding uses: fresh
// variables, clauses, and a solve with a time budget and cancellation that
// answers with a result enum rather than gini's ±1.

package predict

import (
	"context"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// satResult is the outcome of a solve.
type satResult int

const (
	satUnknown satResult = iota // out of time, or cancelled
	satYes                      // satisfiable: a model is available
	satNo                       // unsatisfiable
)

func (r satResult) String() string {
	return [...]string{"unknown", "sat", "unsat"}[r]
}

// lit is a solver literal.
type lit = z.Lit

// solver wraps one gini instance.
type solver struct {
	g *gini.Gini
}

func newSolver(vars, clauses int) *solver {
	return &solver{g: gini.NewVc(vars, clauses)}
}

// fresh returns a new variable's positive literal.
func (s *solver) fresh() lit { return s.g.Lit() }

// clause adds the disjunction of ls.
func (s *solver) clause(ls ...lit) {
	for _, l := range ls {
		s.g.Add(l)
	}
	s.g.Add(0)
}

// solve runs the solver until it answers, the budget runs out or ctx is
// done, polling in short slices so that cancellation is prompt.
func (s *solver) solve(ctx context.Context, budget time.Duration) satResult {
	deadline := time.Now().Add(budget)
	for {
		if ctx.Err() != nil {
			return satUnknown
		}
		slice := time.Until(deadline)
		if slice <= 0 {
			return satUnknown
		}
		if slice > 20*time.Millisecond {
			slice = 20 * time.Millisecond
		}
		switch s.g.Try(slice) {
		case 1:
			return satYes
		case -1:
			return satNo
		}
	}
}

// value returns l's value in the last model.
func (s *solver) value(l lit) bool { return s.g.Value(l) }
