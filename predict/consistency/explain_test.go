// This file tests Explain: its rules contradict, and no smaller subset of
// them does.

package consistency

import (
	"slices"
	"strings"
	"testing"
)

func TestExplainStoreBuffering(t *testing.T) {
	h := mustParse(t, "sb", "P0: w(x,1) r(y,0)\nP1: w(y,1) r(x,0)")
	res, err := Explain(h, SC)
	if err != nil || res.Consistent {
		t.Fatalf("SB under SC: %v %v", res, err)
	}
	var got []string
	for _, r := range res.Violation.Rules {
		got = append(got, r.Text)
	}
	want := []string{
		"program order of P0",
		"program order of P1",
		"P0[1] r(y,0) reads from init y=0",
		"P1[1] r(x,0) reads from init x=0",
		"x is 0 before any write to it",
		"y is 0 before any write to it",
		axiomText[SC][0],
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExplainMinimal checks on every inconsistent litmus history and
// model that the rules contradict and that dropping any one of them
// does not.
func TestExplainMinimal(t *testing.T) {
	for _, tc := range litmus {
		h := mustParse(t, tc.name, tc.text)
		for _, m := range modelOrder {
			res, err := Explain(h, m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Consistent {
				continue
			}
			g := build(h, nil)
			rs := g.rules()
			var ids []int
			for _, r := range res.Violation.Rules {
				ids = append(ids, ruleID(g, r))
			}
			violated := func(active []int) bool {
				if m == SC || m == TSO {
					ok, _ := newSatEnc(newChecker(g), m).solve(active)
					return !ok
				}
				off := make([]bool, rs.size())
				for i := range off {
					off[i] = true
				}
				for _, r := range active {
					if r < rs.size() {
						off[r] = false
					} else {
						return !check(build(h, off), m, nil).Consistent
					}
				}
				return false // without the model's axiom
			}
			if !violated(ids) {
				t.Errorf("%s under %s: the rules do not contradict: %v", tc.name, m, res.Violation.Rules)
			}
			for i := range ids {
				rest := slices.Delete(slices.Clone(ids), i, i+1)
				if violated(rest) {
					t.Errorf("%s under %s: not minimal, %q can go", tc.name, m, res.Violation.Rules[i].Text)
				}
			}
		}
	}
}

// ruleID finds a rule's id.
func ruleID(g *hg, r Rule) int {
	rs := g.rules()
	switch r.Kind {
	case ProgramOrder:
		return rs.po(g.h.byName[r.Proc])
	case ReadValue:
		return rs.rv(int(g.procOff[g.h.byName[r.Op.Proc]]) + r.Op.Index)
	case InitialValue:
		return rs.init(int(g.keyOf[r.Key]))
	}
	for m, texts := range axiomText {
		if i := slices.Index(texts, r.Text); i >= 0 {
			_ = m
			return rs.size() + i
		}
	}
	return -1
}
