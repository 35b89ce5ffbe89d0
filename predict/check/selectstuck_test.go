// This file holds the end-to-end test of issue 32's select that can
// never proceed: the test's select sends a job to a one-shot worker or
// gives up on a quit channel that nothing closes; a helper sends on the
// same channel. In a schedule where the helper's send takes the worker,
// the select waits for ever: predicted from a run that does not hang,
// with a witness the checker replayed. Its fixed twin, a buffered
// channel, gives no finding.

package check

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

// selectStuckSrc: CAP is replaced by the jobs channel's capacity
// argument. The helper's sleep makes the recorded run hand the job over
// first; it orders nothing. The test's last sleep lets the helper's exit
// be recorded before the process ends (without it, a loaded machine
// sometimes ends the trace first, and a goroutine not seen to end is
// never run to its end in a witness).
const selectStuckSrc = `package p

import (
	"testing"
	"time"
)

func TestHandoff(t *testing.T) {
	jobs := make(chan intCAP)
	quit := make(chan struct{})
	go func() {
		<-jobs // taker
	}()
	go func() {
		time.Sleep(300 * time.Millisecond)
		jobs <- 2 // helper
	}()
	select { // select
	case jobs <- 1:
	case <-quit:
		return
	}
	<-jobs
	time.Sleep(100 * time.Millisecond) // the helper's exit makes it into the trace
}
`

// TestSelectStuckPredicted: with an unbuffered jobs channel the helper
// can take the worker, and the test's select can never proceed: a
// predicted deadlock at the select whose sentence names the quit case,
// in SARIF too; with a buffered one there is no finding.
func TestSelectStuckPredicted(t *testing.T) {
	selectStuckPair(t, selectStuckSrc)
}

// selectStuckPair records src, its CAP replaced by nothing, and checks
// the predicted deadlock at its select (marked "// select") and its
// sentence, in SARIF too; then with CAP ", 2", that there is no finding.
func selectStuckPair(t *testing.T, src string) {
	if testing.Short() {
		t.Skip("records tests")
	}
	t.Run("bug", func(t *testing.T) {
		src := strings.Replace(src, "CAP", "", 1)
		rep, dir := recordOne(t, src)
		f := onePredictedBlock(t, rep)
		sel := markedLine(t, src, "// select")
		if a := f.Accesses[0]; a.Line != sel {
			t.Errorf("blocked operation %s at line %d, want the select at %d", a.Op, a.Line, sel)
		}
		got := report.StuckSentences(&f, filepath.Base)
		if len(got) != 1 || !strings.Contains(got[0], "select at p_test.go:"+strconv.Itoa(sel)+" can never proceed") ||
			!strings.Contains(got[0], "its case on jobs taken in the recorded run has lost its partner") ||
			!strings.Contains(got[0], "receive from quit can never complete: no operation in the program could complete it") {
			t.Errorf("the finding does not say why the select cannot proceed: %q", got)
		}
		sarifTells(t, rep, dir, "receive from quit can never complete")
	})
	t.Run("fixed", func(t *testing.T) {
		noFinding(t, strings.Replace(src, "CAP", ", 2", 1))
	})
}

// onePredictedBlock returns rep's only finding, which must be a
// predicted deadlock of one goroutine with a witness.
func onePredictedBlock(t *testing.T, rep *report.Report) report.Finding {
	t.Helper()
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want one deadlock", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Kind != report.KindDeadlock || !f.Predicted || len(f.Witness) == 0 || len(f.Accesses) != 1 {
		t.Fatalf("finding %+v, want a predicted deadlock of one goroutine with a witness", f)
	}
	return f
}

// sarifTells checks that rep's SARIF (files relative to dir) is valid and
// holds a deadlock result that says phrase.
func sarifTells(t *testing.T, rep *report.Report, dir, phrase string) {
	t.Helper()
	sarifTellsOf(t, rep, dir, report.KindDeadlock, phrase)
}

// sarifTellsOf is sarifTells for a result of kind.
func sarifTellsOf(t *testing.T, rep *report.Report, dir string, kind report.Kind, phrase string) {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: dir}); err != nil {
		t.Fatal(err)
	}
	sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
	if !strings.Contains(b.String(), `"ruleId": "`+string(kind)+`"`) || !strings.Contains(b.String(), phrase) {
		t.Errorf("SARIF has no %s result that says %q", kind, phrase)
	}
}
