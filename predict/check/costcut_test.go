// This file tests cutByCost (check.go): a run whose events cost the
// analysis's first phase more than Options.PrePassBudget is analysed up
// to the events predict.EventsWithin holds, its trace cut in place, and
// the test during which it was cut says so (CostCutNote) rather than
// naming the recorder's event cap; and the budget's share for a run
// (Options.prePassShare).

package check

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// costTrace is a run of TestA then TestB: each test's goroutine makes
// perTest events, every other one a channel send (a synchronisation
// event), each event with a value.
func costTrace(perTest int) *trace.Trace {
	tr := &trace.Trace{Goroutines: []trace.Goroutine{{}, {ID: 1, Test: "TestA"}, {ID: 2, Test: "TestB"}}}
	for g := trace.GoID(1); g <= 2; g++ {
		for i := range perTest {
			e := trace.Event{G: g, Op: trace.OpWrite, Addr: 8 * uint64(i), Size: 8}
			if i%2 == 1 {
				e.Op, e.Sync = trace.OpSend, trace.SyncRelease
			}
			tr.Values = append(tr.Values, trace.EventValue{Event: len(tr.Events), Value: uint64(i) + 1})
			tr.Events = append(tr.Events, e)
		}
	}
	return tr
}

func TestCutByCost(t *testing.T) {
	const perTest = 1000
	all := predictCost(costTrace(perTest), len(costTrace(perTest).Events))
	for _, c := range []struct {
		name   string
		budget int64
		cut    bool   // the trace is cut
		test   string // the test whose note says so
	}{
		{"no budget", 0, false, ""},
		{"all fit", all, false, ""},
		{"in the second test", all - 1, true, "TestB"},
		{"in the first test", all / 3, true, "TestA"},
		{"not even the first", 1, true, "TestA"},
	} {
		tr := costTrace(perTest)
		n0 := len(tr.Events)
		want := max(predict.EventsWithin(tr, c.budget), 1)
		rec := &record.RecordResult{Package: "p", Trace: tr, Events: n0, Outcome: trace.Outcome{Result: "pass"},
			Tests: []record.TestResult{{Name: "TestA", Result: "pass"}, {Name: "TestB", Result: "pass"}}}
		kept := cutByCost(rec, c.budget)
		if !c.cut {
			if kept != 0 || rec.Cut || len(tr.Events) != n0 {
				t.Errorf("%s: kept %d (cut %v) of %d events, want no cut", c.name, kept, rec.Cut, n0)
			}
			continue
		}
		if kept != want || len(tr.Events) != want || cap(tr.Events) != want || !rec.Cut {
			t.Errorf("%s: kept %d, the trace %d events (cap %d), cut %v; want %d (predict.EventsWithin)", c.name, kept, len(tr.Events), cap(tr.Events), rec.Cut, want)
		}
		if len(tr.Values) != want || tr.Values[len(tr.Values)-1].Event != want-1 {
			t.Errorf("%s: %d values kept for %d events", c.name, len(tr.Values), want)
		}
		for _, r := range testsOfWalk(rec, 0, kept, walkTests(rec)) {
			note := strings.Join(r.Errors, "; ")
			switch {
			case r.Name == c.test && !strings.Contains(note, CostCutNote(want, "run")):
				t.Errorf("%s: %s's notes %q lack %q", c.name, r.Name, note, CostCutNote(want, "run"))
			case r.Name != c.test && note != "":
				t.Errorf("%s: %s has notes %q", c.name, r.Name, note)
			case strings.Contains(note, "cap of"):
				t.Errorf("%s: %s names the event cap: %q", c.name, r.Name, note)
			}
		}
	}
}

// predictCost returns the least budget within which predict.EventsWithin
// holds tr's first n events.
func predictCost(tr *trace.Trace, n int) int64 {
	lo, hi := int64(0), int64(1)
	for predict.EventsWithin(tr, hi) < n {
		hi *= 2
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if predict.EventsWithin(tr, mid) >= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}

// TestPrePassShare: a run's share of Options.PrePassBudget is over the
// packages' analyses that may hold memory at once when it is analysed
// (packagesSharing), not over Procs: the last package left, at seer
// check's default -p 2, has it whole (pond's root package, after its two
// small packages).
func TestPrePassShare(t *testing.T) {
	const budget = 1 << 30
	for _, c := range []struct {
		name        string
		procs, left int // 0 procs: no sharing set (Run over one package)
		want        int64
	}{
		{"one package", 0, 0, budget},
		{"-p 2, both left", 2, 2, budget / 2},
		{"-p 2, more left", 2, 5, budget / 2},
		{"-p 2, the last left", 2, 1, budget},
		{"-p 4, three left", 4, 3, budget / 3},
	} {
		opts := Options{PrePassBudget: budget}
		if c.procs > 0 {
			var left atomic.Int64
			left.Store(int64(c.left))
			opts.sharing = packagesSharing(c.procs, &left)
		}
		if got := opts.prePassShare(); got != c.want {
			t.Errorf("%s: share %d, want %d", c.name, got, c.want)
		}
	}
}
