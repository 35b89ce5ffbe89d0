// This file tests candidates.go.

package predict

import (
	"strings"
	"testing"
)

// TestAtomicityPairsPerVariable: a write of a whole struct joins its fields
// into one location, but the access pairs of the atomicity patterns are
// consecutive accesses to one variable. Here the transaction reads bal,
// then mu (as Lock's compare-and-swap does), then writes bal; the pair is
// (read bal, write bal), and the remote write of bal falls between.
func TestAtomicityPairsPerVariable(t *testing.T) {
	tr := parseTrace(t, `
T0|w(mu)|1
T0|w(bal)|2
T0|fork(T1)|3
T0|fork(T2)|4
T1|begin|10
T1|r(bal)|11
T1|r(mu)|12
T1|w(bal)|13
T1|end|14
T2|w(bal)|20
`)
	// The first write becomes the struct's: mu and bal are adjacent.
	w := &tr.Events[0]
	if b := tr.Events[1].Addr; b != w.Addr+8 {
		t.Fatalf("bal at %#x, mu at %#x: want adjacent", b, w.Addr)
	}
	w.Size = 16
	res := analyze(t, tr, Options{NoRaces: true})
	if got := describe(tr, res.Findings); !strings.Contains(got, "atomicity 11-20-13") {
		t.Errorf("want the atomicity violation 11-20-13, got %q", got)
	}
}
