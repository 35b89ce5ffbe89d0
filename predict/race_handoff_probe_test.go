// This file tests the handoff check's probe (race_handoff_probe.go).

package predict

import (
	"context"
	"testing"
)

// The probe never answers no where the whole check answers yes: on the
// handoff test traces, handedOver answers the same whether the probe
// reads every event, half of them, or none; and where the probe reads
// every event it decides every trace the check says no to (it finds
// the same first unordered pair the check would, in trace order).
func TestHandoffProbeLikeCheck(t *testing.T) {
	defer func(share, least int) { handoffProbeShare, handoffProbeMin = share, least }(handoffProbeShare, handoffProbeMin)
	held, early := 0, 0
	for n, tr := range handoffTraces(t) {
		c := newCTP(tr)
		m := newMemory(c)
		var got [3]bool
		for k, probe := range []struct{ share, least int }{{1, 0}, {2, 0}, {1, -1 << 30}} {
			handoffProbeShare, handoffProbeMin = probe.share, probe.least
			if probe.least < 0 {
				handoffProbeShare = 1 << 30 // reads none (n is 0)
			}
			ok, err := handedOver(context.Background(), c, m)
			if err != nil {
				t.Fatal(err)
			}
			got[k] = ok
		}
		if got[0] != got[2] || got[1] != got[2] {
			t.Fatalf("trace %d: handed over %v probing every event, %v probing half, %v probing none", n, got[0], got[1], got[2])
		}
		handoffProbeShare, handoffProbeMin = 1, 0
		fails, err := handoffFailsEarly(context.Background(), c, m, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if fails == got[2] {
			t.Fatalf("trace %d: the check says handed over %v, the probe of every event says it fails %v", n, got[2], fails)
		}
		if got[2] {
			held++
		} else {
			early++
		}
	}
	t.Logf("%d traces handed over, %d found not by the probe", held, early)
	if held < 100 || early < 100 {
		t.Fatalf("%d traces handed over, %d not: the test says little", held, early)
	}
}
