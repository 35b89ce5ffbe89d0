// This file tests the checks on litmus histories whose answers are known:
// the classic shapes (store buffering, message passing, IRIW, the
// coherence tests) and the figures of "Gradual Consistency Checking",
// under every model.

package consistency

import (
	"strings"
	"testing"
)

// A litmus history and its answer under each model: a string of one
// letter per model in the order SC TSO CC CCv CM CCM wCCM, y for
// consistent and n for not.
var litmus = []struct {
	name, text, want string
}{
	{"SB", "P0: w(x,1) r(y,0)\nP1: w(y,1) r(x,0)", "nyyyyny"},
	{"SB+forwarding", "P0: w(x,1) r(x,1) r(y,0)\nP1: w(y,1) r(y,1) r(x,0)", "nyyyyny"},
	{"MP", "P0: w(x,1) w(y,1)\nP1: r(y,1) r(x,0)", "nnnnnnn"},
	{"MP-ok", "P0: w(x,1) w(y,1)\nP1: r(y,1) r(x,1)", "yyyyyyy"},
	{"LB", "P0: r(x,1) w(y,1)\nP1: r(y,1) w(x,1)", "nnnnnnn"},
	{"IRIW", "P0: w(x,1)\nP1: w(y,1)\nP2: r(x,1) r(y,0)\nP3: r(y,1) r(x,0)", "nnyyynn"},
	{"WRC", "P0: w(x,1)\nP1: r(x,1) w(y,1)\nP2: r(y,1) r(x,0)", "nnnnnnn"},
	{"CoRR", "P0: w(x,1)\nP1: r(x,1) r(x,0)", "nnnnnnn"},
	{"CoRR2", "P0: w(x,1)\nP1: w(x,2)\nP2: r(x,1) r(x,2)\nP3: r(x,2) r(x,1)", "nnynyn"},
	{"CoWR", "P0: w(x,1) r(x,0)", "nnnnnnn"},
	{"CoWW", "P0: w(x,1) w(x,2)\nP1: r(x,2) r(x,1)", "nnnnnnn"},
	{"CoRW", "P0: r(x,2) w(x,1)\nP1: r(x,1) w(x,2)", "nnnnnnn"},
	{"own-future", "P0: r(x,1) w(x,1)", "nnnnnnn"},
	{"thin-air", "P0: w(x,1)\nP1: r(x,2)", "nnnnnnn"},
	// Figure 1 of the paper.
	{"fig1a", "t0: w(x,1) r(x,2)\nt1: w(x,2) r(x,1)", "nnynynn"},
	{"fig1b", "t0: w(z,1) w(x,1) w(y,1)\nt1: w(x,2) r(z,0) r(y,1) r(x,2)", "nyyynny"},
	{"fig1c", "t0: w(x,1) w(x,2) r(y,1)\nt1: w(y,1) w(y,2) r(y,2) r(x,1)", "nyyyyny"},
	{"fig1d", "t0: w(x,1) r(y,0) w(y,1) r(x,1)\nt1: w(x,2) r(y,0) w(y,2) r(x,2)", "nyyyyyy"},
	// Figure 3: admitted by wCCM and CCM, not by TSO.
	{"fig3", "t0: w(x,1)\nt1: w(y,1)\nt2: r(x,1) r(y,0)\nt3: r(y,1) r(x,0)", "nnyyynn"},
}

var modelOrder = []Model{SC, TSO, CC, CCv, CM, CCM, WCCM}

func mustParse(t testing.TB, name, text string) *History {
	t.Helper()
	h, err := Parse(name, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestLitmus(t *testing.T) {
	for _, tc := range litmus {
		t.Run(tc.name, func(t *testing.T) {
			h := mustParse(t, tc.name, tc.text)
			for i, m := range modelOrder {
				if i >= len(tc.want) {
					break
				}
				res, err := Check(h, m)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want[i] == 'y'
				if res.Consistent != want {
					t.Errorf("%s: consistent=%v, want %v; %v", m, res.Consistent, want, res.Violation)
				}
			}
		})
	}
}
