// This file holds the end-to-end test of issue 32's select that can
// never proceed, in its leak flavour: a worker, started with the jobs
// and quit channels as arguments, sends a job to a one-shot taker or
// gives up on quit, then waits for a reply on jobs; a helper sends on
// the same channel. In a schedule where the helper's send takes the
// taker, the worker's select waits for ever while the test returns: a
// predicted leak from a run in which the select proceeded, with a
// witness the checker replayed. Its fixed twin closes quit when the
// test returns, and gives no finding. TestSelectParamsPredicted is the
// deadlock flavour with the select in a helper given the channels.

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// selectLeakSrc: FIX is replaced by the fixed twin's close of quit. The
// helper's sleep makes the recorded run hand the job over first; the
// test's sleep lets every goroutine's exit be recorded before it
// returns. Both order nothing.
const selectLeakSrc = `package p

import (
	"testing"
	"time"
)

func worker(jobs chan int, quit <-chan struct{}) {
	select { // select
	case jobs <- 1:
	case <-quit:
		return
	}
	<-jobs
}

func TestHandoff(t *testing.T) {
	jobs := make(chan int)
	quit := make(chan struct{})
	FIX
	go func() {
		<-jobs // taker
	}()
	go func() {
		time.Sleep(300 * time.Millisecond)
		jobs <- 2 // helper
	}()
	go worker(jobs, quit)
	time.Sleep(600 * time.Millisecond)
}
`

// TestSelectLeakPredicted: the bug is a predicted leak at the worker's
// select (reached through the arguments of go worker), whose sentences,
// hover and SARIF name the lost partner on jobs and the quit case no
// operation completes; the fixed twin, which closes quit, has no finding
// of any kind.
func TestSelectLeakPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	t.Run("bug", func(t *testing.T) {
		src := strings.Replace(selectLeakSrc, "FIX", "", 1)
		f, rep, dir := oneStuckLeak(t, src, "// select", 1, "waits for ever in its select at ") // plainleak_test.go
		at := "p_test.go:" + strconv.Itoa(markedLine(t, src, "// select"))
		why := "its case on jobs taken in the recorded run has lost its partner, and its receive from quit can never complete: no operation in the program could complete it"
		if got := report.StuckSentences(&f, filepath.Base); len(got) != 1 || !strings.Contains(got[0], "select at "+at+" can never proceed") || !strings.Contains(got[0], why) {
			t.Errorf("the finding does not say why the select cannot proceed: %q", got)
		}
		if h := report.HoverMarkdown(&f, 0, filepath.Base, func(string, int) string { return "" }); !strings.Contains(h, "left blocked after the test") || !strings.Contains(h, why) {
			t.Errorf("hover does not tell the leak and why: %q", h)
		}
		if text, ok := report.Explain(report.KindLeak); !ok || !strings.Contains(text, "a worker's select that can never") {
			t.Errorf("-explain leak does not tell a select's leak")
		}
		sarifTellsOf(t, rep, dir, report.KindLeak, "receive from quit can never complete") // selectstuck_test.go
	})
	t.Run("fixed", func(t *testing.T) {
		noFinding(t, strings.Replace(selectLeakSrc, "FIX", "defer close(quit)", 1))
	})
}

// selectParamsSrc is selectStuckSrc (selectstuck_test.go) with the
// test's select moved into hand, a helper that takes the channels as
// arguments: static analysis follows them to the test's makes (issue 32
// item 5's select on channels passed in).
var selectParamsSrc = strings.NewReplacer(
	"func TestHandoff", `func hand(jobs chan<- int, quit <-chan struct{}) bool {
	select { // select
	case jobs <- 1:
		return true
	case <-quit:
		return false
	}
}

func TestHandoff`,
	`	select { // select
	case jobs <- 1:
	case <-quit:
		return
	}
`, `	if !hand(jobs, quit) {
		return
	}
`).Replace(selectStuckSrc)

// TestSelectParamsPredicted: the test's own goroutine waits for ever in
// the helper's select, a predicted deadlock whose sentence names the
// quit case; with a buffered jobs channel there is no finding.
func TestSelectParamsPredicted(t *testing.T) {
	if strings.Count(selectParamsSrc, "// select") != 1 || !strings.Contains(selectParamsSrc, "if !hand(jobs, quit)") {
		t.Fatalf("selectStuckSrc has changed: %s", selectParamsSrc)
	}
	selectStuckPair(t, selectParamsSrc) // selectstuck_test.go
}
