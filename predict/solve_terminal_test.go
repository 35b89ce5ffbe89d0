// This file tests solve_terminal.go.

package predict

import (
	"fmt"
	"strings"
	"testing"
)

// TestTerminalSectionDoesNotPinBarriers: T1 ends holding l; T0 joins it,
// synchronises 200 times, then starts two goroutines that race. If the
// section pinned T1's barrier before its acquire, the join would pull T0's
// barrier back before all 200 events and the window would outgrow
// MaxWindow; a terminal section lets the barrier stay after them.
func TestTerminalSectionDoesNotPinBarriers(t *testing.T) {
	var b strings.Builder
	b.WriteString("T0|fork(T1)|1\nT1|acq(l)|2\nT1|w(y)|3\nT0|join(T1)|4\n")
	for k := 0; k < 200; k++ {
		fmt.Fprintf(&b, "T0|sig(s%d)|%d\n", k, 10+k)
	}
	b.WriteString("T0|fork(T2)|300\nT0|fork(T3)|301\nT2|w(x)|310\nT3|w(x)|320\n")
	tr := parseTrace(t, b.String())
	res := analyze(t, tr, Options{MaxWindow: 50})
	if got := describe(tr, res.Findings); !strings.Contains(got, "race 310-320") {
		t.Errorf("want the race 310-320, got %q (%+v)", got, res.Stats)
	}
}
