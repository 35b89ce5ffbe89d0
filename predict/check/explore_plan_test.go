// This file tests what exploring plans from a run (explore_plan.go,
// explore_partner.go): where the partner strategy delays a contended
// operation's winner, that a select's goroutine is delayed where it holds
// no lock, and that a strategy with nothing to steer gives its turn away.

package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// TestPartnerSpot: the worker that took every piece (A, at positions 3,
// 6 and 9; B took none) is first delayed before a later win, so that it
// keeps a piece and B takes the next, each such win once; then before its
// first win (B never won first); and only then as rng picks.
func TestPartnerSpot(t *testing.T) {
	const a, b = 0xa, 0xb
	for seed := uint64(1); seed <= 20; seed++ {
		ex := newExplorer(Options{ExploreSeed: seed}, "", "")
		c := contested{
			key: "recv pool.go:9", first: a, paths: []uint64{a, b},
			won:   map[uint64]int{a: 3, b: 0},
			spots: map[uint64][]spot{a: {{a, 3}, {a, 6}, {a, 9}}},
		}
		ex.winners[c.key] = map[uint64]bool{a: true}
		rng := rand.New(rand.NewPCG(seed, 1))
		var got []uint32
		for range 3 {
			s, ok := ex.partnerSpot(&c, rng)
			if !ok || s.path != a {
				t.Fatalf("seed %d: spot %+v, %v: want one of A's", seed, s, ok)
			}
			got = append(got, s.pos)
		}
		if !slices.Equal(got, []uint32{6, 9, 3}) && !slices.Equal(got, []uint32{9, 6, 3}) {
			t.Errorf("seed %d: delays at %v, want A's later wins (6, 9) once each, then its first (3)", seed, got)
		}
		if s, ok := ex.partnerSpot(&c, rng); !ok || s.path != a || !slices.Contains([]uint32{3, 6, 9}, s.pos) {
			t.Errorf("seed %d: once every delay was tried, spot %+v, %v: want one of A's", seed, s, ok)
		}
	}
	// Two goroutines that each locked once, B after A, and B has won
	// first in an earlier run: A is delayed before its lock, and then B
	// is not delayed before its own (A has won first too), A again.
	ex := newExplorer(Options{ExploreSeed: 1}, "", "")
	c := contested{
		key: "lock mutex", first: a, paths: []uint64{a, b},
		won:   map[uint64]int{a: 1, b: 1},
		spots: map[uint64][]spot{a: {{a, 2}}, b: {{b, 5}}},
	}
	ex.winners[c.key] = map[uint64]bool{a: true}
	rng := rand.New(rand.NewPCG(1, 1))
	if s, _ := ex.partnerSpot(&c, rng); s != (spot{a, 2}) {
		t.Errorf("lock: spot %+v, want A before its lock", s)
	}
	ex.winners[c.key][b] = true
	if s, _ := ex.partnerSpot(&c, rng); s.path != a {
		t.Errorf("lock, both having won first: spot %+v, want A's (B's first win would only give A the lock back)", s)
	}
}

// TestExploreNext: a select or partner strategy with nothing to steer
// gives its turn to the next strategy.
func TestExploreNext(t *testing.T) {
	ex := newExplorer(Options{ExploreSeed: 1}, "", "")
	ex.k = 10
	ex.contest = []contested{{key: "recv x", first: 1, paths: []uint64{1, 2}, won: map[uint64]int{1: 2}, spots: map[uint64][]spot{1: {{1, 1}, {1, 4}}}}}
	ex.winners["recv x"] = map[uint64]bool{1: true}
	turn := 0
	var got []report.Strategy
	for i := 1; i <= 4; i++ {
		s, sc := ex.next(&turn, ex.runSeed(i), newRunRand(ex.runSeed(i), i))
		if s != report.StrategyPCT && len(sc.Delays) == 0 {
			t.Errorf("run %d: %s with no delay", i, s)
		}
		got = append(got, s)
	}
	want := []report.Strategy{report.StrategyPCT, report.StrategyPartner, report.StrategyPCT, report.StrategyPartner}
	if !slices.Equal(got, want) {
		t.Errorf("strategies %v, want %v: select has no select to steer", got, want)
	}
}

// TestSelectDelayLockFree: TestCancel's goroutine gets ctx.Done()'s
// channel under the context's mutex after its last countable record
// before the select. Delayed as the plan says, it must hold no lock, so
// the timer's cancel takes that mutex before the select runs (delayed
// inside the lock, the cancel would wait for the select and lose).
func TestSelectDelayLockFree(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	opts := record.RecordOptions{Dir: exploreDir, Package: "./bug", Run: "^TestCancel$", Timeout: time.Minute, NoFile: true, Replayable: true}
	rec, err := record.Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ex := newExplorer(Options{ExploreSeed: 1}, rec.Package, "")
	ex.plan(rec.Trace)
	var self *spot
	for _, sc := range ex.selects {
		if strings.HasSuffix(sc.site, "cancel_test.go:20") && sc.hasSelf {
			self = &sc.self
		}
	}
	if self == nil {
		t.Fatalf("no select of cancel_test.go:20 to delay in %+v", ex.selects)
	}
	// The delay comes after the goroutine's events before its position,
	// and before the others.
	paths, held := trace.GoPaths(rec.Trace), 0
	for i := range rec.Trace.Events {
		e := &rec.Trace.Events[i]
		if pos, own, ok := rec.Trace.ReplayPos(i); !ok || !own || paths[e.G] != self.path || pos >= self.pos {
			continue
		}
		switch e.Op {
		case trace.OpLock:
			held++
		case trace.OpUnlock:
			held--
		}
	}
	if held != 0 {
		t.Errorf("the select's goroutine is delayed at its position %d holding %d locks", self.pos, held)
	}
	opts.Explore = &trace.ExploreSchedule{Seed: 1, StepWait: ExploreStepWait, Budget: ExploreBudget,
		Delays: []trace.ExploreDelay{{Path: self.path, Pos: self.pos, Wait: ExploreDelay}}}
	var why string
	for try := 0; try < 3; try++ { // a loaded machine may start the timer's goroutine late
		r, err := record.Record(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if why = cancelFirst(r); why == "" {
			return
		}
		t.Logf("try %d: %s", try+1, why)
	}
	t.Error(why)
}

// cancelFirst says why, in r, the context's mutex was not taken by the
// timer's cancel before the select of cancel_test.go:20 ("" if it was).
func cancelFirst(r *record.RecordResult) string {
	t := r.Trace
	if r.Explore == nil || r.Explore.Delayed != 1 {
		return "the run took no delay"
	}
	var mu trace.ObjID
	test, sel := trace.GoID(0), -1
	for i := range t.Events {
		e := &t.Events[i]
		site := runSite(t, i)
		if e.Op == trace.OpLock && strings.HasSuffix(site, "cancel_test.go:35") && test == 0 {
			mu, test = e.Obj, e.G // context.WithTimeout's
		}
		if e.Op == trace.OpRecv && strings.HasSuffix(site, "cancel_test.go:20") && sel < 0 {
			sel = i
		}
	}
	if test == 0 || sel < 0 {
		return "no context mutex or no select"
	}
	for i := range sel {
		if e := &t.Events[i]; e.Op == trace.OpUnlock && e.Obj == mu && e.G != test && e.G != t.Events[sel].G {
			return ""
		}
	}
	return "the timer's cancel left the context's mutex only after the select"
}

// TestExploreNearMiss: the findings strategy on its own aims at near
// misses: TestCancel's cancel came just after its select, and TestClosed's
// reader's critical section read the field that Close's section then
// stored nil to. Aimed runs show both races; the fixed twins stay clean.
func TestExploreNearMiss(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	run := "^(TestCancel|TestClosed)$"
	// Go picks among ready select cases at random: TestCancel's aimed
	// run takes its ctx.Done() case with probability 1/2, and the near
	// miss is aimed at again until it does (NearMissTries).
	var rep *report.Report
	for try := 0; try < 2; try++ {
		rep = explore(t, "bug", run, report.StrategyFindings, NearMissTries+2, 1)
		if len(rep.Findings) == 2 {
			break
		}
		t.Logf("try %d: findings %+v", try+1, rep.Findings)
	}
	passed(t, rep)
	found := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Kind != report.KindRace || f.Origin == nil || f.Origin.Strategy != report.StrategyFindings || f.Origin.Run < 1 {
			t.Errorf("finding %+v (origin %+v): want a race of an aimed run", f, f.Origin)
		}
		found[f.Test] = true
	}
	if !found["TestCancel"] || !found["TestClosed"] {
		t.Errorf("found races in %v, want TestCancel and TestClosed (runs %+v)", found, rep.Explore[0].Runs)
	}
	for _, r := range rep.Explore[0].Runs {
		if r.Strategy != report.StrategyFindings || r.Delays == 0 {
			t.Errorf("run %+v: want a findings run that delays", r)
		}
	}
	rep = explore(t, "fixed", run, report.StrategyFindings, NearMissTries+2, 1)
	passed(t, rep)
	if len(rep.Findings) != 0 || len(rep.Explore[0].Runs) == 0 {
		t.Errorf("fixed twins: findings %+v after %d runs, want none after some", rep.Findings, len(rep.Explore[0].Runs))
	}
}

// TestRunSeedsApart: explorations from neighbouring seeds share no run's
// seed (they did when run i's seed was mix(seed+i)).
func TestRunSeedsApart(t *testing.T) {
	seen := map[uint64]string{}
	for seed := uint64(1); seed <= 50; seed++ {
		ex := newExplorer(Options{ExploreSeed: seed}, "", "")
		for i := 1; i <= 50; i++ {
			s := ex.runSeed(i)
			if s == 0 {
				t.Fatalf("seed %d run %d: seed 0", seed, i)
			}
			at := fmt.Sprintf("seed %d run %d", seed, i)
			if prev, ok := seen[s]; ok {
				t.Fatalf("%s has the seed of %s", at, prev)
			}
			seen[s] = at
		}
	}
}
