// This file tests the read-from filter (cone_readfrom.go): singleflight's
// Add and Wait, and a race that the same read-from edge orders, are
// dropped without the causal cone and are still found when the read saw
// another writer; and, on random programs, the findings with and without
// the filter are the same while it saves closures or the cone.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
	"github.com/seer-tools/seer/trace"
)

// singleflightRun is groupcache's singleflight.Group.Do as two callers
// run it: g2 makes the call (Add, then the map write, under mu), g3 finds
// it (the map read under mu) and waits. %s is where g3's section goes:
// before g2's (it read the map before the call was in it) or after.
const singleflightRun = `
g1 w m @5
g1 go g2
g1 go g3
%s
g2 lock mu @40
g2 r m @41
g2 add wg 1 @52
g2 w m @53
g2 unlock mu @54
%s
g2 done wg @60
g3 wait wg @48
`

const singleflightWaiter = `
g3 lock mu @45
g3 r m @46
g3 unlock mu @47
`

func TestReadFromFilterReuse(t *testing.T) {
	defer func(f bool) { readFromFilter = f }(readFromFilter)
	for _, tc := range []struct {
		name   string
		before bool   // g3's section before g2's in the run
		filter bool   // readFromFilter
		want   string // describe's text of the misuse findings
		tried  int64  // the misuse row's candidates tried
	}{
		// g3's map read saw g2's write, after the Add: no reuse, and
		// the filter knows it without a closure.
		{"waiter read the adder's write", false, true, "", 0},
		{"waiter read the adder's write, no filter", false, false, "", 1},
		// g3's map read saw g1's write: the Wait may run before the Add.
		{"waiter read before the call", true, true, "waitgroup-reuse 48-52 predicted", 1},
		{"waiter read before the call, no filter", true, false, "waitgroup-reuse 48-52 predicted", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readFromFilter = tc.filter
			a, b := "", singleflightWaiter
			if tc.before {
				a, b = b, a
			}
			wantMisuseTried(t, fmt.Sprintf(singleflightRun, a, b), tc.want, tc.tried)
		})
	}
}

// wantMisuseTried builds text (gotext's notation) and checks its misuse
// findings (wantMisuse) and how many candidates the misuse row tried.
func wantMisuseTried(t *testing.T, text, want string, tried int64) {
	t.Helper()
	tr, err := gotext.Build(text)
	if err != nil {
		t.Fatal(err)
	}
	res := wantMisuse(t, tr, want)
	if st := stage(res, "misuse"); st.Misuse != tried {
		t.Errorf("misuse row tried %d candidates, want %d", st.Misuse, tried)
	}
}

// TestReadFromFilterRace: T2's write of y and T3's read of it, which
// the run's locks order (so SHB proves no race) and must-happen-before
// does not. Where T3's read of m saw T2's write after the write of y, the
// filter drops the pair and the cone is not made; where it saw another
// write, the race is found (predicted: the run ordered the sections).
func TestReadFromFilterRace(t *testing.T) {
	const head = `
T1|w(m)|5
T1|fork(T2)|6
T1|fork(T3)|7
`
	cases := []filterCase{
		{"read saw the write after y's", `
T2|w(y)|10
T2|acq(mu)|11
T2|w(m)|12
T2|rel(mu)|13
T3|acq(mu)|18
T3|r(m)|19
T3|rel(mu)|20
T3|r(y)|21
`, "", false},
		{"read saw T1's write", `
T2|w(y)|10
T2|acq(mu)|11
T2|w(n)|12
T2|rel(mu)|13
T3|acq(mu)|18
T3|r(m)|19
T3|rel(mu)|20
T3|r(y)|21
`, "race 10-21 predicted", true},
		// T3's read of m saw T2's write before the write of y: it
		// orders nothing (and races with it).
		{"read saw a write before y's", `
T2|w(m)|9
T2|w(y)|10
T2|acq(mu)|11
T2|rel(mu)|13
T3|r(m)|17
T3|acq(mu)|18
T3|rel(mu)|20
T3|r(y)|21
`, "race 9-17; race 10-21 predicted", true},
		// Two writes of y at line 10: the sweep keeps one pair, the
		// second write's, which T2's read of m orders after the read of
		// y; the first write's pair, which it did not keep, is the race.
		// (T3's write of m and T2's read race too.)
		{"a pair the sweep did not keep", `
T2|w(y)|10
T2|acq(mu)|11
T2|w(n)|12
T2|rel(mu)|13
T3|acq(mu)|18
T3|rel(mu)|20
T3|r(y)|21
T3|w(m)|22
T2|r(m)|23
T2|w(y)|10
`, "race 10-21 predicted; race 22-23", true},
	}
	for k := range cases {
		cases[k].trace = head + cases[k].trace
	}
	filterCases(t, &readFromFilter, cases)
}

// TestReadFromFilterSound compares the findings with and without the
// filter on random programs: for waitgroup-reuse, singleflight-like
// programs (Adds and map writes in critical sections, map reads in
// others, Waits where the counter is zero); for races, the generator's
// programs of locks, signals and atomics. The filter may only save
// closures (reuse) or the cone (races), never change a finding; the test
// also asks that it saved some of each, so that it tests the filter at
// all.
func TestReadFromFilterSound(t *testing.T) {
	defer func(f bool) { readFromFilter = f }(readFromFilter)
	r := rand.New(rand.NewSource(31))
	compare := func(tr *trace.Trace, text string, o Options) (saved, coneSaved bool, found string) {
		t.Helper()
		var got [2]string
		var tried [2]int64
		var cone [2]bool
		for k, f := range []bool{true, false} {
			readFromFilter = f
			res, err := Analyze(context.Background(), tr, o)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			got[k], tried[k], cone[k] = describe(tr, res.Findings), stage(res, "misuse").Misuse, res.Stats.Cone > 0
		}
		if got[0] != got[1] {
			t.Fatalf("with the filter %q, without %q, on\n%s", got[0], got[1], text)
		}
		if tried[0] > tried[1] || cone[0] && !cone[1] {
			t.Fatalf("with the filter %d tried (cone %v), without %d (cone %v), on\n%s", tried[0], cone[0], tried[1], cone[1], text)
		}
		return tried[0] < tried[1], cone[1] && !cone[0], got[1]
	}
	var savedReuse, reuse, savedCone, races int
	for n := 0; n < 300; n++ {
		text := reuseProgram(r)
		tr, err := gotext.Build(text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		saved, _, found := compare(tr, text, Options{NoRaces: true, NoAtomicity: true, NoDeadlocks: true})
		if saved {
			savedReuse++
		}
		if strings.Contains(found, "waitgroup-reuse") {
			reuse++
		}
	}
	for n := 0; n < 300; n++ {
		p := syncParams(r)
		p.locks = 1 + r.Intn(2)
		tr, text := genTrace(r, p)
		_, saved, found := compare(tr, text, Options{NoAtomicity: true, NoDeadlocks: true, NoMisuse: true})
		if saved {
			savedCone++
		}
		if strings.Contains(found, "race") {
			races++
		}
	}
	if savedReuse == 0 || reuse == 0 || savedCone == 0 || races == 0 {
		t.Errorf("reuse: the filter saved closures on %d programs, %d had a finding; races: it saved the cone on %d, %d had a finding: want some of each",
			savedReuse, reuse, savedCone, races)
	}
	t.Logf("reuse: filter saved closures on %d programs, %d had a finding; races: saved the cone on %d, %d had a finding", savedReuse, reuse, savedCone, races)
}

// reuseProgram returns a random run, in gotext's notation, of up to five
// goroutines sharing a WaitGroup, a mutex and a map m: singleflight's two
// sections (Add then the map write; the map read) among plain Adds,
// Dones, reads and writes, and Waits where the run's counter is zero.
func reuseProgram(r *rand.Rand) string {
	var b strings.Builder
	gs := 2 + r.Intn(4)
	started, next := []int{1}, 2
	counter := 0
	line := 10
	emit := func(g int, op string) {
		fmt.Fprintf(&b, "g%d %s @%d\n", g, op, line)
		line++
	}
	for k := 0; k < 8+r.Intn(20); k++ {
		g := started[r.Intn(len(started))]
		switch x := r.Intn(12); {
		case x < 2 && next <= gs:
			emit(g, fmt.Sprintf("go g%d", next))
			started = append(started, next)
			next++
		case x < 4:
			emit(g, "lock mu")
			emit(g, "add wg 1")
			counter++
			emit(g, "w m")
			emit(g, "unlock mu")
		case x < 6:
			emit(g, "lock mu")
			emit(g, "r m")
			emit(g, "unlock mu")
		case x < 7:
			emit(g, "add wg 1")
			counter++
		case x < 9 && counter > 0:
			emit(g, "done wg")
			counter--
		case x < 10 && counter == 0:
			emit(g, "wait wg")
		default:
			emit(g, []string{"r m", "w m", "r x", "w x"}[r.Intn(4)])
		}
	}
	return b.String()
}
