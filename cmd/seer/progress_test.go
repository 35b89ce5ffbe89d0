// This file tests the live progress lines of seer check on a terminal
// (progress.go): what each line says, how the lines are redrawn in place,
// and that none is left when the check ends.

package main

import (
	"bytes"
	"os"

	"testing"
	"time"

	"github.com/seer-tools/seer/predict/check"
)

func TestLiveProgress(t *testing.T) {
	var out bytes.Buffer
	l := newLiveProgress(&out, 60)
	now := time.Unix(0, 0)
	l.now = func() time.Time { return now }
	steps := []struct {
		p     check.Progress
		later time.Duration // since the step before
		want  string        // what is written, "" for nothing
	}{
		{check.Progress{Package: "ex/a", Stage: check.StageBuilding}, time.Second,
			"\x1b[2Kseer: ex/a: building\n\x1b[J"},
		{check.Progress{Package: "ex/b", Stage: check.StageBuilding}, time.Second,
			"\r\x1b[1A\x1b[2Kseer: ex/a: building\n\x1b[2Kseer: ex/b: building\n\x1b[J"},
		{check.Progress{Package: "ex/a", Stage: check.StageRecording, Events: 1200}, time.Second,
			"\r\x1b[2A\x1b[2Kseer: ex/a: recording, 1200 events\n\x1b[2Kseer: ex/b: building\n\x1b[J"},
		// Within redrawEvery of the last drawing: not drawn.
		{check.Progress{Package: "ex/a", Stage: check.StageTestEnded, Test: "TestX", Result: "pass"}, time.Millisecond, ""},
		{check.Progress{Package: "ex/a", Stage: check.StageTestEnded, Test: "TestLongName", Result: "fail"}, time.Second,
			"\r\x1b[2A\x1b[2Kseer: ex/a: recording, 1200 events; tests: 1 passed, 1 fail\n\x1b[2Kseer: ex/b: building\n\x1b[J"},
		{check.Progress{Package: "ex/a", Stage: check.StageDone}, time.Millisecond,
			"\r\x1b[2A\x1b[2Kseer: ex/b: building\n\x1b[J"},
		{check.Progress{Package: "ex/c", Stage: check.StageCached}, time.Millisecond, ""},
	}
	for i, s := range steps {
		now = now.Add(s.later)
		out.Reset()
		l.update(s.p)
		if got := out.String(); got != s.want {
			t.Errorf("step %d (%s %s): wrote %q, want %q", i, s.p.Package, s.p.Stage, got, s.want)
		}
	}
	out.Reset()
	l.clear()
	if got, want := out.String(), "\r\x1b[1A\x1b[J"; got != want {
		t.Errorf("clear wrote %q, want %q", got, want)
	}
	out.Reset()
	l.clear()
	if out.Len() != 0 {
		t.Errorf("a second clear wrote %q", out.String())
	}
}

// TestProgressNotOnPipe checks that seer check draws no progress when
// standard error is not a terminal (a pipe here).
func TestProgressNotOnPipe(t *testing.T) {
	if _, tty := terminalWidth(devNull(t)); tty {
		t.Fatal("/dev/null taken for a terminal")
	}
}

func devNull(t *testing.T) *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
