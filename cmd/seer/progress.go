// This file implements seer check's live progress on a terminal: a line
// on standard error per package being checked (building, recording n
// events and the tests that ended, analysing), redrawn in place and gone
// when the package is done, so that the report is all that stays.

package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

// liveProgress draws the progress lines on a terminal.
type liveProgress struct {
	mu    sync.Mutex
	w     io.Writer
	width int // of the terminal: longer lines are cut, not wrapped
	order []string
	state map[string]*packageProgress
	drawn int // lines on the screen
	last  time.Time
	now   func() time.Time
}

// packageProgress is what one package's line says.
type packageProgress struct {
	stage  string
	events int
	ended  map[string]int // tests by result
	test   string         // the last test that ended, and how
	result string
}

func newLiveProgress(w io.Writer, width int) *liveProgress {
	return &liveProgress{w: w, width: width, state: map[string]*packageProgress{}, now: time.Now}
}

// redrawEvery bounds how often the frequent stages (the events recorded,
// a test that ended) redraw the lines.
const redrawEvery = 100 * time.Millisecond

// update takes a stage of check.Run and redraws.
func (l *liveProgress) update(p check.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.state[p.Package]
	switch p.Stage {
	case check.StageDone, check.StageCached:
		if s == nil {
			return
		}
		delete(l.state, p.Package)
		for i, pkg := range l.order {
			if pkg == p.Package {
				l.order = append(l.order[:i], l.order[i+1:]...)
				break
			}
		}
		l.draw()
		return
	}
	if s == nil {
		s = &packageProgress{ended: map[string]int{}}
		l.state[p.Package] = s
		l.order = append(l.order, p.Package)
	}
	frequent := false
	switch p.Stage {
	case check.StageTestEnded:
		s.ended[p.Result]++
		s.test, s.result = p.Test, p.Result
		frequent = true
	case check.StageRecording:
		s.stage, s.events = p.Stage, p.Events
		frequent = true
	default:
		s.stage, s.events = p.Stage, p.Events
	}
	if frequent && l.now().Sub(l.last) < redrawEvery {
		return
	}
	l.draw()
}

// line words one package's progress.
func (s *packageProgress) line(pkg string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seer: %s: ", pkg)
	switch s.stage {
	case check.StageRunning:
		b.WriteString("recording")
	case check.StageRecording:
		fmt.Fprintf(&b, "recording, %s", plural(s.events, "event"))
	case check.StageConverting:
		b.WriteString("converting the recording")
	case check.StageAnalysing:
		fmt.Fprintf(&b, "analysing %s", plural(s.events, "event"))
	case check.StageReplaying:
		b.WriteString("replaying witnesses")
	default:
		b.WriteString(s.stage)
	}
	if s.test != "" {
		fmt.Fprintf(&b, "; tests: %s; last %s %s", report.OutcomeCounts(s.ended), s.test, report.OutcomeWord(s.result))
	}
	return b.String()
}

// draw rewrites the lines in place: up to the first, then each line
// cleared and written, then what is left of the old ones cleared.
func (l *liveProgress) draw() {
	var b strings.Builder
	if l.drawn > 0 {
		fmt.Fprintf(&b, "\r\x1b[%dA", l.drawn)
	}
	for _, pkg := range l.order {
		line := l.state[pkg].line(pkg)
		if l.width > 1 && len(line) >= l.width {
			line = line[:l.width-1]
		}
		b.WriteString("\x1b[2K" + line + "\n")
	}
	b.WriteString("\x1b[J")
	io.WriteString(l.w, b.String())
	l.drawn = len(l.order)
	l.last = l.now()
}

// clear removes the lines, for what is printed next.
func (l *liveProgress) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.order, l.state = nil, map[string]*packageProgress{}
	if l.drawn > 0 {
		l.draw()
	}
}

// terminalWidth returns the width of the terminal f is, or false if f is
// not a terminal.
func terminalWidth(f *os.File) (int, bool) {
	var t syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); errno != 0 {
		return 0, false
	}
	var ws struct{ Row, Col, X, Y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); errno != 0 || ws.Col == 0 {
		return 80, true
	}
	return int(ws.Col), true
}
