// This file embeds the shadow runtime's timer-context file
// (runtime/timerctx.go.in), which tells the recorder by which pc
// racegostart makes a timer context (see __tsan_go_start in recorder.c).

package record

import (
	_ "embed"

	"github.com/seer-tools/seer/internal/gocmd"
)

//go:embed runtime/timerctx.go.in
var timerContextSource []byte

// timerContext is the file as the shadow GOROOT adds it. Needs are the
// runtime's declarations it uses, the last the very call whose pc it
// passes: a Go release that makes its timer contexts otherwise gets no
// file, and the recorder tells them by their parent alone.
var timerContext = gocmd.ShadowFile{
	Path:   "src/runtime/seer_timerctx.go",
	Source: timerContextSource,
	Needs: []string{
		"func racecall(fn *byte, arg0, arg1, arg2, arg3 uintptr)",
		"func (ts *timers) run(",
		"racegostart(abi.FuncPCABIInternal((*timers).run) + sys.PCQuantum)",
	},
}

// shadowFiles are the files the recording toolchain's shadow GOROOT adds
// to the standard library.
var shadowFiles = []gocmd.ShadowFile{hangWatch, timerContext}
