// This file tests Analyze's behaviour beyond the papers' examples: options,
// cancellation, deduplication, STD input, the Go synchronisation kinds.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

func TestAnalyzeOptions(t *testing.T) {
	tr := parseTrace(t, bank)
	irr := func(t *trace.Trace, i int) bool { return t.Events[i].Op == trace.OpRead }
	if res := analyze(t, tr, Options{ControlIrrelevant: irr, NoAtomicity: true}); len(res.Findings) != 0 {
		t.Errorf("NoAtomicity: %s", describe(tr, res.Findings))
	}
	tr2 := parseTrace(t, secondRace)
	if res := analyze(t, tr2, Options{NoRaces: true}); len(res.Findings) != 0 {
		t.Errorf("NoRaces: %s", describe(tr2, res.Findings))
	}
	if _, err := Analyze(context.Background(), tr, Options{Analysis: "nope"}); err == nil {
		t.Error("unknown analysis accepted")
	}
	if _, err := Analyze(context.Background(), nil, Options{}); err == nil {
		t.Error("nil trace accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Analyze(ctx, synth(synthParams{goroutines: 4, locks: 2, vars: 8, events: 200_000, seed: 1}), Options{}); err != context.Canceled {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestAnalyzeSmallTraces(t *testing.T) {
	empty, err := trace.NewBuilder(trace.Header{}).Trace()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*trace.Trace{empty, parseTrace(t, "T1|w(x)|1\nT1|r(x)|2\n")} {
		for _, a := range []string{AnalysisSeer, AnalysisHB, AnalysisSHB} {
			if res := analyze(t, tr, Options{Analysis: a}); len(res.Findings) != 0 {
				t.Errorf("%s: %+v", a, res.Findings)
			}
		}
	}
}

func TestAnalyzeDeterministic(t *testing.T) {
	tr := synth(synthParams{goroutines: 20, locks: 3, vars: 16, events: 20_000, racy: 0.002, seed: 9})
	a := analyze(t, tr, Options{CriticalSectionsAsTransactions: true})
	b := analyze(t, tr, Options{CriticalSectionsAsTransactions: true})
	if !reflect.DeepEqual(a.Findings, b.Findings) {
		t.Error("two runs disagree")
	}
	if len(a.Findings) == 0 {
		t.Error("no findings")
	}
}

// Findings are one per pair of sites, counting the event pairs: here the
// three writes race with the first read, and SHB orders them before the
// second (which comes after the first read, which read from the last
// write).
func TestDeduplication(t *testing.T) {
	tr := parseTrace(t, `
T1|fork(T2)|1
T1|w(x)|5
T1|w(x)|5
T1|w(x)|5
T2|r(x)|9
T2|r(x)|9
`)
	res := analyze(t, tr, Options{})
	if len(res.Findings) != 1 || res.Findings[0].Count != 3 {
		t.Fatalf("findings %+v", res.Findings)
	}
}

func TestSTDInput(t *testing.T) {
	tr, err := trace.ReadSTD(strings.NewReader(`
T1|w(V1)|10
T1|acq(L1)|11
T1|w(V2)|12
T1|rel(L1)|13
T2|acq(L1)|20
T2|w(V3)|21
T2|rel(L1)|22
T2|r(V1)|23
`))
	if err != nil {
		t.Fatal(err)
	}
	res := analyze(t, tr, Options{})
	if got := describe(tr, res.Findings); got != "race 10-23 predicted" {
		t.Errorf("got %q", got)
	}
}

func TestGoSynchronisation(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"fork orders", `
T1|w(x)|1
T1|fork(T2)|2
T2|r(x)|3
`, ""},
		{"join orders", `
T1|fork(T2)|1
T2|w(x)|2
T1|join(T2)|3
T1|r(x)|4
`, ""},
		{"channel orders", `
T1|fork(T2)|1
T2|w(x)|2
T2|sig(c)|3
T1|wait(c)|4
T1|r(x)|5
`, ""},
		{"wait group merges", `
T1|fork(T2)|1
T1|fork(T3)|2
T2|w(x)|3
T2|merge(wg)|4
T3|w(y)|5
T3|merge(wg)|6
T1|wait(wg)|7
T1|r(x)|8
T1|r(y)|9
`, ""},
		{"a later send is not the one received", `
T1|fork(T2)|1
T1|fork(T3)|2
T2|sig(c)|3
T1|wait(c)|4
T3|w(x)|5
T3|sig(c)|6
T1|r(x)|7
`, "race 5-7"},
		{"atomics order by read-from", `
T1|fork(T2)|1
T2|w(x)|2
T2|ast(flag)|3
T1|ald(flag)|4
T1|r(x)|5
`, ""},
		{"plain against atomic", `
T1|fork(T2)|1
T2|ast(flag)|2
T1|r(flag)|3
`, "race 2-3"},
		{"atomic against atomic", `
T1|fork(T2)|1
T2|ast(flag)|2
T1|ald(flag)|3
`, ""},
		{"readers share", `
T1|fork(T2)|1
T1|racq(L)|2
T1|r(x)|3
T1|rrel(L)|4
T2|racq(L)|5
T2|w(x)|6
T2|rrel(L)|7
`, "race 3-6 predicted"},
		{"writer excludes", `
T1|fork(T2)|1
T1|racq(L)|2
T1|r(x)|3
T1|rrel(L)|4
T2|acq(L)|5
T2|w(x)|6
T2|rel(L)|7
`, ""},
	} {
		tr := parseTrace(t, tc.text)
		res := analyze(t, tr, Options{})
		if got := describe(tr, res.Findings); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A mutex unlocked by another goroutine than the one that locked it is
// legal in Go; seer then keeps that mutex's operations in observed order.
// T1's write after its Lock is not protected by the hand-off (a real
// race) unless T1 tells T2 when it is done.
func TestHandOffMutex(t *testing.T) {
	tr := parseTrace(t, `
T1|fork(T2)|1
T1|acq(L)|2
T1|w(x)|3
T2|rel(L)|4
T2|acq(L)|5
T2|r(x)|6
T2|rel(L)|7
`)
	res := analyze(t, tr, Options{})
	// T2's first unlock may also come before T1's lock: a Go program
	// stops there (misuse.go).
	if got := describe(tr, res.Findings); got != "unlock-of-unlocked 4 predicted; race 3-6" {
		t.Errorf("got %q", got)
	}
	tr = parseTrace(t, `
T1|fork(T2)|1
T1|acq(L)|2
T1|w(x)|3
T1|sig(done)|4
T2|wait(done)|5
T2|rel(L)|6
T2|acq(L)|7
T2|r(x)|8
T2|rel(L)|9
`)
	res = analyze(t, tr, Options{})
	if len(res.Findings) != 0 {
		t.Errorf("findings: %s", describe(tr, res.Findings))
	}
}

// A critical section is a transaction for a location only if no other
// lock guards the location while this one does not (issue 14's false
// report on syscall.forking: ForkLock is held across a fork, around
// updates of forking that forkingLock guards).
func TestSectionTransactionsFollowGuards(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remote string // T2's access to x
		want   int    // atomicity findings
	}{
		// forkingLock (N) guards x; ForkLock (L) does not: no transaction.
		{"other lock guards", "T2|acq(N)|20\nT2|w(x)|21\nT2|rel(N)|22\n", 0},
		// Nothing guards x: L's section is still a transaction.
		{"unguarded", "T2|w(x)|21\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := parseTrace(t, `T1|fork(T2)|1
T1|acq(L)|2
T1|acq(N)|3
T1|r(x)|4
T1|rel(N)|5
T1|acq(N)|6
T1|w(x)|7
T1|rel(N)|8
T1|rel(L)|9
`+tc.remote)
			res := analyze(t, tr, Options{CriticalSectionsAsTransactions: true})
			n := 0
			for _, f := range res.Findings {
				if f.Kind == KindAtomicity {
					n++
				}
			}
			if n != tc.want {
				t.Errorf("%d atomicity findings %+v, want %d", n, res.Findings, tc.want)
			}
		})
	}
}

// The format's golden trace holds every operation with arbitrary operands:
// accesses that wrap around the address space, unlocks of locks nobody
// holds. Analyze must neither crash nor reject its own witnesses on it.
func TestAnalyzeDamagedTrace(t *testing.T) {
	tr, err := trace.ReadFile(filepath.Join("..", "trace", "testdata", "format", "small.v1.seertrace"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {CriticalSectionsAsTransactions: true}} {
		res := analyze(t, tr, o)
		if len(res.Findings) == 0 {
			t.Errorf("%+v: no findings; the trace has an observed race", o)
		}
	}
}

// checkAll checks the findings on several goroutines, and reports what
// checking them one by one in order reports: the first rejected witness.
func TestCheckAllFirstRejection(t *testing.T) {
	tr := synth(synthParams{goroutines: 20, locks: 3, vars: 16, events: 20_000, racy: 0.002, seed: 9})
	res := analyze(t, tr, Options{})
	if len(res.Findings) < 8 {
		t.Fatalf("%d findings: too few to test", len(res.Findings))
	}
	loc, spans := trace.GroupAccesses(tr.Events)
	chk := witness.NewChecker(tr, loc, spans)
	if err := checkAll(context.Background(), chk, res.Findings); err != nil {
		t.Fatalf("the analysis's own findings: %v", err)
	}
	// A witness ending in another finding's accesses is not one.
	bad := func(fs []Finding, i int) {
		j := (i + 1) % len(fs)
		fs[i].Events = fs[j].Events
	}
	n := len(res.Findings)
	for _, at := range [][]int{{0}, {n - 1}, {1, n - 2}, {n / 2, n/2 + 1, n - 1}} {
		fs := slices.Clone(res.Findings)
		for _, i := range at {
			fs[i] = res.Findings[i]
			bad(fs, i)
		}
		var want error
		for i := range fs {
			if err := chk.Check(fs[i].claim()); err != nil {
				want = fmt.Errorf("predict: internal error: witness for %s %v rejected: %v", fs[i].Kind, fs[i].Events, err)
				break
			}
		}
		if want == nil {
			t.Fatalf("corrupting findings %v: every witness still accepted", at)
		}
		for try := 0; try < 5; try++ {
			got := checkAll(context.Background(), chk, fs)
			if got == nil || got.Error() != want.Error() {
				t.Fatalf("corrupting findings %v: checkAll says %v, one by one %v", at, got, want)
			}
		}
	}
}

// A panic on one of Analyze's goroutines reaches its caller's goroutine
// when it waits, where it can be recovered (as the language server
// recovers a panic in the engine), with the value and the stack of
// where it happened.
func TestGoroutinePanicReachesCaller(t *testing.T) {
	ran := false
	goroutine(func() { ran = true })()
	if !ran {
		t.Fatal("wait returned before f ran")
	}
	wait := goroutine(func() { panic("boom in a layer") })
	got := func() (p any) {
		defer func() { p = recover() }()
		wait()
		return nil
	}()
	s, ok := got.(string)
	if !ok || !strings.Contains(s, "boom in a layer") || !strings.Contains(s, "TestGoroutinePanicReachesCaller") {
		t.Fatalf("recovered %v, want the panic's value and the stack of its goroutine", got)
	}
}

// Analyze reports the same whether the SHB layer's passes run beside the
// must-happen-before pass (below concurrentPassesBelow events) or before
// it, and its funnel counts the same.
func TestConcurrentPassesLikeSequential(t *testing.T) {
	defer func(n int) { concurrentPassesBelow = n }(concurrentPassesBelow)
	traces := randomTraces(41, 40, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(4), sigs: r.Intn(3),
			ops: 5 + r.Intn(30), atomics: r.Intn(2) == 0, tx: r.Intn(3) == 0, cut: 0.01}
	}, true)
	found := 0
	for k, tr := range traces {
		var res [2]*Result
		for j, below := range []int{1 << 30, 0} {
			concurrentPassesBelow = below
			res[j] = analyze(t, tr, Options{CriticalSectionsAsTransactions: true, SolveTimeout: time.Hour})
		}
		if !reflect.DeepEqual(res[0].Findings, res[1].Findings) {
			t.Fatalf("trace %d: findings differ, concurrent and sequential", k)
		}
		for i := range res[0].Stats.Stages {
			a, b := res[0].Stats.Stages[i], res[1].Stats.Stages[i]
			a.Time, b.Time = 0, 0
			if a != b {
				t.Fatalf("trace %d: stage %s concurrent %+v, sequential %+v", k, a.Name, a, b)
			}
		}
		found += len(res[0].Findings)
	}
	if found == 0 {
		t.Fatal("no findings: the test says nothing")
	}
}
