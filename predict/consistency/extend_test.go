// This file tests the SC and TSO checks' extension of the partial store
// order (extend.go, schedule.go) against the SAT solve alone, which was
// the whole check before it, and the witnesses it returns against
// VerifyWitness; and it checks that 10,000-operation histories are
// decided well within the solver's bound.

package consistency

import (
	"flag"
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// satDecide is the check's last step as it was before extend.go: the
// solver over pww's (wpww's) closure. It is run after the polynomial
// check passed; it reports whether the history is consistent.
func satDecide(t testing.TB, h *History, m Model) bool {
	t.Helper()
	g := build(h, nil)
	c := newChecker(g)
	var v *Violation
	if m == SC {
		v = c.gradual(c.cc, c.ccv, c.cm, c.ccm)
	} else {
		v = c.gradual(c.thinAir, c.wccm)
	}
	if v != nil {
		return false
	}
	e := newSatEnc(c, m)
	x := newExtender(c, m)
	e.fix(x.after)
	ok, _ := e.solve(nil)
	if e.undecided {
		t.Fatal("the solver alone ran out of time")
	}
	return ok
}

// checkWitness fails t unless a consistent SC or TSO result carries a
// witness that VerifyWitness accepts.
func checkWitness(t testing.TB, h *History, res *Result) {
	t.Helper()
	if !res.Consistent || res.Model != SC && res.Model != TSO {
		return
	}
	if res.Witness == nil {
		t.Fatalf("%s: consistent with no witness\n%s", res.Model, h)
	}
	if err := VerifyWitness(h, res.Model, res.Witness); err != nil {
		t.Fatalf("%s: the witness is not one: %v\n%s", res.Model, err, h)
	}
}

var extendN = flag.Int("extend.n", 1500, "TestExtendAgreesWithSolver: number of histories")

// TestExtendAgreesWithSolver compares the check with the solver alone on
// random histories larger than the exhaustive oracle of oracle_test.go
// can take (TestOracle covers the small ones), and checks every witness.
func TestExtendAgreesWithSolver(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	n := *extendN
	if testing.Short() {
		n = 300
	}
	counts := map[Model]*[3]int{SC: {}, TSO: {}}
	for i := range n {
		var h *History
		switch i % 4 {
		case 0:
			h = randomHistory(rng, 2+rng.Intn(4), 2+rng.Intn(8), 1+rng.Intn(3))
		case 1:
			// Near-consistent: a simulated run with one read changed,
			// so that most reach the search.
			h = scRun(rng.Int63(), 2+rng.Intn(4), 8+rng.Intn(40), 1+rng.Intn(4))
			mutate(rng, h)
		default:
			// Runs of weaker memories: TSO's are rarely SC, PSO's
			// rarely TSO, and some of each pass the weak criterion.
			h = simRun(rng.Int63(), 2+rng.Intn(3), 6+rng.Intn(30), 1+rng.Intn(3), memory(1+i%4/3))
		}
		for _, m := range []Model{SC, TSO} {
			res, err := Check(h, m)
			if err != nil {
				t.Fatal(err)
			}
			want := satDecide(t, h, m)
			if res.Consistent != want || res.Undecided {
				t.Fatalf("history %d under %s: consistent=%v (undecided %v), the solver says %v\n%s%v", i, m, res.Consistent, res.Undecided, want, h, res.Violation)
			}
			checkWitness(t, h, res)
			switch v := res.Violation; {
			case v == nil:
				counts[m][0]++
			case v.Model == m:
				counts[m][1]++
			default:
				counts[m][2]++
			}
		}
	}
	for _, m := range []Model{SC, TSO} {
		t.Logf("%s: %d consistent, %d rejected after the weak criterion, %d by it", m, counts[m][0], counts[m][1], counts[m][2])
	}
}

// mutate changes one read of h, with even odds, to read another value
// written to its key (or 0).
func mutate(rng *rand.Rand, h *History) {
	if rng.Intn(2) == 0 {
		return
	}
	written := map[string][]int64{}
	var reads []*Op
	for _, p := range h.procs {
		for i := range p.Ops {
			o := &p.Ops[i]
			if o.Kind == Write {
				written[o.Key] = append(written[o.Key], o.Value)
			} else {
				reads = append(reads, o)
			}
		}
	}
	if len(reads) == 0 {
		return
	}
	r := reads[rng.Intn(len(reads))]
	vs := append(written[r.Key], 0)
	r.Value = vs[rng.Intn(len(vs))]
}

// TestWitnessOracle checks every witness on the oracle's small random
// histories.
func TestWitnessOracle(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for range 1000 {
		h := randomHistory(rng, 2+rng.Intn(2), 3, 1+rng.Intn(2))
		for _, m := range []Model{SC, TSO} {
			res, err := Check(h, m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Consistent != oracleCheck(h, m) {
				t.Fatalf("%s: consistent=%v, the oracle disagrees\n%s", m, res.Consistent, h)
			}
			checkWitness(t, h, res)
		}
	}
}

// TestLargeSC decides SC and TSO on 10,000-operation simulated runs well
// within a bound that the solver alone runs out of (it left the first
// undecided after a minute).
func TestLargeSC(t *testing.T) {
	for _, tc := range []struct {
		m                Model
		procs, ops, keys int
		seed             int64
	}{
		{SC, 8, 10000, 16, 3},
		{SC, 4, 10000, 1, 3},
		{TSO, 4, 10000, 1, 3},
	} {
		t.Run(fmt.Sprintf("%s/p=%d/k=%d", tc.m, tc.procs, tc.keys), func(t *testing.T) {
			h := scRun(tc.seed, tc.procs, tc.ops, tc.keys)
			res, err := CheckContext(t.Context(), h, tc.m, Options{Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Consistent {
				t.Fatalf("not decided consistent: undecided=%v %v", res.Undecided, res.Violation)
			}
			checkWitness(t, h, res)
		})
	}
}

// TestExtendFromNothing runs saturation and the search alone, from an
// empty partial store order (no weak criterion first), against the
// exhaustive oracle: so that their inconsistent answers are tested on
// every shape of violation, not only on the few that pass CCM or wCCM.
func TestExtendFromNothing(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	n := 2500
	if testing.Short() {
		n = 500
	}
	var bySaturation, bySearch [2]int
	for range n {
		h := randomHistory(rng, 2+rng.Intn(2), 3, 1+rng.Intn(2))
		if h.Len() > 9 {
			continue
		}
		for i, m := range []Model{SC, TSO} {
			g := build(h, nil)
			c := newChecker(g)
			c.pwwOut = make([][]int32, len(g.nodes))
			x := newExtender(c, m)
			want := oracleCheck(h, m)
			if cyc, _ := x.saturate(); cyc != nil {
				if want {
					t.Fatalf("%s: saturation finds a cycle in a consistent history\n%s", m, h)
				}
				bySaturation[i]++
				continue
			}
			trace, exhausted := x.schedule()
			if exhausted {
				t.Fatalf("%s: the search ran out on %d operations", m, h.Len())
			}
			if (trace != nil) != want {
				t.Fatalf("%s: the search says consistent=%v, the oracle %v\n%s", m, trace != nil, want, h)
			}
			if trace == nil {
				bySearch[i]++
				continue
			}
			if err := VerifyWitness(h, m, x.refs(trace)); err != nil {
				t.Fatalf("%s: %v\n%s", m, err, h)
			}
		}
	}
	t.Logf("inconsistent by saturation: SC %d, TSO %d; by the search: SC %d, TSO %d", bySaturation[0], bySaturation[1], bySearch[0], bySearch[1])
}
