package predict

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// Sweeping the arena after every event computes the same histories as
// never sweeping: no base a clock still holds is ever taken back.
func TestArenaSweepKeepsHistories(t *testing.T) {
	defer func(n int) { sweepEntries = n }(sweepEntries)
	var trs []*trace.Trace
	for _, p := range []synthParams{
		{goroutines: 120, locks: 4, vars: 32, events: 40_000, racy: 0.001, seed: 7},             // all talk to all
		{goroutines: 300, locks: 8, vars: 64, events: 40_000, racy: 0.001, seed: 8, pool: true}, // a counter
	} {
		trs = append(trs, synth(p))
	}
	// Release-merges, release-acquires and atomics among enough
	// goroutines for their clocks to be re-based.
	r := rand.New(rand.NewSource(9))
	for k := 0; k < 20; k++ {
		trs = append(trs, parseTrace(t, genText(r, genParams{goroutines: 80, vars: 6, locks: 2, sigs: 3, ops: 30, atomics: true})))
	}
	trs = append(trs, parseTrace(t, heldOnlyThere()))
	for n, tr := range trs {
		c := newCTP(tr)
		m := newMemory(c)
		every := make(map[int32][]int32) // a pass that keeps chosen states
		for g := range c.byG {
			for p := 0; p <= len(c.byG[g]); p += 2 {
				every[int32(g)] = append(every[int32(g)], int32(p))
			}
		}
		for _, mode := range []clockMode{{}, {rf: true}, {locks: true}, {locks: true, rf: true}, {want: every}} {
			run := func(every int) *riseLog {
				sweepEntries = every
				h, err := newClocks(context.Background(), c, m, mode)
				if err != nil {
					t.Fatal(err)
				}
				return h.h
			}
			if want, got := run(1<<62), run(1); !reflect.DeepEqual(got, want) {
				t.Errorf("trace %d, mode %+v: histories differ when the arena is swept after every event", n, mode)
			}
		}
	}
}

// heldOnlyThere returns a trace in which a base is held only by a pending
// release-merge, and another only by a go statement, when the goroutine
// that made them has moved to a newer base: 80 goroutines meet at a
// counter C, so that their clocks are re-based again and again.
func heldOnlyThere() string {
	var b strings.Builder
	const n = 80
	for k := 2; k <= n+1; k++ {
		fmt.Fprintf(&b, "T1|fork(T%d)\n", k)
	}
	round := func() {
		for k := 2; k <= n+1; k++ {
			fmt.Fprintf(&b, "T%d|wait(C)\nT%d|sig(C)\n", k, k)
		}
	}
	round()
	fmt.Fprintf(&b, "T%d|merge(M)\n", n+1) // pending until T1 waits
	round()
	fmt.Fprintf(&b, "T%d|fork(T%d)\n", n, n+2) // T82 starts at the end
	for k := 0; k < 6; k++ {
		round()
	}
	fmt.Fprintf(&b, "T1|wait(M)\nT%d|w(x)\nT1|r(x)\n", n+2)
	return b.String()
}

func TestSizeClass(t *testing.T) {
	prev := 0
	for n := 1; n < 100_000; n++ {
		c := sizeClass(n)
		if c < n || c < prev || c > n+n/4+8 {
			t.Fatalf("sizeClass(%d) = %d (sizeClass(%d) = %d)", n, c, n-1, prev)
		}
		if sizeClass(c) != c {
			t.Fatalf("sizeClass(%d) = %d, but sizeClass(%d) = %d", n, c, c, sizeClass(c))
		}
		prev = c
	}
}
