// This file holds the end-to-end tests of issue 32's taken channel
// partner in its leak flavour, on a plain send: a worker hands its result
// to a collector that reads one value (the taker, or the test itself),
// then waits on the same channel for its next job, which a dispatcher
// (the helper) sends. In a schedule where the dispatcher's send takes the
// collector, the worker's send has no partner left and waits for ever
// while the test returns: a predicted leak from a run in which nothing
// leaked, with a witness the checker replayed. Each fixed twin buffers
// the channel for both values, and gives no finding of any kind.

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// plainLeakSrc is selectLeakSrc (selectleak_test.go) with the worker's
// select made a plain send, the same worker with no quit case: CAP is
// replaced by the fixed twin's buffer. The dispatcher's (helper's) sleep
// makes the recorded run hand the result over first; the test's sleep
// lets every goroutine's exit be recorded before it returns. Both order
// nothing.
var plainLeakSrc = strings.NewReplacer(
	"func worker(jobs chan int, quit <-chan struct{}) {\n\tselect { // select\n\tcase jobs <- 1:\n\tcase <-quit:\n\t\treturn\n\t}\n",
	"func worker(jobs chan int) {\n\tjobs <- 1 // result\n",
	"\tquit := make(chan struct{})\n\tFIX\n", "",
	"jobs := make(chan int)", "jobs := make(chan intCAP)",
	"go worker(jobs, quit)", "go worker(jobs)",
).Replace(selectLeakSrc)

// firstResultSrc is plainLeakSrc whose test is the collector: it reads
// the first value on jobs and discards it (the result channel read once
// by the first of many), while the worker and the dispatcher send on it.
var firstResultSrc = strings.NewReplacer(
	"\tgo func() {\n\t\t<-jobs // taker\n\t}()\n", "",
	"\ttime.Sleep(600 * time.Millisecond)\n", "\t<-jobs // the first result\n\ttime.Sleep(600 * time.Millisecond)\n",
).Replace(plainLeakSrc)

// TestPlainLeakPredicted: the bug is a predicted leak at the worker's
// send, whose sentence, hover and SARIF say the test returns while it
// waits and who took its partner: a collector goroutine, or the test's
// own goroutine, which read the worker's result in the run and takes the
// dispatcher's value in the witness, then returns, its receive done (the
// result channel read once by the first of many). Each fixed twin, the
// channel buffered for both values, has no finding of any kind.
func TestPlainLeakPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	if strings.Contains(plainLeakSrc, "quit") || !strings.Contains(plainLeakSrc, "jobs <- 1 // result") || !strings.Contains(plainLeakSrc, "CAP") ||
		strings.Contains(firstResultSrc, "// taker") || !strings.Contains(firstResultSrc, "<-jobs // the first result") {
		t.Fatalf("selectLeakSrc has changed: %s", plainLeakSrc)
	}
	for _, tc := range []struct{ name, src string }{
		{"a collector", plainLeakSrc},
		{"the test collects the first result", firstResultSrc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Run("bug", func(t *testing.T) {
				src := strings.Replace(tc.src, "CAP", "", 1)
				f, rep, dir := oneStuckLeak(t, src, "// result", 0, "waits for ever to send on jobs at ")
				if a := f.Accesses[0]; a.Op != "send" {
					t.Errorf("leaked operation %s, want the send", a.Op)
				}
				send := markedLine(t, src, "// result")
				took := "takes it first, and goroutine " + strconv.Itoa(f.Accesses[0].Goroutine) + "'s send is left waiting"
				if got := report.RepairedSentences(&f, filepath.Base); len(got) != 1 || !strings.Contains(got[0], "'s send at :"+strconv.Itoa(send)) || !strings.Contains(got[0], took) {
					t.Errorf("the finding does not say who took the send's partner: %q", got)
				}
				if h := report.HoverMarkdown(&f, 0, filepath.Base, func(string, int) string { return "" }); !strings.Contains(h, "left blocked after the test") || !strings.Contains(h, took) {
					t.Errorf("hover does not tell the leak and who took the partner: %q", h)
				}
				if text, ok := report.Explain(report.KindLeak); !ok || !strings.Contains(text, "a worker's send or receive") {
					t.Errorf("-explain leak does not tell a plain operation's leak")
				}
				sarifTellsOf(t, rep, dir, report.KindLeak, "waits for ever to send on jobs") // selectstuck_test.go
			})
			t.Run("fixed", func(t *testing.T) {
				noFinding(t, strings.Replace(tc.src, "CAP", ", 2", 1))
			})
		})
	}
}

// oneStuckLeak records src and returns its only finding, which must be a
// taken partner's predicted leak with a witness (leak_selectstuck.go):
// one goroutine's operation on jobs at the line of src marked by mark,
// stuck the selects it lists, whose sentence says that TestHandoff
// returns while it waits, in the words of waits followed by its place.
func oneStuckLeak(t *testing.T, src, mark string, stuck int, waits string) (report.Finding, *report.Report, string) {
	t.Helper()
	rep, dir := recordOne(t, src)
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want one leak", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Kind != report.KindLeak || !f.Predicted || len(f.Witness) == 0 || len(f.Accesses) != 1 || len(f.Stuck) != stuck {
		t.Fatalf("finding %+v, want a predicted leak of one goroutine with %d selects, with a witness", f, stuck)
	}
	line := markedLine(t, src, mark)
	if a := f.Accesses[0]; a.Line != line || a.Variable != "jobs" {
		t.Errorf("leaked operation on %q at line %d, want one on jobs at %d", a.Variable, a.Line, line)
	}
	at := "p_test.go:" + strconv.Itoa(line)
	if s := report.LeakSentence(&f, filepath.Base); !strings.Contains(s, "TestHandoff returns while goroutine") || !strings.Contains(s, waits+at) {
		t.Errorf("the leak's sentence does not say the test returns while %s%s: %q", waits, at, s)
	}
	return f, rep, dir
}
