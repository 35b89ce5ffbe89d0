// This file implements the recording side of hangs ended at once: the
// shadow runtime's hang watcher (runtime/hangwatch.go.in, which says why
// its test is sound) is added to the shadow GOROOT, switched on through
// SEER_HANG, and its report in the test's output is read back as the
// place each goroutine waited, by the trace's goroutine ids.

package record

import (
	_ "embed"
	"strconv"
	"strings"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/trace"
)

//go:embed runtime/hangwatch.go.in
var hangWatchSource []byte

// DefaultHang is RecordOptions.Hang's default: how long every goroutine
// of a run must have been blocked on synchronisation, with no timer
// pending but the test's -timeout, before the run is ended as hung.
const DefaultHang = time.Second

// hangEnvVar switches the watcher on: the hang time in milliseconds.
const hangEnvVar = "SEER_HANG"

// leftEnvVar switches the exit hook on: the goroutines left alive when
// the test binary exits, after goleak's grace.
const leftEnvVar = "SEER_LEFT"

// A goroutineReport is how one of the shadow runtime's reports shows in
// the test's output: a line per goroutine ("seer: hang: goroutine 7 is
// g12 [chan receive]"), then the line that starts the goroutines'
// stacks, then the stacks, up to the end line if it has one.
type goroutineReport struct {
	line  string // each goroutine's line starts with it
	start string // the line that starts the stacks starts with it
	end   string // the line after the stacks, or ""
}

// The hang watcher's report and the exit hook's.
var (
	hangReport = goroutineReport{line: "seer: hang: goroutine ", start: "fatal error: "}
	leftReport = goroutineReport{line: "seer: left: goroutine ", start: "seer: left: stacks", end: "seer: left: end"}
)

// A HangWait is where one goroutine waited when the hang watcher ended
// the run (RecordResult.Hang).
type HangWait struct {
	G      trace.GoID // the goroutine in the trace, or 0 if the trace has none for it
	GoID   int64      // Go's own goroutine id, as the stacks print it
	Reason string     // the runtime's wait reason: "chan receive", "select", "sync.Mutex.Lock", ...; for Left, also "running", "runnable", "syscall"
	// Proven says the runtime's leak detection (the GC that
	// runtime/pprof's goroutineleak profile runs) found the goroutine
	// blocked on an object no live goroutine can reach (Left only).
	Proven bool
	Stack  []trace.Frame // its stack as the runtime printed it, innermost first; the last frame, for a goroutine a go statement created, is "created by F"
}

// hangWatch is the watcher as the shadow GOROOT adds it. Needs are the
// runtime's declarations it uses: a Go release whose runtime lacks one
// gets no watcher (a hung test then waits for its -timeout, as it would
// without seer), rather than a runtime that does not compile.
var hangWatch = gocmd.ShadowFile{
	Path:   "src/runtime/seer_hangwatch.go",
	Source: hangWatchSource,
	Needs: []string{
		"func forEachG(fn func(gp *g))", "func isSystemGoroutine(gp *g, fixed bool) bool",
		"func readgstatus(gp *g) uint32", "func newm(fn func(), pp *p, id int64)",
		"func racecall(fn *byte, arg0, arg1, arg2, arg3 uintptr)", "func fatal(s string)",
		"func funcname(f funcInfo) string", "func gogetenv(key string) string",
		"_Gdeadextra", "_Gleaked", "racectx ", "waitreason ", "waiting ", "allpLock ",
		"heap []timerWhen", "timerZombie", "astate ", "type eface struct", "type funcval struct",
		"waitReasonChanReceiveNilChan", "waitReasonChanSendNilChan", "waitReasonSelectNoCases",
		"waitReasonSyncCondWait", "waitReasonSyncMutexLock", "waitReasonSyncRWMutexRLock",
		"waitReasonSyncRWMutexLock", "waitReasonSyncWaitGroupWait", "waitReasonSleep",
		"atomicstatus atomic.Uint32", "waitlink *sudog", "timer    *timer",
		"type maybeTraceableChan struct", "vu uintptr", "internal/runtime/exithook",
		"func goroutineLeakGC()", "func timeSleep(ns int64)", "func Stack(buf []byte, all bool) int", "func gwrite(b []byte)",
	},
}

// hangEnv returns the environment that sets the watcher's time: d, or
// DefaultHang if d is 0; none if d is negative (the watcher stays off);
// and, if left is set, switches the exit hook on.
func hangEnv(d time.Duration, left bool) []string {
	var env []string
	if left {
		env = append(env, leftEnvVar+"=1")
	}
	if d < 0 {
		return env
	}
	if d == 0 {
		d = DefaultHang
	}
	return append(env, hangEnvVar+"="+strconv.FormatInt(max(d.Milliseconds(), 1), 10))
}

// hangScan reads a goroutineReport from the test's output: its lines,
// then the stack of each goroutine they name.
type hangScan struct {
	waits []HangWait
	byID  map[int64]int // Go goroutine id -> index in waits
	gids  []uint32      // the recorder's id of each wait
	cur   int           // the wait whose stack is being read, or -1
	fatal bool          // the line that starts the stacks was seen
	done  bool          // the end line was seen
}

// note reads one line of output, of report r.
func (h *hangScan) note(line string, r goroutineReport) {
	if h.done {
		return
	}
	if rest, ok := strings.CutPrefix(line, r.line); ok && !h.fatal {
		// "7 is g12 [chan receive]"
		id, rest, ok1 := strings.Cut(rest, " is g")
		gid, reason, ok2 := strings.Cut(rest, " [")
		goid, err1 := strconv.ParseInt(id, 10, 64)
		g, err2 := strconv.ParseUint(gid, 10, 32)
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			return
		}
		if h.byID == nil {
			h.byID = map[int64]int{}
		}
		h.byID[goid] = len(h.waits)
		reason = strings.TrimSuffix(reason, "]")
		proven := false
		if r, ok := strings.CutPrefix(reason, "leaked, "); ok {
			reason, proven = r, true
		}
		h.waits = append(h.waits, HangWait{GoID: goid, Reason: reason, Proven: proven})
		h.gids = append(h.gids, uint32(g))
		h.cur = -1
		return
	}
	if len(h.waits) == 0 {
		return
	}
	if !h.fatal {
		if strings.HasPrefix(line, r.start) {
			h.fatal, h.cur = true, -1
		}
		return
	}
	if r.end != "" && line == r.end {
		h.done = true
		return
	}
	// "goroutine 7 [chan receive]:" or, with more detail,
	// "goroutine 7 gp=0x... m=nil [chan receive, 2 minutes]:".
	if rest, ok := strings.CutPrefix(line, "goroutine "); ok && strings.HasSuffix(line, ":") {
		id, _, _ := strings.Cut(rest, " ")
		h.cur = -1
		if goid, err := strconv.ParseInt(id, 10, 64); err == nil {
			if i, ok := h.byID[goid]; ok {
				h.cur = i
			}
		}
		return
	}
	if h.cur < 0 {
		return
	}
	if line == "" {
		h.cur = -1
		return
	}
	h.waits[h.cur].Stack = appendStackLine(h.waits[h.cur].Stack, line)
}

// result returns the waits, each with its goroutine's trace id from
// goIDs (the converter's map from the recorder's ids), or nil if the
// report's stacks did not follow.
func (h *hangScan) result(goIDs map[uint32]trace.GoID) []HangWait {
	if h == nil || !h.fatal {
		return nil
	}
	for i := range h.waits {
		h.waits[i].G = goIDs[h.gids[i]]
	}
	return h.waits
}

// appendStackLine parses a line of a goroutine's stack as the runtime
// prints it onto frames: a function line ("pkg.F(args)", "created by
// ...") starts a frame, the tab-indented "file:line +0x.." line after it
// places the frame.
func appendStackLine(frames []trace.Frame, line string) []trace.Frame {
	switch {
	case strings.HasPrefix(line, "created by "):
		// The go statement that created the goroutine: a last frame,
		// "created by F" (its "in goroutine N" dropped), placed by the
		// next line.
		fn, _, _ := strings.Cut(line, " in goroutine ")
		return append(frames, trace.Frame{Func: fn})
	case strings.HasPrefix(line, "\t"):
		n := len(frames)
		if n == 0 || frames[n-1].File != "" {
			return frames
		}
		loc := strings.TrimPrefix(line, "\t")
		if i := strings.LastIndex(loc, " +0x"); i >= 0 {
			loc = loc[:i]
		}
		i := strings.LastIndex(loc, ":")
		if i < 0 {
			return frames
		}
		l, err := strconv.Atoi(loc[i+1:])
		if err != nil {
			return frames
		}
		frames[n-1].File, frames[n-1].Line = loc[:i], l
		return frames
	default:
		fn := line
		if i := strings.LastIndex(fn, "("); i > 0 {
			fn = fn[:i]
		}
		return append(frames, trace.Frame{Func: fn})
	}
}
