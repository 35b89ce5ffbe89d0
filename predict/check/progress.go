// This file implements the live part of Run's progress (Options.Live):
// the events a run has recorded so far, and each top-level test as it
// ends, for a terminal's progress line.

package check

import (
	"bytes"
	"io"
	"regexp"
	"strings"

	"github.com/seer-tools/seer/trace/record"
)

// The stages of Progress.
const (
	StageBuilding   = "building"
	StageRunning    = "running"
	StageConverting = "converting"
	StageAnalysing  = "analysing"
	StageReplaying  = "replaying"
	// StageRecording (with Options.Live) reports the events a run has
	// recorded so far, a few times a second while its test runs.
	StageRecording = "recording"
	// StageTestEnded (with Options.Live) reports a top-level test that
	// ended: Progress.Test and Progress.Result ("pass", "fail", "skip").
	StageTestEnded = "test"
	// StageDone reports a package checked (or answered from the cache,
	// StageCached): nothing more comes for it.
	StageDone = "done"
)

// liveOptions adds to ropts what reports opts.Live's stages for pkg.
func liveOptions(opts Options, pkg string, ropts record.RecordOptions) record.RecordOptions {
	if !opts.Live || opts.Progress == nil {
		return ropts
	}
	ropts.Live = func(events int) {
		opts.Progress(Progress{Package: pkg, Stage: StageRecording, Events: events})
	}
	w := ropts.Stderr
	if w == nil {
		w = io.Discard
	}
	ropts.Stderr = &testEnds{w: w, ended: func(test, result string) {
		opts.Progress(Progress{Package: pkg, Stage: StageTestEnded, Test: test, Result: result})
	}}
	return ropts
}

// testEnds passes a test binary's -test.v output on to w, and calls
// ended for each top-level test whose end it reads.
type testEnds struct {
	w     io.Writer
	ended func(test, result string)
	line  []byte // a line begun
}

// topLevelEnd matches the line that ends a top-level test (a subtest's is
// indented).
var topLevelEnd = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (\S+) \(`)

func (t *testEnds) Write(b []byte) (int, error) {
	n, err := t.w.Write(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(t.line) < 4096 {
				t.line = append(t.line, b...)
			}
			break
		}
		line := append(t.line, b[:i]...)
		t.line, b = t.line[:0], b[i+1:]
		line = bytes.TrimPrefix(line, []byte("\x16")) // test2json's framing marker
		if m := topLevelEnd.FindSubmatch(line); m != nil {
			t.ended(string(m[2]), strings.ToLower(string(m[1])))
		}
	}
	return n, err
}
