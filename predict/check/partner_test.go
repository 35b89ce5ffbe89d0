// This file holds the end-to-end test of issue 32's taken partner: on a
// channel that two goroutines send on, a schedule in which the helper's
// send takes the one-shot worker that the test's own send had in the
// run, leaving the test's send waiting for ever, is predicted from a run
// that does not hang, with a witness the checker replayed; its fixed
// twin gives no finding.

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// takenPartnerSrc: the test hands one job to a worker that takes one
// message and exits, then waits for the helper's reply. The helper's
// sleep makes the recorded run hand the job over first; it orders
// nothing. (Whether the worker or the test reaches the channel first
// changes nothing.) The test's last sleep lets the helper's exit be
// recorded before the process ends (selectstuck_test.go). REPLY is
// replaced by the channel the helper replies on.
const takenPartnerSrc = `package p

import (
	"testing"
	"time"
)

func TestHandoff(t *testing.T) {
	jobs := make(chan int)
	reply := REPLY
	go func() {
		<-jobs // taker
	}()
	go func() {
		time.Sleep(300 * time.Millisecond)
		reply <- 2 // helper
	}()
	jobs <- 1 // send
	if v := <-reply; v != 2 {
		t.Error(v)
	}
	time.Sleep(100 * time.Millisecond) // the helper's exit makes it into the trace
}
`

// TestTakenPartnerPredicted: with the reply on the jobs channel, the
// helper can take the worker, and the test's send waits for ever: a
// predicted deadlock whose one blocked goroutine is the test's send, in
// SARIF too; with a reply channel of its own there is no finding.
func TestTakenPartnerPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	t.Run("bug", func(t *testing.T) {
		src := strings.Replace(takenPartnerSrc, "REPLY", "jobs", 1)
		rep, dir := recordOne(t, src)
		f := onePredictedBlock(t, rep) // selectstuck_test.go
		if a := f.Accesses[0]; a.Op != "send" || a.Line != markedLine(t, src, "// send") {
			t.Errorf("blocked operation %s at line %d, want the send at %d", a.Op, a.Line, markedLine(t, src, "// send"))
		}
		if got := report.RepairedSentences(&f, filepath.Base); len(got) != 1 ||
			!strings.Contains(got[0], "receive on jobs at p_test.go:"+strconv.Itoa(markedLine(t, src, "// taker"))) ||
			!strings.Contains(got[0], "send at :"+strconv.Itoa(markedLine(t, src, "// helper"))+" takes it first") {
			t.Errorf("the finding does not say the helper took the taker: %q", got)
		}
		sarifTells(t, rep, dir, "takes it first")
	})
	t.Run("fixed", func(t *testing.T) {
		noFinding(t, strings.Replace(takenPartnerSrc, "REPLY", "make(chan int)", 1))
	})
}
