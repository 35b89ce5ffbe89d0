// This file tests the misuse layer's lowering budget (misuse.go,
// misuseWork): a WaitGroup whose tasks go through a
// locked queue (a pool's) makes every Done's lowering add the group's
// Dones one closure at a time, each bringing its own Add, and the budget
// stops it and says so; a lowering within the budget still proves.

package predict

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
)

// wgQueueText returns a run in gotext's notation of a pool: g1 starts
// workers goroutines, then for each of n tasks Adds one to wg and puts the
// task in a queue under mu; worker i%workers takes it under mu and calls
// Done, worker w at one of sites lines (w%sites). No Done must follow an Add but those before the go statements
// (the queue is a lock's, which must-happen-before leaves out), so the
// filters pass the Dones, and each Done's causal cone holds the write
// that queued its task, after its Add.
func wgQueueText(n, workers, sites int) string {
	var b strings.Builder
	for w := 0; w < workers; w++ {
		fmt.Fprintf(&b, "g1 go w%d @5\n", w)
	}
	for i := 0; i < n; i++ {
		b.WriteString("g1 add wg 1 @10\ng1 lock mu @11\ng1 w q @12\ng1 unlock mu @13\n")
		w := i % workers
		fmt.Fprintf(&b, "w%d lock mu @20\nw%d r q @21\nw%d unlock mu @22\nw%d done wg @%d\n", w, w, w, w, 23+w%sites)
	}
	b.WriteString("g1 wait wg @30\n")
	return b.String()
}

// wgLateText returns a run whose Dones at lines 20 and 21 are predicted
// negative-waitgroups (g3's Done once g2's has taken the counter to zero
// before g1's second Add, and the other way round), with before queued
// tasks, each a Done that brings its own Add, ahead of them in the
// group's events: lowering either adds those one at a time first.
func wgLateText(before int) string {
	var b strings.Builder
	b.WriteString("g1 go w0 @5\ng1 add wg 1 @10\ng1 go g2 @6\ng1 go g3 @7\n")
	for i := 0; i < before; i++ {
		b.WriteString("g1 add wg 1 @40\ng1 lock mu @41\ng1 w q @42\ng1 unlock mu @43\n")
		b.WriteString("w0 lock mu @50\nw0 r q @51\nw0 unlock mu @52\nw0 done wg @53\n")
	}
	b.WriteString("g2 done wg @20\ng1 w x @8\ng1 add wg 1 @11\ng3 r x @9\ng3 done wg @21\ng1 wait wg @30\n")
	return b.String()
}

func TestMisuseLowerBudget(t *testing.T) {
	// A step costs at least the group's events (lowerCost): a row's
	// steps are at most the work it may do over that.
	layer := func(events int) int64 { return misuseWork / int64(events) }
	lowering := func(events int) int64 { return misuseWork / 4 / int64(events) }
	for _, tc := range []struct {
		name, trace string
		want        string // describe's text of the misuse findings
		stopped     int64  // the misuse row's candidates the budget gave up on
		maxSteps    int64  // the most lowering steps the layer may take
	}{
		// Four tries of the Done's site, each stopped at a lowering's
		// budget (without a bound: a closure per Done of the group,
		// 2,000 each).
		{"pool queue, 2000 tasks", wgQueueText(2000, 8, 1), "", 4, 4 * lowering(2*2000+1)},
		{"pool queue, 20 tasks", wgQueueText(20, 4, 1), "", 0, 4 * 20},
		// Four tries of each of three sites: the first site's take most
		// of the layer's budget, and the other sites' stop at once.
		{"pool queue, three Done sites", wgQueueText(2000, 6, 3), "", 12, layer(2*2000 + 1)},
		{"late Done, 3 tasks ahead", wgLateText(3), "negative-waitgroup 53 predicted; negative-waitgroup 20 predicted; negative-waitgroup 21 predicted", 0, 4 * 4},
		// The proofs of 20 and 21 add the 100 tasks' Dones first: a
		// small run's lowering is not stopped.
		{"late Done, 100 tasks ahead", wgLateText(100), "negative-waitgroup 20 predicted; negative-waitgroup 21 predicted", 0, 4 * 104},
		// With 5,000 tasks ahead, more than a lowering's budget: the
		// budget gives up on 20 and 21 (found unbounded), and says so.
		{"late Done, 5000 tasks ahead", wgLateText(5000), "", 2, layer(2*5000 + 5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := gotext.Build(tc.trace)
			if err != nil {
				t.Fatal(err)
			}
			st := stage(wantMisuse(t, tr, tc.want), "misuse")
			if st.MisuseStopped != tc.stopped {
				t.Errorf("misuse row: %d candidates stopped at the budget, want %d", st.MisuseStopped, tc.stopped)
			}
			if st.MisuseSteps > tc.maxSteps {
				t.Errorf("misuse row: %d lowering steps, want at most %d", st.MisuseSteps, tc.maxSteps)
			}
		})
	}
}

// BenchmarkMisuseLowerQueue times the misuse layer (the analysis with
// races, atomicity and deadlocks off) on a pool queue of 24,000 tasks and
// 8 workers, whose four lowerings the budget stops:
//
//	go test -run XXX -bench MisuseLowerQueue -count 5 ./predict
func BenchmarkMisuseLowerQueue(b *testing.B) {
	tr, err := gotext.Build(wgQueueText(24000, 8, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Analyze(context.Background(), tr, Options{NoRaces: true, NoAtomicity: true, NoDeadlocks: true}); err != nil {
			b.Fatal(err)
		}
	}
}
