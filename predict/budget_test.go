// This file tests Options.HistoryBudget (analyze.go's analyzePrefix): a
// trace whose must-happen-before history outgrows the budget is analysed
// in its prefix by every layer, and by the SHB layer as a whole, so that
// the report never holds less than SHB proves of the whole trace.

package predict

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

func TestHistoryBudget(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	var traces []*trace.Trace
	for i := 0; i < 80; i++ {
		p := genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(3), sigs: 1 + r.Intn(3),
			ops: 10 + r.Intn(40), atomics: r.Intn(3) == 0}
		tr, _ := genTrace(r, p)
		traces = append(traces, tr)
	}
	var cut, midway, unchanged int
	for k, tr := range traces {
		shb := raceSites(tr, analyze(t, tr, Options{Analysis: AnalysisSHB}).Findings)
		for _, budget := range []int64{1, 24, 96, 1 << 20} {
			o := Options{NoAtomicity: true, HistoryBudget: budget}
			res, err := Analyze(context.Background(), tr, o)
			if err != nil {
				t.Fatal(err)
			}
			got := raceSites(tr, res.Findings)
			if n := len(got); n != countKind(res.Findings, KindRace) {
				t.Fatalf("trace %d, budget %d: %d race findings on %d pairs of lines: one pair reported twice", k, budget, countKind(res.Findings, KindRace), n)
			}
			for sp := range shb {
				if !got[sp] {
					t.Fatalf("trace %d, budget %d (history cut at event %d of %d): the SHB race at lines %v is missing",
						k, budget, res.Stats.HistoryCut, len(tr.Events), sp)
				}
			}
			if res.Stats.HistoryCut == 0 {
				unchanged++
				continue
			}
			cut++
			if 4*res.Stats.HistoryCut > len(tr.Events) {
				midway++
			}
			if res.Stats.HistoryCut >= len(tr.Events) || res.Stats.Events != len(tr.Events) {
				t.Fatalf("trace %d: history cut at event %d, stats of %d events, of a trace of %d",
					k, res.Stats.HistoryCut, res.Stats.Events, len(tr.Events))
			}
			// What is not SHB's comes from the prefix, and its witness,
			// which Analyze checked against the prefix, holds in the whole
			// trace.
			for i, f := range res.Findings {
				if f.Kind == KindRace && shb[linePair(tr, f.Events[0], f.Events[1])] {
					continue
				}
				for _, ev := range f.Events {
					if ev >= res.Stats.HistoryCut {
						t.Fatalf("trace %d: %s %v beyond the history's cut at event %d", k, f.Kind, f.Events, res.Stats.HistoryCut)
					}
				}
				if f.Witness != nil {
					if err := CheckWitness(tr, &res.Findings[i], o); err != nil {
						t.Fatalf("trace %d: %s %v, found in the first %d events: %v", k, f.Kind, f.Events, res.Stats.HistoryCut, err)
					}
				}
			}
		}
	}
	if midway == 0 || unchanged == 0 {
		t.Fatalf("%d analyses cut (%d past a quarter of the trace), %d not: the test says nothing of one of them", cut, midway, unchanged)
	}
	t.Logf("%d analyses cut by the budget (%d past a quarter of the trace), %d within it", cut, midway, unchanged)
}

// relaxedOf returns the reads of tr that need not keep their writer, with
// the default options.
func relaxedOf(t *testing.T, tr *trace.Trace, c *ctp, m *memory) bitset {
	t.Helper()
	var o Options
	e, err := relevance(context.Background(), tr, c, m, o.defaults())
	if err != nil {
		t.Fatal(err)
	}
	return e.relaxed
}

func countKind(fs []Finding, kind report.Kind) int {
	n := 0
	for _, f := range fs {
		if f.Kind == kind {
			n++
		}
	}
	return n
}

// TestHistoryBudgetPrefix checks what analyzePrefix relies on to take the
// clocks of a pass stopped by its budget instead of replaying the prefix:
// they are those of a pass over the prefix alone (whose CTP keeps the
// whole trace's observed locks in observed order), and read-from implied
// on the whole trace's terms (more reads kept) is implied on the
// prefix's.
func TestHistoryBudgetPrefix(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var stopped int
	for it := 0; it < 400; it++ {
		p := genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(3), sigs: r.Intn(4),
			ops: 5 + r.Intn(40), atomics: r.Intn(2) == 0}
		tr, text := genTrace(r, p)
		if it%4 == 0 {
			tr = synthChan(4+r.Intn(20), 1+r.Intn(6), 200+r.Intn(800), r.Int63())
			text = "synthChan"
		}
		c := newCTP(tr)
		m := newMemory(c)
		_, err := newClocks(context.Background(), c, m, clockMode{rfCheck: true, relaxed: relaxedOf(t, tr, c, m), budget: 1 + r.Int63n(400)})
		var hb *historyBudgetError
		if !errors.As(err, &hb) {
			continue
		}
		stopped++
		h, err := hb.Index.result()
		if err != nil {
			t.Fatal(err)
		}
		got := &clocks{c: c, h: h, rfImplied: hb.RFImplied}
		pt := tr.Prefix(hb.At)
		pc := newCTPObserved(pt, c.observed)
		pm := newMemory(pc)
		want, err := newClocks(context.Background(), pc, pm, clockMode{rfCheck: true, relaxed: relaxedOf(t, pt, pc, pm)})
		if err != nil {
			t.Fatal(err)
		}
		for g := range pc.byG {
			for q := int32(0); q <= int32(len(pc.byG[g])); q++ {
				for k := int32(0); k < int32(len(pc.byG)); k++ {
					if a, b := got.knows(int32(g), q, k), want.knows(int32(g), q, k); a != b {
						t.Fatalf("it %d: stopped at event %d of %d: goroutine %d after %d events knows %d of goroutine %d, a pass of the prefix says %d\n%s",
							it, hb.At, len(tr.Events), g, q, a, k, b, text)
					}
				}
			}
		}
		if got.rfImplied && !want.rfImplied {
			t.Fatalf("it %d: read-from implied in the stopped pass, not in the prefix's\n%s", it, text)
		}
	}
	if stopped < 100 {
		t.Fatalf("only %d of 400 passes stopped by their budget", stopped)
	}
}
