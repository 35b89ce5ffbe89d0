// This file tests the sound layers (race_layers.go) differentially: on random
// traces, seer's race site pairs contain those of the SHB baseline and
// those of a brute-force sync-preserving closure written from the
// definitions (Mathur, Pavlogiannis and Viswanathan, POPL 2021), and every
// finding's witness passes the checker.

package predict

import (
	"context"
	"flag"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

var layersN = flag.Int("layers.n", 3000, "random traces in the layers' differential test")

// raceSites returns the race findings' pairs of source lines.
func raceSites(t *trace.Trace, fs []Finding) map[[2]int]bool {
	out := map[[2]int]bool{}
	for _, f := range fs {
		if f.Kind == KindRace {
			out[linePair(t, f.Events[0], f.Events[1])] = true
		}
	}
	return out
}

func linePair(t *trace.Trace, a, b int) [2]int {
	x, y := t.Site(&t.Events[a]).Line, t.Site(&t.Events[b]).Line
	return [2]int{min(x, y), max(x, y)}
}

// TestLayersContainSHBAndSyncP is the differential test of issue 12:
// findings(seer) ⊇ findings(SHB) and ⊇ the sync-preserving races, on
// traces of several thread, lock and variable counts, with every witness
// re-checked (analyze does that).
func TestLayersContainSHBAndSyncP(t *testing.T) {
	n := *layersN
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewSource(7))
	var shbSites, syncSites, seerSites, traces, events int
	for k := 0; k < n; k++ {
		p := genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(4), sigs: r.Intn(3),
			ops: 2 + r.Intn(10), atomics: r.Intn(3) == 0, tx: r.Intn(3) == 0, cut: 0.01}
		if k%50 == 0 { // now and then a longer one: repeated sites
			p.ops, p.goroutines = 200+r.Intn(400), 2+r.Intn(14)
		}
		tr, text := genTrace(r, p)
		traces++
		events += len(tr.Events)
		// The SHB layer under a tiny memory budget, so that its passes
		// spill (clock_spill.go): what it proves must not change.
		budget, restore := tinySHBBudget()
		res := analyze(t, tr, Options{NoAtomicity: true, SHBBudget: budget})
		restore()
		seer := raceSites(tr, res.Findings)
		// Predicted is the run's own happens-before, whichever layer
		// proved the race (SHB's are not asked: they are observed).
		c := newCTP(tr)
		for _, f := range res.Findings {
			if f.Kind != KindRace {
				continue
			}
			a, b := int32(f.Events[0]), int32(f.Events[1])
			if hb := tr.Events[a].G == tr.Events[b].G || hbBefore(c, []hbQuery{{a, b}}) != 0; hb != f.Predicted {
				t.Fatalf("race %v: predicted %v, but happens-before says %v\n%s", f.Events, f.Predicted, hb, text)
			}
		}
		shb := raceSites(tr, analyze(t, tr, Options{Analysis: AnalysisSHB}).Findings)
		seerSites += len(seer)
		shbSites += len(shb)
		for sp := range shb {
			if !seer[sp] {
				t.Fatalf("seer misses the SHB race at lines %v\n%s", sp, text)
			}
		}
		if len(tr.Events) > 400 {
			continue // the brute force is quadratic
		}
		sp := syncPreservingRaces(tr)
		syncSites += len(sp)
		for pair := range sp {
			if !seer[pair] {
				t.Fatalf("seer misses the sync-preserving race at lines %v\n%s", pair, text)
			}
		}
	}
	t.Logf("%d traces, %d events: site pairs: seer %d, shb %d, sync-preserving (small traces) %d",
		traces, events, seerSites, shbSites, syncSites)
}

// syncPreservingRaces returns the line pairs of every conflicting pair
// whose sync-preserving closure holds neither access, computed per pair
// by a fixpoint over events (not clocks).
func syncPreservingRaces(t *trace.Trace) map[[2]int]bool {
	o := Options{}
	o = o.defaults()
	c := newCTP(t)
	m := newMemory(c)
	e, err := prePass(context.Background(), t, c, m, o)
	if err != nil {
		panic(err)
	}
	out := map[[2]int]bool{}
	var acc []int32
	for i := range c.ev {
		if m.shared(int32(i)) {
			acc = append(acc, int32(i))
		}
	}
	for x, a := range acc {
		for _, b := range acc[x+1:] {
			ea, eb := &c.ev[a], &c.ev[b]
			if ea.G == eb.G || !(isWrite(ea.Op) || isWrite(eb.Op)) || (ea.Op.IsAtomic() && eb.Op.IsAtomic()) ||
				!overlap(ea.Addr, ea.Size, eb.Addr, eb.Size) {
				continue
			}
			if in := spClosure(e, a, b); !in[a] && !in[b] {
				out[linePair(t, int(a), int(b))] = true
			}
		}
	}
	return out
}

// spClosure is the smallest set of events that holds every event before
// a or b in program order and is closed under program order, fixed
// synchronisation (c.sources), the writers of the reads whose value
// matters, and the lock closure.
func spClosure(e *engine, a, b int32) map[int32]bool {
	c := e.c
	in := map[int32]bool{}
	var work []int32
	add := func(i int32) {
		for g, p := int32(c.ev[i].G), c.pos[i]; p >= 1 && !in[c.at(g, p)]; p-- {
			in[c.at(g, p)] = true
			work = append(work, c.at(g, p))
		}
	}
	for _, x := range [2]int32{a, b} {
		if c.pos[x] > 1 {
			add(c.at(int32(c.ev[x].G), c.pos[x]-1))
		}
	}
	for {
		for len(work) > 0 {
			i := work[len(work)-1]
			work = work[:len(work)-1]
			c.sources(i, add)
			if e.keepsWriter(i) {
				for _, w := range e.m.writers(i) {
					if w >= 0 {
						add(w)
					}
				}
			}
		}
		// Lock closure: of two sections of a lock whose acquires are in
		// the set (not both shared), the earlier one's release is too.
		grew := false
		for k, ss := range c.cs {
			for _, s := range ss {
				if !in[c.at(k.g, s.acq)] || (s.rel != 0 && in[c.at(k.g, s.rel)]) {
					continue
				}
				for k2, ss2 := range c.cs {
					if k2.l != k.l {
						continue
					}
					for _, s2 := range ss2 {
						if x := c.at(k2.g, s2.acq); in[x] && x > c.at(k.g, s.acq) && !(s.shared && s2.shared) {
							if s.rel == 0 {
								return map[int32]bool{a: true, b: true} // never released: no witness
							}
							if !in[c.at(k.g, s.rel)] {
								add(c.at(k.g, s.rel))
								grew = true
							}
						}
					}
				}
			}
		}
		if !grew {
			return in
		}
	}
}

// TestLayersOnTraceShapes checks the shapes named in issue 12: a race the
// recorded run itself shows (a write under a lock, then an unguarded read
// of the same map, adjacent), and races that need a critical section left
// out (sync-preserving) rather than everything that happened before.
func TestLayersOnTraceShapes(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        string // describe() of the findings
		layer       string // the stage that proves them
	}{{
		name: "observed: write under a lock, adjacent unguarded read",
		trace: `T1|fork(T2)|1
T1|acq(L)|2
T1|w(m)|3
T2|r(m)|4
T1|rel(L)|5
`,
		want: "race 3-4", layer: "shb",
	}, {
		name: "sync-preserving: the earlier critical section is left out",
		trace: `T1|fork(T2)|1
T1|w(x)|2
T1|acq(L)|3
T1|w(y)|4
T1|rel(L)|5
T2|acq(L)|6
T2|r(z)|7
T2|rel(L)|8
T2|w(x)|9
`,
		want: "race 2-9 predicted", layer: "sync-preserving",
	}, {
		// The shape of the race that OSR (Shi, Mathur and Pavlogiannis,
		// PLDI 2024) finds and sync-preservation cannot: T7's read of x
		// follows, through nested sections of T5 and T6, T6's section on
		// a, which must move ahead of T1's (open at the write) while T2-T4
		// do unrelated work.
		name:  "reversal: a chain of nested sections through seven threads",
		trace: osrChain,
		want:  "race 11-53 predicted", layer: "reversal",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tr := parseTrace(t, tc.trace)
			res := analyze(t, tr, Options{NoAtomicity: true})
			if got := describe(tr, res.Findings); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
			if st := stage(res, tc.layer); st.RaceSites != 1 {
				t.Errorf("stage %s proved %d site pairs, want 1", tc.layer, st.RaceSites)
			}
		})
	}
}

// TestNearPairs checks the sync-preserving layer's choice against a
// brute force over every pair of two classes: each pair it returns is
// unordered, and the closest unordered pair is among them.
func TestNearPairs(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for k := 0; k < 300; k++ {
		tr, text := genTrace(r, syncParams(r))
		o := Options{}
		o = o.defaults()
		c := newCTP(tr)
		m := newMemory(c)
		e, err := prePass(context.Background(), tr, c, m, o)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := findCandidates(context.Background(), c, m, e.mhb, &o, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rc := range cs.racePairs {
			A, B := &cs.cl[rc[0]], &cs.cl[rc[1]]
			got := nearPairs(c, e.mhb, A, B, siteKey{}, 1000)
			wantD := int32(-1)
			for _, a := range A.evs {
				for _, b := range B.evs {
					if e.mhb.concurrent(a, b) {
						if d := max(a, b) - min(a, b); wantD < 0 || d < wantD {
							wantD = d
						}
					}
				}
			}
			gotD := int32(-1)
			for _, cd := range got {
				x, y := cd.ev[0], cd.ev[1]
				if !e.mhb.concurrent(x, y) || x >= y ||
					!(slices.Contains(A.evs, x) && slices.Contains(B.evs, y) || slices.Contains(B.evs, x) && slices.Contains(A.evs, y)) {
					t.Fatalf("pair %v is not an unordered pair of classes %v %v\n%s", cd.ev, A.evs, B.evs, text)
				}
				if gotD < 0 || y-x < gotD {
					gotD = y - x
				}
			}
			if gotD != wantD {
				t.Fatalf("classes %v %v: closest distance %d, want %d\n%s", A.evs, B.evs, gotD, wantD, text)
			}
		}
	}
}

const osrChain = `T1|fork(T2)|1
T1|fork(T3)|2
T1|fork(T4)|3
T1|fork(T5)|4
T1|fork(T6)|5
T1|fork(T7)|6
T1|acq(a)|10
T1|w(x)|11
T1|rel(a)|12
T2|acq(d)|20
T2|w(p)|21
T2|rel(d)|22
T3|acq(d)|23
T3|r(p)|24
T3|rel(d)|25
T4|acq(e)|26
T4|w(q)|27
T4|rel(e)|28
T5|acq(b)|30
T5|w(u)|31
T5|rel(b)|32
T6|acq(a)|40
T6|acq(b)|41
T6|r(u)|42
T6|rel(b)|43
T6|acq(c)|44
T6|w(y)|45
T6|rel(c)|46
T6|rel(a)|47
T7|acq(c)|50
T7|r(y)|51
T7|rel(c)|52
T7|r(x)|53
`

// The SHB layer proves, by itself, every pair of sites that schedulable
// happens-before leaves unordered: its stage counts as many pairs of
// sites as the shb baseline reports races (one per pair of sites), and as
// many unordered pairs of accesses. The
// later layers would prove most of them too, so that the differential
// test above cannot tell whether SHB proved them.
func TestSHBLayerProvesSHBSites(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	type test struct {
		tr   *trace.Trace
		text string
	}
	var tests []test
	for k := 0; k < 300; k++ {
		p := genParams{goroutines: 2 + r.Intn(6), vars: 1 + r.Intn(4), locks: r.Intn(4), sigs: r.Intn(3),
			ops: 2 + r.Intn(10), atomics: r.Intn(3) == 0, cut: 0.01}
		tr, text := genTrace(r, p)
		tests = append(tests, test{tr, text})
	}
	// Longer runs, whose goroutines access a location at one site many
	// times (the layer counts them all).
	for seed := int64(1); seed <= 4; seed++ {
		tests = append(tests, test{synth(synthParams{goroutines: 6, locks: 2, vars: 8, events: 3000, racy: 0.05, seed: seed}), "synth"})
	}
	proved, counted := 0, int64(0)
	for k, tc := range tests {
		res := analyze(t, tc.tr, Options{NoAtomicity: true})
		i := slices.IndexFunc(res.Stats.Stages, func(s Stage) bool { return s.Name == "shb" })
		if i < 0 {
			t.Fatal("no shb stage")
		}
		want := 0
		base := historyBaseline(t, tc.tr, AnalysisSHB) // race_baseline_test.go: not the layer's table
		for _, f := range base.Findings {
			if f.Kind == KindRace {
				want++
			}
		}
		if got := res.Stats.Stages[i].RaceSites; got != want {
			t.Fatalf("trace %d: the SHB layer proved %d pairs of sites, the shb baseline finds %d\n%s", k, got, want, tc.text)
		}
		// And it counts the same unordered pairs of accesses (the
		// baseline's happens-before row, which is SHB's there).
		j := slices.IndexFunc(base.Stats.Stages, func(s Stage) bool { return s.Name == "happens-before" })
		if got, want := res.Stats.Stages[i].Races, base.Stats.Stages[j].Races; got != want {
			t.Fatalf("trace %d: the SHB layer counted %d unordered pairs of accesses, the shb baseline %d\n%s", k, got, want, tc.text)
		}
		proved += want
		counted += base.Stats.Stages[j].Races - int64(want)
	}
	if proved == 0 || counted == 0 {
		t.Fatalf("%d SHB races, %d more pairs at their sites: the test says little", proved, counted)
	}
}

// The SHB layer's table (race_shb_table.go) finds an access's entry the same
// way whether its groups index their entries (by hash, chained) or scan
// them, and keeps the same positions whether its pool is compacted at
// every chance or never.
func TestSHBIndexLikeScan(t *testing.T) {
	defer func(n, m int) { shbIndexAt, shbCompactAt = n, m }(shbIndexAt, shbCompactAt)
	traces := randomTraces(23, 60, func(r *rand.Rand, _ int) genParams {
		return genParams{goroutines: 2 + r.Intn(4), vars: 1 + r.Intn(3), locks: r.Intn(3), sigs: r.Intn(3),
			ops: 20 + r.Intn(40), atomics: r.Intn(2) == 0, cut: 0.01}
	}, true)
	for k, tr := range traces {
		var res [2]*Result
		for j, at := range []int{1, 1 << 30} {
			shbIndexAt, shbCompactAt = at, at-1
			// No solve may run out of time in one and not the other
			// (under -race on a loaded machine, a 2 s bound can).
			res[j] = analyze(t, tr, Options{NoAtomicity: true, SolveTimeout: time.Hour})
		}
		shb := func(r *Result) Stage {
			i := slices.IndexFunc(r.Stats.Stages, func(s Stage) bool { return s.Name == "shb" })
			s := r.Stats.Stages[i]
			s.Time = 0
			return s
		}
		if a, b := shb(res[0]), shb(res[1]); a != b {
			t.Fatalf("trace %d: shb stage indexed %+v, scanned %+v", k, a, b)
		}
		if !reflect.DeepEqual(res[0].Findings, res[1].Findings) {
			t.Fatalf("trace %d: findings differ, indexed and scanned", k)
		}
	}
}
