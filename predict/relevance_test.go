// This file tests control relevance closed over read-from (relevance.go):
// a race hidden behind a critical section whose only read feeds an
// increment is found when that read is irrelevant, the same shape with a
// read that guards the access stays silent, and an irrelevant read whose
// write a relevant read observes is not relaxed.

package predict

import (
	"github.com/seer-tools/seer/trace"
	"testing"
)

// feedsNothing says that every read's value reaches no write.
func feedsNothing(*trace.Trace, int) ([]int, bool) { return nil, true }

// feedsNextWrite says that a read's value reaches the next write of its
// goroutine (c++ is a read and a write), and no other.
func feedsNextWrite(t *trace.Trace, i int) ([]int, bool) {
	for j := i + 1; j < len(t.Events); j++ {
		if e := &t.Events[j]; e.G == t.Events[i].G && e.Op == trace.OpWrite {
			return []int{j}, true
		}
	}
	return nil, true
}

// irrelevantLines names the reads at the given lines irrelevant.
func irrelevantLines(lines ...int) func(*trace.Trace, int) bool {
	return func(t *trace.Trace, i int) bool {
		for _, l := range lines {
			if t.Site(&t.Events[i]).Line == l {
				return true
			}
		}
		return false
	}
}

// T2 writes x, then increments c under mu; T1 increments c under mu,
// then reads x. T1's section read T2's c, so keeping every read's writer
// orders T2's write of x before T1's read of x. But the read of c only
// feeds the increment, and nothing relevant reads c after: with that
// known, T1's section may run first, and the race on x shows.
const hiddenByIncrement = `
T0|fork(T1)|1
T0|fork(T2)|2
T2|w(x)|10
T2|acq(mu)|11
T2|r(c)|12
T2|w(c)|13
T2|rel(mu)|14
T1|acq(mu)|20
T1|r(c)|21
T1|w(c)|22
T1|rel(mu)|23
T1|r(x)|24
`

func TestRelevanceFindsRaceBehindIncrement(t *testing.T) {
	tr := parseTrace(t, hiddenByIncrement)
	irr := irrelevantLines(12, 21)
	res := analyze(t, tr, Options{ControlIrrelevant: irr, Feeds: feedsNextWrite})
	if got := describe(tr, res.Findings); got != "race 10-24 predicted" {
		t.Errorf("with relevance: got %q", got)
	}
	if f := res.Findings; len(f) == 1 {
		t.Logf("witness %v", f[0].Schedule(tr))
	}
	for _, o := range []Options{{}, {ControlIrrelevant: irr}} { // no relevance; Feeds unknown
		if res := analyze(t, tr, o); len(res.Findings) != 0 {
			t.Errorf("without relevance (feeds known: %v): %s", o.Feeds != nil, describe(tr, res.Findings))
		}
	}
}

// The same shape, but T1's read of c guards its read of x
// (mu.Lock(); if c > 0 { ... }; c++; mu.Unlock(); use(x)): the read is
// relevant, T1's section must see T2's increment, and there is no race.
func TestRelevanceGuardStaysSilent(t *testing.T) {
	tr := parseTrace(t, hiddenByIncrement)
	res := analyze(t, tr, Options{ControlIrrelevant: irrelevantLines(12), Feeds: feedsNextWrite})
	if len(res.Findings) != 0 {
		t.Errorf("guarded: %s", describe(tr, res.Findings))
	}
}

// T1's read of c feeds its increment, which T3 reads to decide what to
// do (a relevant read) before it reads x. If T1's section ran first, its
// read would see the initial c, its increment would store another value,
// and T3's decision could change: the read must not be relaxed, although
// it reaches no branch of its own, and the race of T3's read of x with
// T2's write cannot be shown. Taken per read, the relaxation would report
// it, with a witness that the checker then rejects.
func TestRelevanceClosedOverReadFrom(t *testing.T) {
	tr := parseTrace(t, `
T0|fork(T1)|1
T0|fork(T2)|2
T0|fork(T3)|3
T2|w(x)|10
T2|acq(mu)|11
T2|r(c)|12
T2|w(c)|13
T2|rel(mu)|14
T1|acq(mu)|20
T1|r(c)|21
T1|w(c)|22
T1|rel(mu)|23
T3|r(c)|30
T3|r(x)|31
`)
	closed := Options{ControlIrrelevant: irrelevantLines(12, 21), Feeds: feedsNextWrite}
	res := analyze(t, tr, closed)
	for _, f := range res.Findings {
		if tr.Site(&tr.Events[f.Events[0]]).Line == 10 && tr.Site(&tr.Events[f.Events[1]]).Line == 31 {
			t.Errorf("unsound race 10-31 reported: %s", describe(tr, res.Findings))
		}
	}
	// Per read (as if the increment fed nothing), the race is reported,
	// but its witness makes T3 read a c of another value.
	perRead := Options{ControlIrrelevant: irrelevantLines(12, 21), Feeds: feedsNothing}
	res = analyze(t, tr, perRead)
	var bad *Finding
	for i, f := range res.Findings {
		if tr.Site(&tr.Events[f.Events[0]]).Line == 10 && tr.Site(&tr.Events[f.Events[1]]).Line == 31 {
			bad = &res.Findings[i]
		}
	}
	if bad == nil {
		t.Fatalf("per read, want race 10-31, got %q", describe(tr, res.Findings))
	}
	if err := CheckWitness(tr, bad, closed); err == nil {
		t.Errorf("the per-read witness %v passes the closed check", bad.Schedule(tr))
	} else {
		t.Logf("per-read witness rejected: %v", err)
	}
	// The exhaustive oracle, with values, agrees.
	o := newOracle(tr, false)
	o.irr, o.feeds = closed.ControlIrrelevant, closed.Feeds
	o.run()
	if o.races[[2]int{bad.Events[0], bad.Events[1]}] {
		t.Errorf("the oracle finds race 10-31")
	}
}
