// This file tests SPDOffline's layer (deadlock_spd.go): the deadlocks of
// deadlock_lockorder.go's table and cycles longer than it looks at, each
// with a witness the checker accepts; and differentially, on the package's
// test traces (lockOrderCases) and random traces of nested critical
// sections, that every pattern of sites today's layer proves the new one
// proves too.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// testEngine returns an engine over tr with the default options.
func testEngine(tb testing.TB, tr *trace.Trace) *engine {
	tb.Helper()
	o := Options{}
	o = o.defaults()
	c := newCTP(tr)
	e, err := newEngine(context.Background(), tr, c, newMemory(c), o)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// checkWitnesses fails tb for every finding whose witness the
// independent checker rejects.
func checkWitnesses(tb testing.TB, tr *trace.Trace, fs []Finding) {
	tb.Helper()
	loc, spans := trace.GroupAccesses(tr.Events)
	chk := witness.NewChecker(tr, loc, spans)
	for _, f := range fs {
		if err := chk.Check(f.claim()); err != nil {
			tb.Errorf("witness of deadlock %v rejected: %v", f.Events, err)
		}
	}
}

// cycleTrace returns the trace of k goroutines, goroutine j taking lock
// Lj then L(j+1 mod k), one after the other: a cycle through k locks.
func cycleTrace(k int) string {
	var b strings.Builder
	n := 0
	line := func(g int, op string) {
		n++
		fmt.Fprintf(&b, "T%d|%s|%d\n", g, op, n)
	}
	for g := 2; g <= k; g++ {
		line(1, fmt.Sprintf("fork(T%d)", g))
	}
	for g := 1; g <= k; g++ {
		a, c := fmt.Sprintf("L%d", g), fmt.Sprintf("L%d", g%k+1)
		line(g, "acq("+a+")")
		line(g, "acq("+c+")")
		line(g, "rel("+c+")")
		line(g, "rel("+a+")")
	}
	return b.String()
}

func TestSPDDeadlocks(t *testing.T) {
	cases := slices.Clone(lockOrderCases)
	cases = append(cases, []struct {
		name, trace string
		want        string
	}{
		{"two locks", cycleTrace(2), "deadlock 3-7 predicted"},
		{"three locks", cycleTrace(3), "deadlock 4-8-12 predicted"},
		{"six locks, beyond maxCycle", cycleTrace(6), "deadlock 7-11-15-19-23-27 predicted"},
		// The first instance of T2's pattern is ordered after T1's
		// section by a signal; the second is not: the sweep drops the
		// first and proves the second.
		{"second instance", `
T1|fork(T2)|1
T1|acq(A)|2
T1|acq(B)|3
T1|rel(B)|4
T1|rel(A)|5
T1|sig(S)|6
T2|wait(S)|7
T2|acq(B)|8
T2|acq(A)|9
T2|rel(A)|10
T2|rel(B)|11
T1|acq(A)|12
T1|acq(B)|13
T1|rel(B)|14
T1|rel(A)|15
`, "deadlock 13-9 predicted"},
	}...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := parseTrace(t, strings.TrimSpace(tc.trace))
			fs, st, err := testEngine(t, tr).spdLayer(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(tr, fs); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if st.DeadlockSites != len(fs) {
				t.Errorf("row %+v for %d findings", st, len(fs))
			}
			checkWitnesses(t, tr, fs)
		})
	}
}

// genNested returns a random trace in the test notation whose goroutines
// nest critical sections of up to three locks (some shared), with
// accesses and signals between, run by a random scheduler that respects
// locks; a run that deadlocks stops there.
func genNested(r *rand.Rand, goroutines, locks, blocks int) string {
	type op struct{ name, arg string }
	progs := make([][]op, goroutines+1)
	for g := 2; g <= goroutines; g++ {
		progs[1] = append(progs[1], op{"fork", fmt.Sprintf("T%d", g)})
	}
	for g := 1; g <= goroutines; g++ {
		for k := 0; k < blocks; k++ {
			switch r.Intn(6) {
			case 0:
				progs[g] = append(progs[g], op{[]string{"sig", "wait"}[r.Intn(2)], fmt.Sprintf("S%d", r.Intn(2))})
			case 1:
				progs[g] = append(progs[g], op{[]string{"r", "w"}[r.Intn(2)], fmt.Sprintf("v%d", r.Intn(3))})
			default:
				ls := r.Perm(locks)[:1+r.Intn(min(3, locks))]
				var rel []op
				for _, l := range ls {
					acq, rl := "acq", "rel"
					if r.Intn(6) == 0 {
						acq, rl = "racq", "rrel"
					}
					progs[g] = append(progs[g], op{acq, fmt.Sprintf("L%d", l)})
					if r.Intn(3) == 0 {
						progs[g] = append(progs[g], op{"w", fmt.Sprintf("v%d", r.Intn(3))})
					}
					rel = append(rel, op{rl, fmt.Sprintf("L%d", l)})
				}
				slices.Reverse(rel)
				progs[g] = append(progs[g], rel...)
			}
		}
	}
	pc := make([]int, goroutines+1)
	started := make([]bool, goroutines+1)
	started[1] = true
	writer := map[string]int{}
	readers := map[string]int{}
	var out strings.Builder
	line := 0
	for {
		var ready []int
		for g := 1; g <= goroutines; g++ {
			if !started[g] || pc[g] >= len(progs[g]) {
				continue
			}
			o := progs[g][pc[g]]
			switch o.name {
			case "acq":
				if writer[o.arg] != 0 || readers[o.arg] > 0 {
					continue
				}
			case "racq":
				if writer[o.arg] != 0 {
					continue
				}
			}
			ready = append(ready, g)
		}
		if len(ready) == 0 {
			break
		}
		g := ready[r.Intn(len(ready))]
		o := progs[g][pc[g]]
		pc[g]++
		switch o.name {
		case "acq":
			writer[o.arg] = g
		case "rel":
			writer[o.arg] = 0
		case "racq":
			readers[o.arg]++
		case "rrel":
			readers[o.arg]--
		case "fork":
			var c int
			fmt.Sscanf(o.arg, "T%d", &c)
			started[c] = true
		}
		line++
		fmt.Fprintf(&out, "T%d|%s(%s)|%d\n", g, o.name, o.arg, line)
	}
	return out.String()
}

// TestSPDSubsumesLockOrder is the differential test: on random traces of
// nested sections, every pattern of sites today's layer proves, SPDOffline
// proves, and every witness of either is accepted by the checker.
func TestSPDSubsumesLockOrder(t *testing.T) {
	r := rand.New(rand.NewSource(32))
	var texts []string
	for i := 0; i < 300; i++ {
		texts = append(texts, genNested(r, 2+r.Intn(5), 2+r.Intn(5), 2+r.Intn(8)))
	}
	for k := 2; k <= 6; k++ {
		texts = append(texts, cycleTrace(k))
	}
	for _, tc := range lockOrderCases {
		texts = append(texts, tc.trace)
	}
	oldN, newN, longer := 0, 0, 0
	for n, text := range texts {
		tr := parseTrace(t, strings.TrimSpace(text))
		e := testEngine(t, tr)
		old, _, err := e.deadlockLayer()
		if err != nil {
			t.Fatal(err)
		}
		spd, _, err := e.spdLayer(nil)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, f := range spd {
			have[e.lockOrderKey(f)] = true
			if len(f.Events) > maxCycle {
				longer++
			}
		}
		for _, f := range old {
			if !have[e.lockOrderKey(f)] {
				t.Errorf("trace %d: today's layer proves %v (%q), SPDOffline does not:\n%s", n, f.Events, e.lockOrderKey(f), text)
			}
		}
		oldN += len(old)
		newN += len(spd)
		checkWitnesses(t, tr, old)
		checkWitnesses(t, tr, spd)
	}
	t.Logf("%d traces: today's layer %d deadlocks, SPDOffline %d (%d longer than %d locks)", len(texts), oldN, newN, longer, maxCycle)
	if newN <= oldN {
		t.Errorf("SPDOffline found %d, no more than today's %d: the random traces test too little", newN, oldN)
	}
}

// TestSPDStage checks the funnel's rows when Analyze runs both layers: a
// cycle of six locks is beyond the deadlock row and proved in the
// deadlock-spd row; a cycle of two is the deadlock row's, which
// deadlock-spd does not report again.
func TestSPDStage(t *testing.T) {
	for _, tc := range []struct {
		k               int
		lockOrder, spd  int
		patterns, swept int64
	}{
		{6, 0, 1, 1, 1},
		{2, 1, 0, 1, 0},
	} {
		res := analyze(t, parseTrace(t, strings.TrimSpace(cycleTrace(tc.k))), Options{NoRaces: true})
		d, s := stage(res, "deadlock"), stage(res, stageSPD)
		if d.DeadlockSites != tc.lockOrder || s.DeadlockSites != tc.spd || s.Cycles != tc.patterns || s.Deadlocks != tc.swept {
			t.Errorf("cycle of %d: deadlock row %+v, deadlock-spd row %+v", tc.k, d, s)
		}
		if n := countKind(res.Findings, KindDeadlock); n != 1 {
			t.Errorf("cycle of %d: %d deadlock findings, want 1", tc.k, n)
		}
		var buf strings.Builder
		res.Stats.Print(&buf)
		if !strings.Contains(buf.String(), "abstract lock-order patterns") {
			t.Errorf("-stats has no deadlock-spd row:\n%s", buf.String())
		}
	}
}
