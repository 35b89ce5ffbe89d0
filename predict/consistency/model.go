// This file implements the entry points: the models, Check, and the
// result and violation types that say what is wrong in the user's terms.

package consistency

import (
	"context"
	"fmt"
	"strings"
)

// Model is a consistency criterion.
type Model uint8

const (
	// SC is sequential consistency: one order of all operations that
	// keeps each process's order and in which each read sees the latest
	// write to its key.
	SC Model = iota
	// TSO is total store order (x86): writes wait in a per-process FIFO
	// buffer before reaching memory; a process reads its own buffered
	// writes first.
	TSO
	// CC is weak causal consistency: no read sees a write that its own
	// causal past has already overwritten.
	CC
	// CCv is causal convergence: CC, and all processes agree on one
	// order of conflicting writes.
	CCv
	// CM is causal memory: CC, and each process sees the writes in one
	// order that it keeps for its whole run.
	CM
	// CCM is convergent causal memory (the paper's §3.2): causal memory
	// in which all processes agree on the order of writes.
	CCM
	// WCCM is weak convergent causal memory (§4.1), the polynomial
	// criterion between the weak models and TSO.
	WCCM
	numModels
)

var modelNames = [...]string{"SC", "TSO", "CC", "CCv", "CM", "CCM", "wCCM"}

func (m Model) String() string {
	if m < numModels {
		return modelNames[m]
	}
	return fmt.Sprintf("Model(%d)", m)
}

// Models lists every model, strongest first.
func Models() []Model { return []Model{SC, TSO, CCM, WCCM, CM, CCv, CC} }

// ParseModel parses a model name, case-insensitively.
func ParseModel(s string) (Model, bool) {
	for i, n := range modelNames {
		if strings.EqualFold(s, n) {
			return Model(i), true
		}
	}
	return 0, false
}

// Result is the outcome of checking a history under a model.
type Result struct {
	Model      Model
	Consistent bool
	// Violation says why the history is not consistent (nil when it is).
	Violation *Violation `json:",omitempty"`
	// Unordered is, for SC and TSO, the number of pairs of writes to one
	// key that the partial store order (pww, wpww) left for the solver,
	// and Pairs the number of such pairs in all.
	Unordered, Pairs int `json:",omitempty"`
	// Undecided is set when the search and then the SAT solver ran out
	// of Options.Timeout before deciding SC or TSO: Consistent is false
	// and Violation nil, as the history was found neither consistent nor
	// inconsistent.
	Undecided bool `json:",omitempty"`
	// Witness is, for SC and TSO when Consistent, an execution that
	// explains every read: SC's interleaving of all operations, or TSO's
	// memory order (each read sees its process's last earlier write to
	// the key while that write is not yet in it, else the last write in
	// it). VerifyWitness re-checked it. It is left out of JSON, as it
	// holds every operation.
	Witness []OpRef `json:"-"`
}

// Violation explains why a history is not consistent.
type Violation struct {
	// Model is the criterion found violated: a weaker one than the model
	// asked for when the check rejected early (a history that is not CC
	// is not SC either).
	Model Model
	// Msg is a one-line summary.
	Msg string
	// Cycle, when not empty, is a cycle of orderings that every
	// execution allowed by Model would need.
	Cycle []Step `json:",omitempty"`
	// Rules is, when asked for (Explain), a minimal set of rules that
	// cannot all hold: removing any one of them makes the history
	// consistent.
	Rules []Rule `json:",omitempty"`
	// NotMinimal is set when Rules still contradict but may not be
	// minimal: deciding whether one of them can be dropped ran out of
	// Options.Timeout, so it was kept.
	NotMinimal bool `json:",omitempty"`
}

// Step is one edge of a cycle: From must come before To, because of Rel.
type Step struct {
	From, To OpRef
	// Rel is the relation: "po" (program order; "ppo" and "po-loc" for
	// TSO's), "wr" (To reads From), "rw" (the read From must precede the
	// overwriting To), "hb", "cf", "pww" (orders the paper's criteria
	// derive), "ww" (the store order the solver chose).
	Rel string
	Why string `json:",omitempty"`
}

func (s Step) String() string {
	t := fmt.Sprintf("%s -%s-> %s", s.From, s.Rel, s.To)
	if s.Why != "" {
		t += " (" + s.Why + ")"
	}
	return t
}

func (v *Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", v.Model, v.Msg)
	for _, s := range v.Cycle {
		fmt.Fprintf(&b, "\n\t%s", s)
	}
	return b.String()
}

// Check decides whether h is consistent under m. It returns an error only
// when h is not a differentiated history (Validate).
//
// The weak criteria are decided in polynomial time by the paper's
// closures; SC first checks CC, CCv, CM and CCM and TSO first checks
// wCCM, so that most violations are rejected early, and then complete the
// partial store order with a SAT solver.
//
// The solver's time is bounded by DefaultTimeout; see CheckContext.
func Check(h *History, m Model) (*Result, error) {
	return CheckContext(context.Background(), h, m, Options{})
}

// CheckContext is Check with the solver bounded by o.Timeout and by ctx:
// a check that runs out of time is Result.Undecided; one whose ctx is
// done returns ctx's error.
func CheckContext(ctx context.Context, h *History, m Model, o Options) (*Result, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if m >= numModels {
		return nil, fmt.Errorf("unknown model %d", m)
	}
	b := newBound(ctx, o)
	res := check(build(h, nil), m, b)
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// check runs model m's algorithm on g, the solver bounded by b (nil:
// unbounded).
func check(g *hg, m Model, b *bound) *Result {
	res := &Result{Model: m}
	c := newChecker(g)
	c.bound = b
	var v *Violation
	switch m {
	case CC:
		v = c.cc()
	case CCv:
		v = c.gradual(c.cc, c.ccv)
	case CM:
		v = c.gradual(c.cc, c.cm)
	case CCM:
		v = c.gradual(c.cc, c.ccv, c.cm, c.ccm)
	case WCCM:
		v = c.gradual(c.thinAir, c.wccm)
	case SC:
		v = c.gradual(c.cc, c.ccv, c.cm, c.ccm)
		if v == nil {
			v = c.solve(SC, res)
		}
	case TSO:
		v = c.gradual(c.thinAir, c.wccm)
		if v == nil {
			v = c.solve(TSO, res)
		}
	}
	res.Violation = v
	res.Consistent = v == nil && !res.Undecided
	return res
}

// gradual runs checks from the weakest and stops at the first violation.
func (c *checker) gradual(checks ...func() *Violation) *Violation {
	for _, f := range checks {
		if v := f(); v != nil {
			return v
		}
	}
	return nil
}
