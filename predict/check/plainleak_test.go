// This file holds the end-to-end test of issue 32's taken channel
// partner in its leak flavour, on a plain send: a worker hands its result
// to a collector that reads one value and exits, then waits on the same
// channel for its next job, which a dispatcher sends. In a schedule where
// the dispatcher's send takes the collector, the worker's send has no
// partner left and waits for ever while the test returns: a predicted
// leak from a run in which nothing leaked, with a witness the checker
// replayed. Its fixed twin buffers the channel for both values, and
// gives no finding of any kind.

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// plainLeakSrc: CAP is replaced by the fixed twin's buffer. The
// dispatcher's sleep makes the recorded run hand the result over first;
// the test's sleep lets every goroutine's exit be recorded before it
// returns. Both order nothing.
const plainLeakSrc = `package p

import (
	"testing"
	"time"
)

func worker(jobs chan int) {
	jobs <- 1 // result
	<-jobs
}

func TestHandoff(t *testing.T) {
	jobs := make(chan intCAP)
	go func() {
		<-jobs // collector
	}()
	go func() {
		time.Sleep(300 * time.Millisecond)
		jobs <- 2 // dispatcher
	}()
	go worker(jobs)
	time.Sleep(600 * time.Millisecond)
}
`

// TestPlainLeakPredicted: the bug is a predicted leak at the worker's
// send, whose sentence, hover and SARIF say the test returns while it
// waits and who took its partner; the fixed twin has no finding.
func TestPlainLeakPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	t.Run("bug", func(t *testing.T) {
		src := strings.Replace(plainLeakSrc, "CAP", "", 1)
		rep, dir := recordOne(t, src)
		if len(rep.Findings) != 1 {
			t.Fatalf("findings %+v, want one leak", rep.Findings)
		}
		f := rep.Findings[0]
		if f.Kind != report.KindLeak || !f.Predicted || len(f.Witness) == 0 || len(f.Accesses) != 1 || len(f.Stuck) != 0 {
			t.Fatalf("finding %+v, want a predicted leak of one goroutine's send, with a witness", f)
		}
		send := markedLine(t, src, "// result")
		if a := f.Accesses[0]; a.Line != send || a.Op != "send" || a.Variable != "jobs" {
			t.Errorf("leaked operation %s on %q at line %d, want the send on jobs at %d", a.Op, a.Variable, a.Line, send)
		}
		at := "p_test.go:" + strconv.Itoa(send)
		if s := report.LeakSentence(&f, filepath.Base); !strings.Contains(s, "TestHandoff returns while goroutine") || !strings.Contains(s, "waits for ever to send on jobs at "+at) {
			t.Errorf("the leak's sentence does not say the test returns while the send waits: %q", s)
		}
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
		noFinding(t, strings.Replace(plainLeakSrc, "CAP", ", 2", 1))
	})
}
