// This file tests seer's vector-clock passes and race layers against the
// naive oracle of naive_oracle_test.go, which shares none of their code:
// on random traces of every kind of synchronisation (gen_test.go, some
// with partly overlapping accesses as checkprop_test.go makes them, some
// with synchronisation on plain variables' own addresses, some with
// sync.Once's atomics), on
// the synthetic lock, worker-pool and channel-stress traces
// (bench_test.go, chanstress_test.go), on issue 31's ring
// (internal/synth) and on the recorded trace of trace/testdata, it checks
//
//   - the passes' before and concurrent answers (clock_pass.go) for
//     must-happen-before, happens-before, schedulable happens-before and
//     the causal cone,
//     on every pair of events of a small trace and on sampled pairs of a
//     larger one;
//   - the hb and shb baselines (race_baseline.go): the same pairs of
//     sites, each with the same number of unordered pairs of accesses,
//     and each finding's pair one the oracle leaves unordered;
//   - seer's own analysis, on the small traces, with the SHB layer's
//     clocks spilled now and then: its SHB layer counts the oracle's
//     SHB-unordered pairs and pairs of sites, every pair of sites the
//     oracle finds SHB-unordered is reported as a race, and a race is
//     marked observed exactly when the oracle's happens-before leaves it
//     unordered.
//
// A filter that drops a race the run itself showed is a bug; this is the
// differential test against simpler sound relations that must catch it.
//
//	go test ./predict -run 'Naive|Oracle'
//	go test ./predict -run Naive -naive.n 3000 -naive.seed 5   # a larger sweep
//	go test ./predict -run Naive -naive.big                    # larger synthetic traces

package predict

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

var (
	naiveN    = flag.Int("naive.n", 240, "random traces in the naive oracle's differential tests")
	naiveSeed = flag.Int64("naive.seed", 77, "seed of the naive oracle's random traces")
	naiveBig  = flag.Bool("naive.big", false, "add larger synthetic traces to the naive oracle's differential tests")
)

// naiveCase is one trace of the differential tests, named for failures.
type naiveCase struct {
	name string
	t    *trace.Trace
	// seer: also run the whole analysis (small traces: the solver
	// tries what SHB leaves).
	seer bool
}

// naiveCorpus returns the traces the differential tests run on.
func naiveCorpus(tb testing.TB) []naiveCase {
	tb.Helper()
	var out []naiveCase
	r := rand.New(rand.NewSource(*naiveSeed))
	for k := 0; k < *naiveN; k++ {
		p := syncParams(r)
		p.goroutines += r.Intn(4)
		if k%8 == 0 { // a few larger ones
			p.goroutines += r.Intn(10)
			p.ops += r.Intn(20)
		}
		p.nestedRead = r.Intn(4) == 0
		p.tx = r.Intn(4) == 0
		tr, text := genTrace(r, p)
		switch r.Intn(4) {
		case 0:
			mixSizes(r, tr)
		case 1:
			aliasSync(r, tr)
		case 2:
			// sync.Once's atomics: a check loads, a done stores.
			for i := range tr.Events {
				if e := &tr.Events[i]; e.Op == trace.OpAtomicLoad && r.Intn(2) == 0 {
					e.Op = trace.OpOnceCheck
				} else if e.Op == trace.OpAtomicStore && r.Intn(2) == 0 {
					e.Op = trace.OpOnceDone
				}
			}
		}
		out = append(out, naiveCase{name: fmt.Sprintf("random %d:\n%s", k, text), t: tr, seer: len(tr.Events) <= 60})
	}
	out = append(out,
		naiveCase{name: "synth locks", t: synth(synthParams{goroutines: 8, locks: 3, vars: 12, events: 3_000, racy: 0.01, seed: 5})},
		naiveCase{name: "synth pool", t: synth(synthParams{goroutines: 40, locks: 2, vars: 8, events: 3_000, racy: 0.01, seed: 6, pool: true})},
		naiveCase{name: "synth chan", t: synthChan(6, 3, 300, 2)},
	)
	for _, shape := range [][2]int{{2, 3}, {5, 4}, {30, 3}} {
		tr, err := synthtrace.Ring(shape[0], shape[1])
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, naiveCase{name: fmt.Sprintf("ring %v", shape), t: tr})
	}
	if *naiveBig {
		tr, err := synthtrace.Ring(200, 4)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out,
			naiveCase{name: "ring [200 4]", t: tr},
			naiveCase{name: "synth pool, larger", t: synth(synthParams{goroutines: 300, locks: 4, vars: 32, events: 20_000, racy: 0.002, seed: 7, pool: true})},
			naiveCase{name: "synth locks, larger", t: synth(synthParams{goroutines: 20, locks: 3, vars: 16, events: 20_000, racy: 0.002, seed: 9})},
			naiveCase{name: "synth chan, larger", t: synthChan(50, 10, 5_000, 1)},
		)
	}
	saved, err := trace.ReadFile("../trace/testdata/format/small.v1.seertrace")
	if err != nil {
		tb.Fatal(err)
	}
	out = append(out, naiveCase{name: "recorded small.v1", t: saved, seer: true})
	return out
}

// aliasSync moves about half of t's generic synchronisation (release,
// acquire, release-merge, release-acquire) onto the addresses of its
// variables, plain or atomic, so that one address carries
// synchronisation and accesses at once (TestNaiveOracleMixedAddress).
func aliasSync(r *rand.Rand, t *trace.Trace) {
	var addrs []uint64
	for i := range t.Events {
		if e := &t.Events[i]; e.IsMem() {
			addrs = append(addrs, e.Addr)
		}
	}
	if len(addrs) == 0 {
		return
	}
	for i := range t.Events {
		e := &t.Events[i]
		switch e.Op {
		case trace.OpAcquire, trace.OpRelease, trace.OpReleaseMerge, trace.OpReleaseAcquire:
			if r.Intn(2) == 0 {
				e.Addr = addrs[r.Intn(len(addrs))]
			}
		}
	}
}

// naivePairs returns the pairs of events to ask about: all of a small
// trace's, else a sample.
func naivePairs(r *rand.Rand, n int) [][2]int32 {
	var out [][2]int32
	if n <= 120 {
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if a != b {
					out = append(out, [2]int32{int32(a), int32(b)})
				}
			}
		}
		return out
	}
	for range 20_000 {
		a, b := r.Intn(n), r.Intn(n)
		if a == b {
			continue
		}
		// Half the pairs near each other, where orderings are decided.
		if r.Intn(2) == 0 {
			b = min(n-1, a+1+r.Intn(50))
			if a == b {
				continue
			}
		}
		out = append(out, [2]int32{int32(a), int32(b)})
	}
	return out
}

// naiveModes are the passes Analyze and the baselines run, with the
// relation each computes.
// Those marked chains count per chain of goroutines (clock_chain.go), as
// Analyze's run.
var naiveModes = []struct {
	rel    naiveRel
	mode   clockMode
	chains bool
}{
	{naiveMHB, clockMode{rfCheck: true}, false}, // Analyze's must-happen-before
	{naiveMHB, clockMode{rfCheck: true}, true},
	{naiveMHB, clockMode{}, false},
	{naiveHB, clockMode{locks: true}, false},                          // the hb baseline's
	{naiveSHB, clockMode{locks: true, serial: true, rf: true}, false}, // the shb baseline's
	{naiveSHB, clockMode{locks: true, serial: true, rf: true}, true},
	{naiveCone, clockMode{rf: true, acqRises: true}, false}, // Analyze's cone (no relaxed reads)
	{naiveCone, clockMode{rf: true, acqRises: true}, true},
}

// checkNaiveClocks compares the passes' answers with the oracle's on
// sampled pairs of events; it returns the first difference, or "".
func checkNaiveClocks(tr *trace.Trace, oracles [4]*naiveClocks, r *rand.Rand) string {
	c := newCTP(tr)
	m := newMemory(c)
	pairs := naivePairs(r, len(tr.Events))
	for _, md := range naiveModes {
		mode := md.mode
		if md.chains {
			mode.chains = newChainMap(c)
		}
		clk, err := newClocks(context.Background(), c, m, mode)
		if err != nil {
			return err.Error()
		}
		o := oracles[md.rel]
		for _, pr := range pairs {
			a, b := pr[0], pr[1]
			if got, want := clk.before(a, b), o.before(a, b); got != want {
				return fmt.Sprintf("%v (pass %+v): before(%d %v, %d %v) = %v, oracle %v", md.rel, md.mode, a, tr.Events[a].Op, b, tr.Events[b].Op, got, want)
			}
			if got, want := clk.concurrent(a, b), o.concurrent(a, b); got != want {
				return fmt.Sprintf("%v (pass %+v): concurrent(%d %v, %d %v) = %v, oracle %v", md.rel, md.mode, a, tr.Events[a].Op, b, tr.Events[b].Op, got, want)
			}
		}
	}
	return ""
}

// baselineSites runs a baseline and returns its race findings' counts by
// pair of sites. It fails if a finding's pair of accesses is not one that
// o leaves unordered.
func baselineSites(tr *trace.Trace, analysis string, o *naiveClocks) (map[naiveSitePair]int64, error) {
	res, err := Analyze(context.Background(), tr, Options{Analysis: analysis})
	if err != nil {
		return nil, err
	}
	out := map[naiveSitePair]int64{}
	for _, f := range res.Findings {
		if f.Kind != KindRace {
			continue
		}
		a, b := f.Events[0], f.Events[1]
		if !naiveConflict(&tr.Events[a], &tr.Events[b]) || !o.concurrent(int32(a), int32(b)) {
			return nil, fmt.Errorf("%s finding %d-%d: the oracle's %v finds no race there", analysis, a, b, o.rel)
		}
		out[naiveSites(tr, a, b)] += int64(f.Count)
	}
	return out, nil
}

// checkNaiveSeer runs seer's analysis of races and compares it with the
// oracle's SHB and HB races; shbBudget, if positive, makes the SHB layer
// spill its clocks.
func checkNaiveSeer(tr *trace.Trace, hb *naiveClocks, shb naiveRaces, shbBudget int64) string {
	opts := Options{NoAtomicity: true, NoDeadlocks: true, NoMisuse: true, SolveTimeout: time.Second, SHBBudget: shbBudget}
	res, err := Analyze(context.Background(), tr, opts)
	if err != nil {
		return err.Error()
	}
	if st := stage(res, "shb"); st.Races != shb.total || st.RaceSites != len(shb.bySites) {
		return fmt.Sprintf("the shb layer counts %d unordered pairs at %d pairs of sites, the oracle %d at %d", st.Races, st.RaceSites, shb.total, len(shb.bySites))
	}
	reported := map[naiveSitePair]bool{}
	for _, f := range res.Findings {
		if f.Kind != KindRace {
			continue
		}
		a, b := f.Events[0], f.Events[1]
		if !naiveConflict(&tr.Events[a], &tr.Events[b]) {
			return fmt.Sprintf("race %d-%d: the accesses do not conflict", a, b)
		}
		if observed := hb.concurrent(int32(a), int32(b)); f.Predicted == observed {
			return fmt.Sprintf("race %d-%d: predicted %v, but the oracle's happens-before leaves it unordered: %v", a, b, f.Predicted, observed)
		}
		reported[naiveSites(tr, a, b)] = true
	}
	for k := range shb.bySites {
		if !reported[k] {
			return fmt.Sprintf("the oracle's SHB race at %v is not reported", k)
		}
	}
	return ""
}

// The passes order every pair of events as the naive oracle does.
func TestNaiveOracleClocks(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, tc := range naiveCorpus(t) {
		var oracles [4]*naiveClocks
		for rel := naiveMHB; rel <= naiveCone; rel++ {
			oracles[rel] = newNaiveClocks(tc.t, rel)
		}
		// As the passes run, then with every clock dense, then sparse
		// with a base made at every join (dense_test.go's withJoins).
		for _, j := range []struct{ on, dense bool }{{false, false}, {true, true}, {true, false}} {
			var d string
			if !j.on {
				d = checkNaiveClocks(tc.t, oracles, r)
			} else {
				withJoins(j.dense, true, func() { d = checkNaiveClocks(tc.t, oracles, r) })
			}
			if d != "" {
				t.Fatalf("%s\n(joins forced %v, dense %v) %s", tc.name, j.on, j.dense, d)
			}
		}
	}
}

// The baselines report the pairs of sites the naive oracle leaves
// unordered, each with as many pairs of accesses; seer's analysis
// reports every SHB race of the oracle's.
func TestNaiveOracleRaces(t *testing.T) {
	var seerRuns int
	var hbPairs, shbPairs int64
	for k, tc := range naiveCorpus(t) {
		hb := newNaiveClocks(tc.t, naiveHB)
		shb := newNaiveClocks(tc.t, naiveSHB)
		hbR, shbR := hb.races(), shb.races()
		hbPairs, shbPairs = hbPairs+hbR.total, shbPairs+shbR.total
		for _, b := range []struct {
			analysis string
			o        *naiveClocks
			want     naiveRaces
		}{{AnalysisHB, hb, hbR}, {AnalysisSHB, shb, shbR}} {
			got, err := baselineSites(tc.t, b.analysis, b.o)
			if err != nil {
				t.Fatalf("%s\n%v", tc.name, err)
			}
			if d := diffSiteCounts(b.want.bySites, got); d != "" {
				t.Fatalf("%s\nthe %s baseline differs from the oracle: %s", tc.name, b.analysis, d)
			}
		}
		if !tc.seer {
			continue
		}
		seerRuns++
		// Every fourth with the SHB layer's clocks spilled before every
		// event (clock_spill_test.go's tinySHBBudget).
		budget, restore := int64(0), func() {}
		if k%4 == 0 {
			budget, restore = tinySHBBudget()
		}
		d := checkNaiveSeer(tc.t, hb, shbR, budget)
		restore()
		if d != "" {
			t.Fatalf("%s\nseer's analysis (SHB budget %d): %s", tc.name, budget, d)
		}
	}
	t.Logf("%d HB-unordered and %d SHB-unordered pairs of accesses; %d traces through seer's analysis", hbPairs, shbPairs, seerRuns)
}

// lines renders the pairs of sites by their lines, e.g. "1-4 2-3".
func (r naiveRaces) lines() string {
	var out []string
	for k := range r.bySites {
		out = append(out, fmt.Sprintf("%d-%d", k[0].Line, k[1].Line))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// The oracle itself, on traces whose races the definitions decide by
// hand: the pairs of lines each relation leaves unordered, and that the
// baselines and seer agree.
func TestNaiveOracleTable(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		hb, shb    string // racing pairs of lines, sorted
	}{
		{"read-from orders the second pair (Mathur et al. §2)", `
T1|w(x)|1
T1|w(y)|2
T2|r(y)|3
T2|r(x)|4`, "1-4 2-3", "2-3"},
		{"locks in observed order", `
T1|acq(L)|1
T1|w(x)|2
T1|rel(L)|3
T2|acq(L)|4
T2|w(x)|5
T2|rel(L)|6`, "", ""},
		{"a release replaces, a merge adds", `
T1|fork(T2)|1
T1|fork(T3)|2
T1|fork(T4)|3
T2|w(x)|4
T2|sig(S)|5
T3|w(y)|6
T3|sig(S)|7
T4|wait(S)|8
T4|r(x)|9
T4|r(y)|10`, "4-9", "4-9"},
		{"merges since the last release", `
T1|fork(T2)|1
T1|fork(T3)|2
T1|fork(T4)|3
T2|w(x)|4
T2|sig(S)|5
T3|w(y)|6
T3|merge(S)|7
T4|wait(S)|8
T4|r(x)|9
T4|r(y)|10`, "", ""},
		{"a read-modify-write releases what it knew before (hb), all it knows (shb)", `
T1|fork(T2)|1
T1|fork(T3)|2
T1|w(x)|3
T1|ast(a)|4
T2|armw(a)|5
T3|ald(a)|6
T3|r(x)|7`, "3-7", ""},
		{"a plain write ends an atomic's release chain", `
T1|fork(T2)|1
T1|fork(T3)|2
T1|w(x)|3
T1|ast(a)|4
T2|w(a)|5
T3|ald(a)|6
T3|r(x)|7`, "3-7 4-5 5-6", "3-7 4-5 5-6"},
		{"join", `
T1|fork(T2)|1
T2|w(x)|2
T1|join(T2)|3
T1|w(x)|4`, "", ""},
	} {
		tr := parseTrace(t, tc.text)
		for _, x := range []struct {
			rel      naiveRel
			analysis string
			want     string
		}{{naiveHB, AnalysisHB, tc.hb}, {naiveSHB, AnalysisSHB, tc.shb}} {
			o := newNaiveClocks(tr, x.rel)
			races := o.races()
			if g := races.lines(); g != x.want {
				t.Errorf("%s: the oracle's %v races are %q, want %q", tc.name, x.rel, g, x.want)
			}
			base, err := baselineSites(tr, x.analysis, o)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffSiteCounts(races.bySites, base); d != "" {
				t.Errorf("%s: the %s baseline differs from the oracle: %s", tc.name, x.analysis, d)
			}
		}
		hb := newNaiveClocks(tr, naiveHB)
		if d := checkNaiveSeer(tr, hb, newNaiveClocks(tr, naiveSHB).races(), 0); d != "" {
			t.Errorf("%s: seer's analysis: %s", tc.name, d)
		}
	}
}

// TestNaiveOracleMixedAddress: where the runtime's generic annotations
// (releases, acquires) and atomics share an address, the passes
// (ctp.go's atomicVar), the naive oracle and the specification
// (package witness; the exhaustive oracle, oracle_test.go) keep them
// apart. Found by this file's tests with aliasSync onto atomics'
// addresses (seeds 21-23 of -naive.n 3000), when the passes kept one
// release chain per address as ThreadSanitizer keeps one clock: an atomic
// load then acquired a generic release (a race the spec shows was
// missed), and an atomic store or a plain write over an atomic hid a
// generic release from a later acquire (the witness lacked the release,
// the checker rejected it, and the whole analysis failed).
func TestNaiveOracleMixedAddress(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		naive      string // the naive oracle's hb races
		races      string // the exhaustive oracle's races, by event pair, and seer's
	}{
		{"an atomic load does not acquire a generic release", `
T1|fork(T2)|1
T2|w(y)|2
T2|sig(x)|3
T1|ald(x)|4
T1|w(y)|5`, "2-5", "[2 5]"},
		{"a plain write over an atomic does not hide a generic release", `
T1|fork(T2)|1
T2|w(y)|2
T2|sig(x)|3
T2|ast(x)|4
T2|w(x)|5
T1|wait(x)|6
T1|w(y)|7`, "", ""},
		{"another goroutine's atomic store does not hide a generic release", `
T1|fork(T2)|1
T1|fork(T3)|2
T2|w(y)|3
T2|sig(x)|4
T3|ast(x)|5
T1|wait(x)|6
T1|w(y)|7`, "", ""},
	} {
		tr := parseTrace(t, tc.text)
		if g := newNaiveClocks(tr, naiveHB).races().lines(); g != tc.naive {
			t.Errorf("%s: the naive oracle's hb races are %q, want %q", tc.name, g, tc.naive)
		}
		o := newOracle(tr, false)
		o.run()
		var spec []string
		for p := range o.races {
			spec = append(spec, fmt.Sprint([]int{p[0], p[1]}))
		}
		slices.Sort(spec)
		if g := strings.Join(spec, " "); g != tc.races {
			t.Errorf("%s: the exhaustive oracle's races are %q, want %q", tc.name, g, tc.races)
		}
		res, err := Analyze(context.Background(), tr, Options{})
		if err != nil {
			t.Errorf("%s: seer: %v", tc.name, err)
			continue
		}
		var seer []string
		for _, f := range res.Findings {
			if f.Kind == KindRace {
				seer = append(seer, fmt.Sprint([]int{f.Events[0], f.Events[1]}))
			} else {
				t.Errorf("%s: seer reports %s", tc.name, describe(tr, []Finding{f}))
			}
		}
		slices.Sort(seer)
		if g := strings.Join(seer, " "); g != tc.races {
			t.Errorf("%s: seer's races are %q, want %q", tc.name, g, tc.races)
		}
	}
}
