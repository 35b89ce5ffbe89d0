// This file tests the early folds of pending release-merges
// (clock_fold.go): folding at every merge proves the same races with the
// same witnesses as folding only at acquires, on random traces with
// merges and on a wait group that more goroutines call Done on than fold
// at once, where one goroutine's write after its Done races with the
// waiter's read and the writes before theirs do not.

package predict

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

// withFold runs f with foldPending set to n.
func withFold(n int, f func()) {
	defer func(old int) { foldPending = old }(foldPending)
	foldPending = n
	f()
}

func TestFoldPendingSameSHB(t *testing.T) {
	traces := randomTraces(37, 60, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 4 + r.Intn(12), vars: 2 + r.Intn(6), locks: r.Intn(3), sigs: 1 + r.Intn(3),
			ops: 50 + r.Intn(150), atomics: r.Intn(2) == 0, cut: 0.01}
	}, true)
	before := foldedEarly
	races := 0
	for k, tr := range traces {
		o := Options{NoAtomicity: true, SolveTimeout: time.Hour}
		var lazy, eager *Result
		withFold(0, func() { lazy = analyze(t, tr, o) })
		withFold(1, func() { eager = analyze(t, tr, o) })
		if !reflect.DeepEqual(lazy.Findings, eager.Findings) {
			t.Fatalf("trace %d: findings differ when merges fold at once:\n%s\nagainst\n%s", k,
				describe(tr, lazy.Findings), describe(tr, eager.Findings))
		}
		races += len(eager.Findings)
	}
	if foldedEarly == before || races == 0 {
		t.Fatalf("%d early folds, %d findings: the test says nothing", foldedEarly-before, races)
	}
	t.Logf("%d traces, %d findings, %d early folds", len(traces), races, foldedEarly-before)
}

// waitGroupText returns a trace in the test notation: n goroutines each
// write their own variable and call Done; the last writes its variable
// again after its Done; T1 waits and reads every variable.
func waitGroupText(n int) string {
	var b strings.Builder
	line := 1
	add := func(format string, a ...any) {
		fmt.Fprintf(&b, format+"|%d\n", append(a, line)...)
		line++
	}
	for g := 2; g <= n+1; g++ {
		add("T1|fork(T%d)", g)
	}
	for g := 2; g <= n+1; g++ {
		add("T%d|w(x%d)", g, g)
		add("T%d|merge(wg)", g)
	}
	add("T%d|w(x%d)", n+1, n+1)
	add("T1|wait(wg)")
	for g := 2; g <= n+1; g++ {
		add("T1|r(x%d)", g)
	}
	return b.String()
}

func TestFoldPendingKeepsRace(t *testing.T) {
	for _, fold := range []int{0, 1, 2, 3, 64} {
		for _, n := range []int{1, 2, 5, 9} {
			tr := parseTrace(t, waitGroupText(n))
			before := foldedEarly
			var res *Result
			withFold(fold, func() { res = analyze(t, tr, Options{}) })
			// The last write, on the line after the merges, against the
			// read of the same variable: T1's last line.
			last := 3*n + 2
			want := fmt.Sprintf("race %d-%d", 3*n+1, last+n)
			if got := describe(tr, res.Findings); got != want {
				t.Errorf("fold at %d, %d goroutines: got %q, want %q", fold, n, got, want)
			}
			if folds := foldedEarly - before; (fold > 0 && n >= fold) != (folds > 0) {
				t.Errorf("fold at %d, %d goroutines: %d early folds", fold, n, folds)
			}
		}
	}
}
