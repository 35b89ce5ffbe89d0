package check

import (
	"reflect"
	"testing"

	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// TestLeakedGoroutines tells goroutines left blocked from those on their
// way out when the process exited: a test's list of goroutines still
// running must not depend on whether the machine found a CPU for a
// finishing goroutine before the run ended.
func TestLeakedGoroutines(t *testing.T) {
	const goroot = "/goroot"
	inChansend := []trace.Frame{{Func: "runtime.chansend1", File: goroot + "/src/runtime/chan.go", Line: 161}}
	tests := []struct {
		name string
		last []trace.Event // the goroutine's events after its start
		want bool          // listed as still running
	}{
		{"ended", []trace.Event{{Op: trace.OpEnd}}, false},
		{"done", []trace.Event{{Op: trace.OpWGDone}}, false},
		{"closed", []trace.Event{{Op: trace.OpClose}}, false},
		// Its send completed, the receiver went on, and the process
		// exited before the sender was scheduled again.
		{"sent", []trace.Event{{Op: trace.OpRead}, {Op: trace.OpSend}}, false},
		// A send that never completes leaves chansend's read.
		{"blocked in send", []trace.Event{{Op: trace.OpRead}}, true},
		// A receive that blocks leaves nothing after the last receive.
		{"received", []trace.Event{{Op: trace.OpRecv}}, true},
		{"wrote", []trace.Event{{Op: trace.OpWrite}}, true},
		// -atomicity's conversion ends the transaction of a goroutine
		// still in one when the run ended: that says nothing of it.
		{"done, then its transaction closed", []trace.Event{{Op: trace.OpWGDone}, {Op: trace.OpTxEnd}}, false},
		{"blocked in send, then its transaction closed", []trace.Event{{Op: trace.OpRead}, {Op: trace.OpTxEnd}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := trace.NewBuilder(trace.Header{GOROOT: goroot})
			st := b.Stacks()
			tRunner := b.Goroutine(0, st.Intern([]trace.Frame{{Func: "testing.(*T).Run", File: goroot + "/src/testing/testing.go", Line: 1997}}))
			b.SetGoroutine(tRunner, "TestClean", "")
			site := trace.Frame{Func: "example.com/leak.TestClean", File: "/m/l_test.go", Line: 17}
			g := b.Goroutine(tRunner, st.Intern([]trace.Frame{site}))
			b.SetGoroutine(g, "TestClean", "")
			b.Add(trace.Event{G: g, Op: trace.OpStart, Peer: int32(tRunner)})
			for _, e := range tc.last {
				e.G = g
				if e.Op == trace.OpRead {
					e.Stack = st.Intern(inChansend)
				}
				b.Add(e)
			}
			b.Add(trace.Event{G: tRunner, Op: trace.OpRead})
			tr, err := b.Trace()
			if err != nil {
				t.Fatal(err)
			}
			rec := &record.RecordResult{Trace: tr, Outcome: trace.Outcome{Result: "pass"}, Tests: []record.TestResult{{Name: "TestClean", Result: "pass"}}}
			got := leakedGoroutines(rec)["TestClean"]
			var want []string
			if tc.want {
				want = []string{"/m/l_test.go:17"}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("leaked %v, want %v", got, want)
			}
		})
	}
}
