// This file tests VerifyWitness on hand-written executions: it must
// accept the executions the models allow and name what is wrong with the
// others.

package consistency

import (
	"strings"
	"testing"
)

func TestVerifyWitness(t *testing.T) {
	sb := "P0: w(x,1) r(y,0)\nP1: w(y,1) r(x,0)"
	mp := "P0: w(x,1) w(y,1)\nP1: r(y,1) r(x,1)"
	for _, tc := range []struct {
		name, history string
		m             Model
		order         string // "P0.0 P1.1 ...": process and index
		err           string // "" when valid, else a part of the error
	}{
		{"mp SC", mp, SC, "P0.0 P0.1 P1.0 P1.1", ""},
		{"mp SC too early", mp, SC, "P0.0 P1.0 P0.1 P1.1", "P1[0] r(y,1) reads 1, but y=0 there"},
		{"sb SC", sb, SC, "P0.0 P0.1 P1.0 P1.1", "P1[1] r(x,0) reads 0, but x=1 there"},
		{"sb TSO reads pass writes", sb, TSO, "P0.1 P1.1 P0.0 P1.0", ""},
		{"sb SC reads pass writes", sb, SC, "P0.1 P1.1 P0.0 P1.0", "before P0[0]"},
		{"TSO keeps read order", "P0: r(x,0) r(y,0)", TSO, "P0.1 P0.0", "before the read P0[0]"},
		{"TSO keeps write order", "P0: w(x,1) w(y,1)", TSO, "P0.1 P0.0", "before P0[0]"},
		{"TSO forwarding", "P0: w(x,1) r(x,1)\nP1: r(x,0)", TSO, "P0.1 P1.0 P0.0", ""},
		{"TSO forwarding is not memory", "P0: w(x,1) r(x,1)\nP1: r(x,0)", SC, "P0.1 P1.0 P0.0", "before P0[0]"},
		{"TSO no forwarding once flushed", "P0: w(x,1) r(x,1)\nP1: w(x,2)", TSO, "P0.0 P1.0 P0.1", "reads 1, but x=2 there"},
		{"missing", mp, SC, "P0.0 P0.1 P1.0", "P1[1] is missing"},
		{"twice", mp, SC, "P0.0 P0.0 P0.1 P1.0 P1.1", "twice"},
		{"unknown process", mp, SC, "P2.0", "not an operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := mustParse(t, tc.name, tc.history)
			var order []OpRef
			byName := map[string]*Process{}
			for _, p := range h.Processes() {
				byName[p.Name] = p
			}
			for _, f := range strings.Fields(tc.order) {
				name, idx, _ := strings.Cut(f, ".")
				i := int(idx[0] - '0')
				ref := OpRef{Proc: name, Index: i}
				if p := byName[name]; p != nil {
					ref.Op = p.Ops[i]
				}
				order = append(order, ref)
			}
			err := VerifyWitness(h, tc.m, order)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.err != "" && err == nil:
				t.Fatalf("accepted, want an error with %q", tc.err)
			case tc.err != "" && !strings.Contains(err.Error(), tc.err):
				t.Fatalf("error %q, want one with %q", err, tc.err)
			}
		})
	}
}
