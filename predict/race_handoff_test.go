// This file tests the check that skips the SHB layer's pass
// (race_handoff.go): where it holds, the SHB layer and the
// must-happen-before filter find no race, and Analyze reports the same
// with the skip as without it.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

// handoffTraces returns the traces the skip's tests share: random ones
// of every kind of synchronisation, some with few accesses to shared
// data so that the check holds on part of them, and the channel and ring
// traces it is made for.
func handoffTraces(t *testing.T) []*trace.Trace {
	traces := randomTraces(41, 600, func(r *rand.Rand, i int) genParams {
		p := syncParams(r)
		if i%2 == 0 {
			// Few goroutines and accesses, no locks: often handed over.
			p.goroutines, p.vars, p.locks, p.ops = 2+r.Intn(2), 1, 0, 2+r.Intn(4)
		}
		return p
	}, true)
	r := rand.New(rand.NewSource(43))
	for range 600 {
		tr, err := buildTrace(genHandoff(r))
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	for seed := int64(1); seed <= 4; seed++ {
		traces = append(traces, synthChan(20+int(seed)*7, 3+int(seed), 400*int(seed), seed))
	}
	for _, shape := range [][2]int{{2, 3}, {30, 6}} {
		tr, err := synthtrace.Ring(shape[0], shape[1])
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	return traces
}

// genHandoff returns a random trace in the test notation in which
// goroutines mostly hand data over: a write then a signal (a release, a
// merge, a release-acquire or an atomic store) on one of a few
// addresses, and on another goroutine an acquire of one of them then an
// access. Some accesses go without, some signals are overwritten, some
// accesses sit in critical sections: some traces are handed over, and
// the rest race or are ordered otherwise.
func genHandoff(r *rand.Rand) string {
	ng := 2 + r.Intn(3)
	var lines []string
	add := func(g int, op, arg string) {
		lines = append(lines, fmt.Sprintf("T%d|%s(%s)|%d", g, op, arg, len(lines)+1))
	}
	// T2 starts at once; the others when a started goroutine forks them,
	// between the steps, so that some start knowing what their parent
	// was handed.
	add(1, "fork", "T2")
	started := 2
	vars, sigs := 1+r.Intn(2), 1+r.Intn(2)
	acc := func(g int) {
		v := fmt.Sprintf("v%d", r.Intn(vars))
		if r.Intn(8) == 0 {
			v = "A" // plain, beside the atomics
		}
		add(g, []string{"r", "w"}[r.Intn(2)], v)
	}
	for n := 2 + r.Intn(7); n > 0; n-- {
		if started < ng && r.Intn(3) == 0 {
			started++
			add(1+r.Intn(started-1), "fork", fmt.Sprintf("T%d", started))
		}
		g := 1 + r.Intn(started)
		s := fmt.Sprintf("S%d", r.Intn(sigs))
		switch x := r.Intn(20); {
		case x < 8: // hand over
			acc(g)
			if r.Intn(6) == 0 {
				add(g, "ast", "A")
			} else {
				add(g, []string{"sig", "sig", "merge", "relacq"}[r.Intn(4)], s)
			}
		case x < 16: // take over
			if r.Intn(6) == 0 {
				add(g, "ald", "A")
			} else {
				add(g, []string{"wait", "wait", "relacq"}[r.Intn(3)], s)
			}
			acc(g)
		case x < 18: // an access alone
			acc(g)
		default: // a critical section
			add(g, "acq", "L")
			acc(g)
			add(g, "rel", "L")
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// Where the check holds, the SHB layer proves nothing and counts no
// unordered pair, and the must-happen-before filter leaves no race
// candidate: the row the skip puts in the SHB layer's place is the one
// it would have made.
func TestHandoffSkipSound(t *testing.T) {
	held := 0
	for n, tr := range handoffTraces(t) {
		c := newCTP(tr)
		m := newMemory(c)
		ok, err := handedOver(context.Background(), c, m)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		held++
		o := Options{}
		o = o.defaults()
		e, err := prePass(context.Background(), tr, c, m, o)
		if err != nil {
			t.Fatal(err)
		}
		proofs := map[siteKey]*proof{}
		var order []siteKey
		st, err := e.shbLayer(proofs, &order)
		if err != nil {
			t.Fatal(err)
		}
		if st.Races != 0 || len(order) != 0 {
			t.Errorf("trace %d (%d events): every conflicting pair handed over, but the SHB layer counts %d unordered pairs and proves %d site pairs", n, len(tr.Events), st.Races, len(order))
		}
		// The independent oracle (naive_oracle_test.go) agrees: neither
		// the run's own happens-before nor SHB leaves a pair unordered.
		for _, rel := range []naiveRel{naiveHB, naiveSHB} {
			if g := newNaiveClocks(tr, rel).races().lines(); g != "" {
				t.Errorf("trace %d: every conflicting pair handed over, but the naive oracle's relation %d leaves %s", n, rel, g)
			}
		}
		cs, err := findCandidates(context.Background(), c, m, e.mhb, &o, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if cs.f.mhb[0] != 0 {
			t.Errorf("trace %d: every conflicting pair handed over, but %d race candidates pass must-happen-before", n, cs.f.mhb[0])
		}
	}
	t.Logf("the check held on %d traces", held)
	if held < 80 {
		t.Errorf("the check held on only %d traces: too few to test the skip", held)
	}
}

// Every one-edge ordering the check makes is one the must-happen-before
// pass computes: the check's model of the passes' synchronisation
// (which addresses, which kinds overwrite, merge or acquire) is theirs.
func TestHandoffEdgesInMHB(t *testing.T) {
	for n, tr := range handoffTraces(t) {
		c := newCTP(tr)
		m := newMemory(c)
		h, ok, err := handoffEdges(context.Background(), c, 1<<30)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		o := Options{}
		o = o.defaults()
		e, err := prePass(context.Background(), tr, c, m, o)
		if err != nil {
			t.Fatal(err)
		}
		h.pairs(func(to, from int32, hs []hop) {
			for _, x := range hs {
				if got := e.mhb.knows(to, x.recv, from); got < x.src {
					t.Fatalf("trace %d: the check has goroutine %d know %d events of %d after its first %d; must-happen-before, %d", n, to, x.src, from, x.recv, got)
				}
			}
		})
	}
}

// Analyze finds the same with the skip as without it: findings, and the
// funnel's rows but for their times.
func TestHandoffSkipSameFindings(t *testing.T) {
	defer func(s bool) { handoffSkip = s }(handoffSkip)
	for n, tr := range handoffTraces(t) {
		o := Options{CriticalSectionsAsTransactions: n%2 == 1}
		var got [2]string
		for k, skip := range []bool{false, true} {
			handoffSkip = skip
			res, err := Analyze(context.Background(), tr, o)
			if err != nil {
				t.Fatalf("trace %d, skip %v: %v", n, skip, err)
			}
			got[k] = analyzeSummary(res)
		}
		if got[0] != got[1] {
			t.Errorf("trace %d: without the skip\n%s\nwith it\n%s", n, got[0], got[1])
		}
	}
}

// analyzeSummary is what TestHandoffSkipSameFindings compares of a
// result: every finding's kind, events and whether the run showed it,
// and the funnel's rows without their times.
func analyzeSummary(res *Result) string {
	s := ""
	for _, f := range res.Findings {
		s += fmt.Sprintf("%s %v predicted=%v count=%d\n", f.Kind, f.Events, f.Predicted, f.Count)
	}
	for _, st := range res.Stats.Stages {
		st.Time = 0
		s += fmt.Sprintf("%+v\n", st)
	}
	return s
}

// The check fails wherever one edge does not order a conflicting pair,
// races or not, and holds where one does.
func TestHandoffCases(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		handed bool // the check holds
		race   bool // Analyze reports a race
	}{
		{"handed over by a signal", `T1|fork(T2)|1
T1|w(x)|2
T1|sig(S)|3
T2|wait(S)|4
T2|r(x)|5`, true, false},
		{"the signal overwritten before the wait", `T1|fork(T2)|1
T1|fork(T3)|2
T1|w(x)|3
T1|sig(S)|4
T3|sig(S)|5
T2|wait(S)|6
T2|r(x)|7`, false, true},
		{"the wait before the signal", `T1|fork(T2)|1
T1|w(x)|2
T2|wait(S)|3
T1|sig(S)|4
T2|r(x)|5`, false, true},
		{"written after the go statement", `T1|fork(T2)|1
T1|w(x)|2
T2|r(x)|3`, false, true},
		{"written before the go statement", `T1|w(x)|1
T1|fork(T2)|2
T2|r(x)|3`, true, false},
		{"read after a join", `T1|fork(T2)|1
T2|w(x)|2
T1|join(T2)|3
T1|r(x)|4`, true, false},
		{"handed to the parent before the go statement", `T1|fork(T2)|1
T2|w(x)|2
T2|sig(S)|3
T1|wait(S)|4
T1|fork(T3)|5
T3|r(x)|6`, true, false},
		{"handed to the parent after the go statement", `T1|fork(T2)|1
T2|w(x)|2
T2|sig(S)|3
T1|fork(T3)|4
T1|wait(S)|5
T3|r(x)|6`, false, true},
		{"merges kept until the wait", `T1|fork(T2)|1
T1|fork(T3)|2
T2|w(x)|3
T2|merge(S)|4
T3|merge(S)|5
T1|wait(S)|6
T1|r(x)|7`, true, false},
		{"a release-acquire replaces the merges", `T1|fork(T2)|1
T1|fork(T3)|2
T3|w(x)|3
T3|merge(S)|4
T2|relacq(S)|5
T1|wait(S)|6
T1|r(x)|7`, false, false},
		{"an atomic load judged before its own acquire", `T1|fork(T2)|1
T1|w(A)|2
T1|ast(A)|3
T2|ald(A)|4`, false, true},
		{"ordered by a lock only", `T1|fork(T2)|1
T1|acq(L)|2
T1|w(x)|3
T1|rel(L)|4
T2|acq(L)|5
T2|r(x)|6
T2|rel(L)|7`, false, false},
		{"a lock between signal and wait", `T1|fork(T2)|1
T1|w(x)|2
T1|sig(S)|3
T1|acq(L)|4
T1|rel(L)|5
T2|wait(S)|6
T2|r(x)|7`, true, false},
	}
	defer func(s bool) { handoffSkip = s }(handoffSkip)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := parseTrace(t, tc.text)
			c := newCTP(tr)
			ok, err := handedOver(context.Background(), c, newMemory(c))
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.handed {
				t.Errorf("handed over: %v, want %v", ok, tc.handed)
			}
			for _, skip := range []bool{false, true} {
				handoffSkip = skip
				res, err := Analyze(context.Background(), tr, Options{})
				if err != nil {
					t.Fatal(err)
				}
				race := false
				for _, f := range res.Findings {
					race = race || f.Kind == KindRace
				}
				if race != tc.race {
					t.Errorf("skip %v: race reported %v, want %v", skip, race, tc.race)
				}
			}
		})
	}
}

// BenchmarkHandoff times the check beside the SHB layer it lets Analyze
// skip, on a channel trace where it holds and on a lock trace and a
// racy RAPID-style trace where it fails (what it costs then, on top):
//
//	go test -run XXX -bench Handoff ./predict
func BenchmarkHandoff(b *testing.B) {
	for _, s := range []struct {
		name string
		tr   *trace.Trace
	}{
		{"chan-1000g", synthChan(1000, 100, 50_000, 1)},
		{"locks-20g", synth(synthParams{goroutines: 20, locks: 3, vars: 16, events: 200_000, racy: 0.002, seed: 9})},
		{"rapid-8t", readSTD(b, rapidSTD(8, 200_000, 1))},
	} {
		c := newCTP(s.tr)
		m := newMemory(c)
		b.Run(s.name+"/check", func(b *testing.B) {
			for range b.N {
				if _, err := handedOver(context.Background(), c, m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/shb", func(b *testing.B) {
			e, err := relevance(context.Background(), s.tr, c, m, Options{})
			if err != nil {
				b.Fatal(err)
			}
			for range b.N {
				if _, err := e.shbLayer(map[siteKey]*proof{}, new([]siteKey)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The check's one-edge orderings and verdict are the same with a pair's
// hops found by the dense table as by the map (denseHopPairs).
func TestHandoffIndexSame(t *testing.T) {
	defer func(n int) { denseHopPairs = n }(denseHopPairs)
	for n, tr := range handoffTraces(t) {
		c := newCTP(tr)
		m := newMemory(c)
		var got [2]string
		for k, pairs := range []int{0, 1 << 22} {
			denseHopPairs = pairs
			h, ok, err := handoffEdges(context.Background(), c, 1<<30)
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			if dense := h.dense; dense != (k == 1) {
				t.Fatalf("trace %d: denseHopPairs %d: dense table %v", n, pairs, dense)
			}
			var lines []string
			h.pairs(func(to, from int32, hs []hop) {
				lines = append(lines, fmt.Sprint(to, from, hs))
			})
			slices.Sort(lines)
			held, err := handedOver(context.Background(), c, m)
			if err != nil {
				t.Fatal(err)
			}
			got[k] = fmt.Sprint(held, lines)
		}
		if got[0] != got[1] {
			t.Fatalf("trace %d: by the map %s, by the table %s", n, got[0], got[1])
		}
	}
}
