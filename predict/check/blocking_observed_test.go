// This file tests reportObserved (blocking.go): every observed blocking
// finding it reports is re-checked by the witness checker, a tampered one
// among good ones included, and the findings of the test the event cap
// stopped the recording in are dropped before any check.

package check

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// observedLeakRun builds the trace of a test whose goroutine starts two
// goroutines that each write a variable from the user's code and then
// block sending, and returns it with its one observed leak and each
// worker's start (an event of the user's code that is not its
// goroutine's last: a leak claimed there is false).
func observedLeakRun(t *testing.T) (*trace.Trace, predict.Finding, []int) {
	t.Helper()
	const goroot = "/goroot"
	b := trace.NewBuilder(trace.Header{Format: "seer", GOROOT: goroot})
	st := b.Stacks()
	runner := st.Push(0, trace.Frame{Func: "testing.tRunner", File: goroot + "/src/testing/testing.go", Line: 1})
	user := st.Push(runner, trace.Frame{Func: "example.com/p.TestBlocked", File: "/src/p/p_test.go", Line: 10})
	worker := st.Push(0, trace.Frame{Func: "example.com/p.TestBlocked.func1", File: "/src/p/p_test.go", Line: 12})
	send := st.Push(st.Push(0, trace.Frame{Func: "runtime.chansend", File: goroot + "/src/runtime/chan.go", Line: 2}),
		trace.Frame{Func: "runtime.chansend1", File: goroot + "/src/runtime/chan.go", Line: 1})
	main := b.Goroutine(0, 0)
	b.SetGoroutine(main, "TestBlocked", "")
	x := b.Object(trace.ObjVar, 0x1000, 8, "")
	ch := b.Object(trace.ObjVar, 0x2000, 8, "")
	var starts []int
	for range 2 {
		g := b.Goroutine(main, user)
		b.SetGoroutine(g, "TestBlocked", "")
		b.Add(trace.Event{Op: trace.OpGo, G: main, Peer: int32(g), Stack: user, Sync: trace.SyncRelease})
		starts = append(starts, b.Add(trace.Event{Op: trace.OpStart, G: g, Peer: int32(main), Stack: worker, Sync: trace.SyncAcquire}))
		b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: 0x1000, Size: 8, Obj: x, Stack: worker})
		b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: 0x2000, Size: 8, Obj: ch, Stack: send})
	}
	b.Add(trace.Event{Op: trace.OpRead, G: main, Addr: 0x1000, Size: 8, Obj: x, Stack: user})
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	fs := predict.ObservedBlocked(tr, false)
	if len(fs) != 1 || fs[0].Count != 2 {
		t.Fatalf("observed findings %+v, want one leak of two goroutines", fs)
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
