// This file tests reportObserved (blocking.go): every observed blocking
// finding it reports is re-checked by the witness checker, a tampered one
// among good ones included, and the findings of the test the event cap
// stopped the recording in are dropped before any check.

package check

import (
	"runtime"
	"strings"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// observedLeakRun returns synth.Blocked's trace of a test that leaves
// two goroutines blocked sending, its one observed leak, and each
// worker's start (an event of the user's code that is not its
// goroutine's last there: a leak claimed at it is false).
func observedLeakRun(t *testing.T) (*trace.Trace, predict.Finding, []int) {
	t.Helper()
	tr, writes, err := synthtrace.Blocked(2, 0)
	if err != nil {
		t.Fatal(err)
	}
	fs := predict.ObservedBlocked(tr, false)
	if len(fs) != 1 || fs[0].Count != 2 {
		t.Fatalf("observed findings %+v, want one leak of two goroutines", fs)
	}
	var starts []int
	for _, w := range writes {
		starts = append(starts, w-1) // synth.Blocked: a worker's start, then its write
	}
	return tr, fs[0], starts
}

func TestReportObservedChecksWhatItReports(t *testing.T) {
	tr, good, starts := observedLeakRun(t)
	bad := good
	bad.Events = []int{starts[1]}
	for _, tc := range []struct {
		name    string
		fs      []predict.Finding
		cut     bool
		want    int    // findings reported
		wantErr string // "" for none
	}{
		{"a leak the run shows", []predict.Finding{good}, false, 1, ""},
		{"a tampered leak", []predict.Finding{bad}, false, 0, "observed leak rejected"},
		{"a tampered leak after a good one", []predict.Finding{good, bad}, false, 0, "observed leak rejected"},
		// The test the cut stopped in: its goroutines were where the cut
		// found them, so nothing of it is reported, or checked.
		{"a leak of the cut test", []predict.Finding{good}, true, 0, ""},
		{"a tampered leak of the cut test", []predict.Finding{bad}, true, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &record.RecordResult{Trace: tr, Package: "example.com/p", Cut: tc.cut,
				Outcome: trace.Outcome{Result: "pass"}}
			got, err := reportObserved(rec, tc.fs, nil)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
			if len(got) != tc.want {
				t.Fatalf("%d findings %+v, want %d", len(got), got, tc.want)
			}
			for _, f := range got {
				if f.Test != "TestBlocked" || f.Count != 2 || len(f.Accesses) != 1 || f.Accesses[0].Blocked != "send" {
					t.Errorf("finding %+v, want TestBlocked's two goroutines blocked sending", f)
				}
			}
		})
	}
}

// TestReportObservedCutMakesNoIndex: at the event cap, the findings of
// the test the recording stopped in are dropped before reportObserved
// indexes the whole trace, so that a run whose only observed findings are
// of that test (pond's) reads none of the trace's tail: what it allocates
// stays far below the index's four bytes an event, which it allocates
// when the test is not the cut's.
func TestReportObservedCutMakesNoIndex(t *testing.T) {
	tr, _, err := synthtrace.Blocked(2_000, 200)
	if err != nil {
		t.Fatal(err)
	}
	fs := predict.ObservedBlocked(tr, false)
	index := uint64(4 * len(tr.Events))
	for _, cut := range []bool{true, false} {
		rec := &record.RecordResult{Trace: tr, Package: "example.com/p", Cut: cut, Outcome: trace.Outcome{Result: "pass"}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := reportObserved(rec, fs, nil)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		switch {
		case cut && (len(got) != 0 || alloc >= index/8):
			t.Errorf("cut: %d findings, %d bytes allocated; want none, and far fewer bytes than the index's %d", len(got), alloc, index)
		case !cut && (len(got) != 1 || alloc < index):
			t.Errorf("not cut: %d findings, %d bytes allocated; want one, and the index's %d bytes at least (the test says little)", len(got), alloc, index)
		}
	}
}

// BenchmarkObservedBlockedCut is observedBlocked on a run cut at the
// event cap in a test that leaves 20,000 goroutines blocked in 2 million
// events (synth.Blocked): pond's case, whose cut test's leaks are not
// reported, so no checker need be built for them.
func BenchmarkObservedBlockedCut(b *testing.B) {
	for _, cut := range []bool{true, false} {
		b.Run(map[bool]string{true: "cut", false: "whole"}[cut], func(b *testing.B) {
			tr, _, err := synthtrace.Blocked(20_000, 100)
			if err != nil {
				b.Fatal(err)
			}
			rec := &record.RecordResult{Trace: tr, Package: "example.com/p", Cut: cut, Outcome: trace.Outcome{Result: "pass"}}
			for b.Loop() {
				fs, err := observedBlocked(rec, nil)
				if err != nil || len(fs) != map[bool]int{true: 0, false: 1}[cut] {
					b.Fatalf("findings %+v, error %v", fs, err)
				}
			}
		})
	}
}
