// This file holds regression tests taken from the papers seer implements.

package predict

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func analyze(tb testing.TB, t *trace.Trace, o Options) *Result {
	tb.Helper()
	res, err := Analyze(context.Background(), t, o)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.Witness == nil {
			continue
		}
		if err := CheckWitness(t, f, o); err != nil {
			tb.Fatalf("finding %+v: %v", f, err)
		}
		// The expanded schedule is the same witness.
		full := *f
		full.Prefix, full.Stops, full.Witness = 0, nil, f.Schedule(t)
		if err := CheckWitness(t, &full, o); err != nil {
			tb.Fatalf("finding %+v, expanded to %v: %v", f, full.Witness, err)
		}
	}
	return res
}

// describe renders findings by their source lines, e.g. "race 3-9".
func describe(t *trace.Trace, fs []Finding) string {
	var out []string
	for _, f := range fs {
		var lines []string
		for _, i := range f.Events {
			lines = append(lines, fmt.Sprint(t.Site(&t.Events[i]).Line))
		}
		s := string(f.Kind) + " " + strings.Join(lines, "-")
		if f.Predicted {
			s += " predicted"
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func stage(res *Result, name string) Stage {
	for _, s := range res.Stats.Stages {
		if s.Name == name {
			return s
		}
	}
	return Stage{}
}

// UCG paper, Fig. 1 and §3.2-3.3: the race between a9 and b9 (here the
// writes at lines 10 and 16) is ruled out only by locks and wait/notify
// together. wait(c, l1) is modelled as in §2: wait_pre (a release on W),
// unlock, lock, wait_post (an acquire on N); notify acquires W and
// releases N. The cycle is a0 ⇝ a2 ⇝ b1 ⇝ b8 ⇝ a0.
const ucgFig1 = `
T1|acq(l3)|1
T1|acq(l1)|2
T1|sig(W)|3
T1|rel(l1)|4
T2|wait(W)|11
T2|sig(N)|12
T1|acq(l1)|5
T1|wait(N)|6
T1|acq(l2)|7
T1|rel(l1)|8
T1|w(x)|9
T1|rel(l2)|10
T1|rel(l3)|17
T2|acq(l3)|13
T2|acq(l2)|14
T2|rel(l2)|15
T2|rel(l3)|18
T2|w(x)|16
`

func TestUCGFigure1(t *testing.T) {
	tr := parseTrace(t, ucgFig1)
	res := analyze(t, tr, Options{})
	if len(res.Findings) != 0 {
		t.Errorf("findings: %s", describe(tr, res.Findings))
	}
	if hb := stage(res, "happens-before"); hb.RaceSites != 1 {
		t.Errorf("must-happen-before should leave the pair: %+v", hb)
	}
	if u := stage(res, "ucg"); u.RaceSites != 0 {
		t.Errorf("the UCG should rule the pair out: %+v", u)
	}
	// It is the graph's cycle that does it, not the causal cone.
	o := Options{}
	o = o.defaults()
	c := newCTP(tr)
	m := newMemory(c)
	e, err := newEngine(context.Background(), tr, c, m, o)
	if err != nil {
		t.Fatal(err)
	}
	p := e.racePlan(cand{kind: 'r', ev: [3]int32{10, 17, -1}}, true)
	if p == nil {
		t.Fatal("the cone rules the pair out")
	}
	if r := e.runUCG([]*plan{p}); r[0] != ucgInfeasible {
		t.Errorf("UCG verdict %v", r[0])
	}
	p.bar = make([]int32, len(p.bar)) // whole prefixes: same verdict
	if r := e.runUCG([]*plan{p}); r[0] != ucgInfeasible {
		t.Errorf("UCG verdict without chopping %v", r[0])
	}
	// Without the wait/notify, the race is real: T2 can run its critical
	// sections first.
	noWN := strings.NewReplacer("T1|sig(W)|3\n", "", "T2|wait(W)|11\n", "", "T2|sig(N)|12\n", "", "T1|wait(N)|6\n", "").Replace(ucgFig1)
	tr2 := parseTrace(t, noWN)
	res2 := analyze(t, tr2, Options{})
	if got := describe(tr2, res2.Findings); got != "race 9-16 predicted" {
		t.Errorf("without wait/notify: %q", got)
	}
}

// Maximal causal models §5.4: lock-as-read/write is unsound on a trace
// where a lock is never released (Fig. 1(b) stopped after the read of x in
// Thread 2). The open critical section must come last; no race.
func TestOpenCriticalSection(t *testing.T) {
	tr := parseTrace(t, `
T1|acq(L)|1
T1|w(x)|2
T1|rel(L)|3
T1|w(y)|4
T1|acq(L)|5
T1|w(x)|6
T1|rel(L)|7
T2|acq(L)|8
T2|r(x)|9
`)
	res := analyze(t, tr, Options{})
	if len(res.Findings) != 0 {
		t.Errorf("findings: %s", describe(tr, res.Findings))
	}
	// A goroutine that stays in its critical section to the end: its
	// section must come last on L, after T1's (which the witness for 1-5
	// does not need, and the witness for 6-7 must put first).
	tr = parseTrace(t, `
T1|w(z)|1
T1|acq(L)|2
T1|rel(L)|3
T2|acq(L)|4
T2|r(z)|5
T2|w(q)|6
T1|r(q)|7
`)
	res = analyze(t, tr, Options{})
	if got := describe(tr, res.Findings); got != "race 1-5 predicted; race 6-7" {
		t.Errorf("got %q", got)
	}
	for _, f := range res.Findings {
		if f.Events[0] == 5 { // 6-7: T1's section precedes T2's open one
			if w := f.Schedule(tr); fmt.Sprint(w) != "[0 1 2 3 4 5 6]" {
				t.Errorf("witness %v", w)
			}
		}
	}
}

// Soundness of predictive analyses §6.4-6.5 (Mathur et al.'s example): HB
// reports the race on y, which needs the read of x to see another value
// first; SHB and seer do not.
const secondRace = `
T1|w(y)|1
T1|w(x)|2
T2|r(x)|3
T2|w(y)|4
`

func TestHBSecondRace(t *testing.T) {
	tr := parseTrace(t, secondRace)
	for _, tc := range []struct{ analysis, want string }{
		{AnalysisHB, "race 1-4; race 2-3"},
		{AnalysisSHB, "race 2-3"},
		{AnalysisSeer, "race 2-3"},
	} {
		res := analyze(t, tr, Options{Analysis: tc.analysis})
		if got := describe(tr, res.Findings); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.analysis, got, tc.want)
		}
	}
}

// Rigorous concurrency analysis, Fig. 2: deposit and withdraw are
// race-free (every access to balance holds l1) but not atomic. The reads
// of balance only feed the written value (r2 = r1 + 1), so they are
// control-irrelevant; with that, the remote write can fall between the
// read and the write of the deposit.
const bank = `
T0|fork(T1)|1
T0|fork(T2)|2
T1|begin|10
T1|acq(l1)|11
T1|r(balance)|12
T1|rel(l1)|13
T1|acq(l1)|14
T1|w(balance)|15
T1|rel(l1)|16
T1|end|17
T2|begin|20
T2|acq(l1)|21
T2|r(balance)|22
T2|rel(l1)|23
T2|acq(l1)|24
T2|w(balance)|25
T2|rel(l1)|26
T2|end|27
`

func TestBankAccount(t *testing.T) {
	tr := parseTrace(t, bank)
	irrelevant := func(t *trace.Trace, i int) bool { return t.Events[i].Op == trace.OpRead }
	res := analyze(t, tr, Options{ControlIrrelevant: irrelevant, Feeds: feedsNextWrite})
	got := describe(tr, res.Findings)
	if strings.Contains(got, "race") {
		t.Errorf("bank account is race-free, got %q", got)
	}
	if !strings.Contains(got, "atomicity 12-25-15 predicted") {
		t.Errorf("want the deposit's atomicity violation, got %q", got)
	}
	// Keeping every read's writer, the serial run shows nothing: the
	// withdraw read the deposit's write, so it must come after it.
	res = analyze(t, tr, Options{})
	if len(res.Findings) != 0 {
		t.Errorf("with all reads kept: %s", describe(tr, res.Findings))
	}
	// A run that interleaved: the violation is observed.
	inter := parseTrace(t, `
T1|begin|10
T1|acq(l1)|11
T1|r(balance)|12
T1|rel(l1)|13
T2|begin|20
T2|acq(l1)|21
T2|r(balance)|22
T2|rel(l1)|23
T2|acq(l1)|24
T2|w(balance)|25
T2|rel(l1)|26
T2|end|27
T1|acq(l1)|14
T1|w(balance)|15
T1|rel(l1)|16
T1|end|17
`)
	res = analyze(t, inter, Options{})
	if got := describe(inter, res.Findings); !strings.Contains(got, "atomicity 12-25-15") || strings.Contains(got, "12-25-15 predicted") {
		t.Errorf("interleaved run: %q", got)
	}
}

// The race WCP finds by reordering critical sections on disjoint data, and
// its trap: when the second section reads what the first wrote, the order
// of the sections is fixed and there is no race.
func TestLockOrderHiddenRace(t *testing.T) {
	tr := parseTrace(t, `
T1|w(x)|1
T1|acq(L)|2
T1|w(y)|3
T1|rel(L)|4
T2|acq(L)|5
T2|w(z)|6
T2|rel(L)|7
T2|r(x)|8
`)
	res := analyze(t, tr, Options{})
	if got := describe(tr, res.Findings); got != "race 1-8 predicted" {
		t.Errorf("got %q", got)
	}
	trap := parseTrace(t, `
T1|w(x)|1
T1|acq(L)|2
T1|w(y)|3
T1|rel(L)|4
T2|acq(L)|5
T2|r(y)|6
T2|rel(L)|7
T2|r(x)|8
`)
	res = analyze(t, trap, Options{})
	if len(res.Findings) != 0 {
		t.Errorf("trap: %s", describe(trap, res.Findings))
	}
	// tsan's happens-before sees neither.
	res = analyze(t, tr, Options{Analysis: AnalysisHB})
	if len(res.Findings) != 0 {
		t.Errorf("hb: %s", describe(tr, res.Findings))
	}
}
