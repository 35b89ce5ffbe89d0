// This file implements -explain: a minimal set of rules that cannot all
// hold. The rules are the program order of each process, the value of
// each read (it reads from the write of that value), the initial value of
// each key (0, before every write) and the model's axioms.
//
// For SC and TSO the core comes from gini: the check's clauses are
// guarded by activation literals (sat.go) and the failed assumptions of
// an unsatisfiable solve are a core. For the polynomial criteria the
// checker itself decides any subset of rules exactly (graph.go's rule
// mask: a process without program order is a set of one-operation
// processes, a read without its value reads nothing, a key without its
// initial value has an initial write that precedes nothing). Either way
// the core is then shrunk by deletion, in chunks that halve down to
// single rules (ddmin-style), until removing any one rule makes the
// history consistent. Removing rules only removes constraints, so the
// result is minimal, though not necessarily the smallest.

package consistency

import (
	"context"
	"fmt"
)

// RuleKind classifies rules.
type RuleKind uint8

const (
	ProgramOrder RuleKind = iota // a process runs its operations in order
	ReadValue                    // a read reads from the write of its value
	InitialValue                 // a key holds 0 before every write
	Axiom                        // the model's own requirement
)

func (k RuleKind) String() string {
	return [...]string{"program-order", "read-value", "initial-value", "axiom"}[k]
}

// Rule is one rule of a minimal contradictory set.
type Rule struct {
	Kind RuleKind
	Proc string `json:",omitempty"` // ProgramOrder
	Op   *OpRef `json:",omitempty"` // ReadValue: the read
	Key  string `json:",omitempty"` // InitialValue
	Text string // the rule in words
}

func (r Rule) String() string { return r.Text }

var axiomText = map[Model][]string{
	SC:   {"SC: all operations take effect one at a time, in one order that keeps each process's order, and each read sees the latest write to its key"},
	TSO:  {"TSO coherence: per key, one order of all its operations (po-loc ∪ wr ∪ ws ∪ rw acyclic)", "TSO store buffers: only a write followed by a read may be reordered (ppo ∪ wr_e ∪ ws ∪ rw acyclic)"},
	CC:   {"CC: no read sees a write that its causal past has overwritten, and causality is acyclic"},
	CCv:  {"CCv: CC, and all processes agree on one order of conflicting writes"},
	CM:   {"CM: CC, and each process sees all writes in one order of its own"},
	CCM:  {"CCM: each process sees all writes in one order, all processes agree on it, and reads respect it"},
	WCCM: {"wCCM: the store order derived from TSO's causality admits every read"},
}

// rule describes rule id r of g.
func (g *hg) rule(m Model, r int) Rule {
	rs := g.rules()
	switch {
	case r < rs.P:
		return Rule{Kind: ProgramOrder, Proc: g.h.procs[r].Name, Text: fmt.Sprintf("program order of %s", g.h.procs[r].Name)}
	case r < rs.P+rs.N:
		v := int32(len(g.keys) + r - rs.P)
		ref := g.ref(v)
		rule := Rule{Kind: ReadValue, Op: &ref}
		switch src := g.nodes[v].src; {
		case src == srcNone:
			rule.Text = fmt.Sprintf("%s reads %s=%d (which nothing writes)", ref, ref.Op.Key, ref.Op.Value)
		default:
			rule.Text = fmt.Sprintf("%s reads from %s", ref, g.ref(src))
		}
		return rule
	case r < rs.size():
		k := g.keys[r-rs.P-rs.N]
		return Rule{Kind: InitialValue, Key: k, Text: fmt.Sprintf("%s is 0 before any write to it", k)}
	}
	return Rule{Kind: Axiom, Text: axiomText[m][r-rs.size()]}
}

// Explain is Check, and when the history is not consistent it also fills
// the violation's Rules with a minimal set of contradictory rules.
func Explain(h *History, m Model) (*Result, error) {
	return ExplainContext(context.Background(), h, m, Options{})
}

// ExplainContext is Explain with the solver bounded as in CheckContext.
func ExplainContext(ctx context.Context, h *History, m Model, o Options) (*Result, error) {
	res, err := CheckContext(ctx, h, m, o)
	if err != nil || res.Consistent || res.Undecided {
		return res, err
	}
	b := newBound(ctx, o)
	g := build(h, nil)
	rs := g.rules()
	var core []int
	if m == SC || m == TSO {
		c := newChecker(g)
		c.bound = b
		e := newSatEnc(c, m)
		ok, first := e.solve(nil)
		if ok {
			panic("history: the solver finds consistent what the checker does not")
		}
		if e.undecided {
			// The check decided within the bound, this solve did not:
			// every rule, as it is.
			res.Violation.NotMinimal = true
			for r, l := range e.act {
				if l != 0 {
					first = append(first, r)
				}
			}
		}
		core = minimize(first, func(active []int) bool {
			ok, _ := e.solve(active)
			if e.undecided {
				res.Violation.NotMinimal = true // keep the rule: not proved droppable
				return false
			}
			return !ok
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	} else {
		violated := func(active []int) bool {
			off := make([]bool, rs.size())
			for i := range off {
				off[i] = true
			}
			for _, r := range active {
				off[r] = false
			}
			return !check(build(h, off), m, nil).Consistent
		}
		all := make([]int, 0, rs.size())
		for r := range rs.size() {
			if r >= rs.P && r < rs.P+rs.N && g.nodes[len(g.keys)+r-rs.P].write {
				continue
			}
			all = append(all, r)
		}
		if guess := mentioned(g, res.Violation); violated(guess) {
			all = guess
		}
		core = minimize(all, violated)
		core = append(core, rs.size()) // the model's axiom
	}
	for _, r := range core {
		res.Violation.Rules = append(res.Violation.Rules, g.rule(m, r))
	}
	return res, nil
}

// mentioned returns the rules that the violation's cycle touches: the
// program order of its processes, the values of its reads and the
// initial values of its keys, a first guess at a core.
func mentioned(g *hg, v *Violation) []int {
	rs := g.rules()
	seen := map[int]bool{}
	var out []int
	add := func(r int) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, s := range v.Cycle {
		for _, ref := range []OpRef{s.From, s.To} {
			if ref.Initial() {
				add(rs.init(int(g.keyOf[ref.Op.Key])))
				continue
			}
			p := g.h.byName[ref.Proc]
			add(rs.po(p))
			if ref.Op.Kind == Read {
				add(rs.rv(int(g.procOff[p]) + ref.Index))
				if ref.Op.Value == 0 {
					add(rs.init(int(g.keyOf[ref.Op.Key])))
				}
			}
		}
	}
	return out
}

// minimize shrinks a violating set of rules by deletion until removing
// any one of them lets violated answer false.
func minimize(set []int, violated func([]int) bool) []int {
	set = append([]int(nil), set...)
	for chunk := max(len(set)/2, 1); ; chunk /= 2 {
		for i := 0; i < len(set); {
			j := min(i+chunk, len(set))
			rest := append(append([]int(nil), set[:i]...), set[j:]...)
			if violated(rest) {
				set = rest
			} else {
				i = j
			}
		}
		if chunk == 1 {
			return set
		}
	}
}
