// This file implements turning the predictor's findings (event indices)
// into report findings (source positions, goroutines, witness steps), and
// the rule that keeps only user findings.

package check

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

// eventFrames returns the stack userFinding reports for event e: its
// own or, for a goroutine whose only event is its start (one left
// blocked in a receive, which leaves none), its go statement's.
func eventFrames(t *trace.Trace, e *trace.Event) []trace.Frame {
	frames := t.Stack(e.Stack)
	if len(frames) == 0 && e.Op == trace.OpStart {
		if g := t.Goroutine(e.G); g != nil {
			frames = t.Stack(g.Create)
		}
	}
	return frames
}

// goroutineTest returns the test userFinding gives an event of goroutine
// g with stack frames, "" for none.
func goroutineTest(t *trace.Trace, g *trace.Goroutine, frames []trace.Frame) string {
	if g == nil {
		return ""
	}
	if runtimeMade(t, g) {
		// Finalizers or cleanups: the running test is a guess, the
		// function's own test is not.
		if st := stackTest(t, frames); st != "" {
			return st
		}
	}
	return g.Test
}

// findingTest returns the test userFinding gives f, and false where it
// reports nothing for f (an event with no frame of the user's code, or
// of no test's goroutine); it reads only f's events, where userFinding
// needs an index of the whole trace.
func findingTest(t *trace.Trace, f *predict.Finding) (string, bool) {
	std := t.Header.Format == "std"
	test := ""
	for _, i := range f.Events {
		e := &t.Events[i]
		frames := eventFrames(t, e)
		if _, ok := trace.UserFrame(frames, t.Header.GOROOT); !ok {
			return "", false
		}
		if std {
			continue
		}
		gt := goroutineTest(t, t.Goroutine(e.G), frames)
		if gt == "" {
			return "", false
		}
		if test == "" {
			test = gt
		}
	}
	return test, true
}

// userFinding converts f, or reports false when f is not the user's: an
// access with no user-code frame (a race inside the testing harness or the
// runtime) or one made by a goroutine that belongs to no test. STD traces
// have no tests, and all their findings are the user's.
func userFinding(t *trace.Trace, f *predict.Finding, src Source, ix *traceIndex) (report.Finding, bool) {
	std := t.Header.Format == "std"
	if !std && f.Kind == predict.KindAtomicity && libraryOwn(t, f) {
		return report.Finding{}, false
	}
	out := report.Finding{Kind: f.Kind, Predicted: f.Predicted, Count: f.Count}
	names := newNamer(t, src)
	if out.Count == 0 {
		out.Count = 1
	}
	for _, i := range f.Events {
		e := &t.Events[i]
		frames := eventFrames(t, e)
		site, ok := trace.UserFrame(frames, t.Header.GOROOT)
		if !ok {
			return report.Finding{}, false
		}
		g := t.Goroutine(e.G)
		if !std {
			test := goroutineTest(t, g, frames)
			if test == "" {
				return report.Finding{}, false
			}
			if out.Test == "" {
				out.Test = test
			}
		}
		a := report.Access{
			File:      site.File,
			Line:      site.Line,
			Op:        e.Op.String(),
			Goroutine: int(e.G),
			Stack:     toFrames(frames),
			Event:     i,
		}
		if g != nil && g.Create != 0 {
			a.Created = toFrames(t.Stack(g.Create))
		}
		if f.Kind.IsMisuse() {
			a.Op = misuseOp(t, i)
			a.Variable = names.misuseObject(i, site) // the channel, WaitGroup or mutex
		} else if f.Kind == predict.KindLeak && f.Predicted && !f.TestReturns {
			a.Op = leakOp(t, i)
			if a.Op == "send" || a.Op == "select" {
				a.Variable = names.misuseObject(i, site) // the channel
			}
		} else if name := t.ObjectName(e.Obj); name != "" {
			a.Variable = shortName(name)
		} else if f.Kind == predict.KindDeadlock || f.TestReturns {
			a.Variable = names.object(i, true) // the lock, as the source names it
			if n := stuckName(t, f, i, names); n != "" {
				a.Variable = n // a select's: its case's channel (selectcases.go)
			}
		}
		if f.Kind == predict.KindDeadlock {
			a.Holds = heldBefore(t, i, names)
		}
		if src != nil && !std {
			src.Refine(&a, e.Op == trace.OpWrite, rangeSize(e))
			if (f.Kind == predict.KindNilDeref || f.Kind == predict.KindIndexOutOfRange || f.Kind == predict.KindNilMapWrite) && e.Op == trace.OpRead {
				if _, name := nilUseOf(t, i, src); name != "" {
					a.Variable = name // the pointer or slice, not what it points to
				}
			}
		}
		if out.Variable == "" {
			out.Variable = a.Variable
		}
		if a.Variable != "" {
			names.known[i] = a.Variable
		}
		out.Accesses = append(out.Accesses, a)
	}
	for j, k := range f.WaitsFor {
		if j < len(out.Accesses) && k >= 0 && k < len(f.Events) {
			out.Accesses[j].WaitsFor = int(t.Events[f.Events[k]].G)
		}
	}
	access := map[int]bool{}
	for _, i := range f.Events {
		access[i] = true
	}
	for _, i := range f.Witness {
		e := &t.Events[i]
		frames := t.Stack(e.Stack)
		site, user := trace.UserFrame(frames, t.Header.GOROOT)
		if !user && len(frames) > 0 {
			site = frames[0]
		}
		st := report.Step{
			Goroutine: int(e.G),
			Op:        e.Op.String(),
			File:      site.File,
			Line:      site.Line,
			Event:     i,
			Object:    names.object(i, user || std),
		}
		if user && !std && !access[i] {
			st.Within = names.within(i)
		}
		st.Text = stepWords(t, i, st.Object, st.Within)
		out.Witness = append(out.Witness, st)
	}
	out.WitnessPrefix = scheduledBeforeWindow(t, f, ix)
	out.PrefixEnd = max(f.Prefix, 0)
	out.PrefixStops = prefixStops(t, f, ix)
	out.Reordered = reordered(t, f, ix, names)
	out.Repaired = repaired(t, f, names)
	out.Stuck = stuck(t, f, names) // selectcases.go
	return out, true
}

// repaired names, for each rendezvous on a channel that f's witness
// pairs otherwise than the recorded run (predict's deadlock_partner.go,
// witness/partner.go), the receive, the send it took in the run and
// the send it takes in the witness (report.Finding.Repaired).
func repaired(t *trace.Trace, f *predict.Finding, names *namer) []report.Sync {
	var out []report.Sync
	add := func(i int) {
		e := &t.Events[i]
		site, user := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT)
		if !user {
			site = t.Site(e)
		}
		out = append(out, report.Sync{Op: e.Op.String(), Goroutine: int(e.G), File: site.File, Line: site.Line, Object: names.object(i, user)})
	}
	w := f.Witness
	for k := 0; k+4 <= len(w); k++ {
		four := w[k : k+4]
		recv, send := -1, -1 // the receive's acquire, the send's release
		for _, i := range four {
			switch e := &t.Events[i]; {
			case e.Op == trace.OpRecv && e.Sync == trace.SyncAcquire:
				recv = i
			case e.Op == trace.OpSend && e.Sync == trace.SyncRelease:
				send = i
			}
		}
		a, b := &t.Events[four[0]], &t.Events[four[1]]
		if recv < 0 || send < 0 || a.Obj != b.Obj || a.G == b.G || t.Events[four[2]].G != b.G || t.Events[four[3]].G != a.G {
			continue
		}
		was := int(t.Events[recv].Peer)
		if was < 0 || was == send || was >= len(t.Events) {
			continue
		}
		add(recv)
		add(was)
		add(send)
		k += 3
	}
	return out
}

// libraryOwn reports whether every access of f is made by the standard
// library (its innermost frame under GOROOT) to a package-level variable
// of the package making it, such as syscall.forking from
// syscall.acquireForkLock: state the user's code cannot have passed in.
// For an atomicity violation the interleaving of such state is the
// library's own design, never the user's bug. A data race there is still
// reported (calling a library that is not safe for concurrent use from
// two goroutines, such as flag.Parse, races on its package state, and
// the run may show it). Memory the user's code allocated or declared is
// never excluded: a bufio.Reader shared by two goroutines is reported at
// the lines that call into it.
func libraryOwn(t *trace.Trace, f *predict.Finding) bool {
	if t.Header.GOROOT == "" || len(f.Events) == 0 {
		return false
	}
	for _, i := range f.Events {
		e := &t.Events[i]
		top, ok := t.Stacks.Top(e.Stack)
		if !ok || top.File == "" || trace.IsUserFrame(top, t.Header.GOROOT) {
			return false
		}
		o := t.Object(e.Obj)
		name := t.ObjectName(e.Obj)
		if o == nil || o.Alloc != 0 || name == "" || funcPackage(top.Func) != symbolPackage(name) {
			return false
		}
	}
	return true
}

// symbolPackage returns the package path of a package-level symbol name
// ("net/http.DefaultClient" → "net/http").
func symbolPackage(name string) string {
	slash := strings.LastIndexByte(name, '/')
	if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
		return name[:slash+1+dot]
	}
	return ""
}

// funcPackage returns the package path of a function's symbol name
// ("syscall.acquireForkLock", "net/http.(*Client).Do" → its package).
func funcPackage(fn string) string { return symbolPackage(fn) }

// limits returns each goroutine's limit in f's schedule (see
// predict.Finding.Prefix): its events below the limit and below Prefix
// run, in observed order, before the window.
func limits(t *trace.Trace, f *predict.Finding) []int {
	limit := make([]int, len(t.Goroutines))
	for g := range limit {
		limit[g] = int(^uint(0) >> 1)
	}
	for _, list := range [][]int{f.Witness, f.Stops} {
		for _, i := range list {
			if g := t.Events[i].G; i < limit[g] {
				limit[g] = i
			}
		}
	}
	return limit
}

// scheduledBeforeWindow counts the recorded events f's schedule runs
// before its window: each goroutine's events below both Prefix and its
// limit.
func scheduledBeforeWindow(t *trace.Trace, f *predict.Finding, ix *traceIndex) int {
	if f.Prefix <= 0 {
		return 0
	}
	limit := limits(t, f)
	n := 0
	for g, evs := range ix.byG {
		n += below(evs, min(f.Prefix, limit[g]))
	}
	return n
}

// prefixStops lists the goroutines that f's schedule stops before
// Prefix: those with recorded events below Prefix at or after their
// limit, which the prefix leaves out.
func prefixStops(t *trace.Trace, f *predict.Finding, ix *traceIndex) []report.Stop {
	if f.Prefix <= 0 {
		return nil
	}
	limit := limits(t, f)
	var out []report.Stop
	for g, evs := range ix.byG {
		if limit[g] >= f.Prefix {
			continue
		}
		from := below(evs, limit[g])
		left := below(evs, f.Prefix) - from
		if left <= 0 {
			continue
		}
		e := &t.Events[evs[from]]
		site, user := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT)
		if !user {
			site = t.Site(e)
		}
		out = append(out, report.Stop{Goroutine: g, Event: int(evs[from]), Left: left, File: site.File, Line: site.Line, Harness: !user && t.Header.Format != "std"})
	}
	return out
}

func toFrames(frames []trace.Frame) []report.Frame {
	out := make([]report.Frame, len(frames))
	for i, f := range frames {
		out[i] = report.Frame{Func: f.Func, File: f.File, Line: f.Line}
	}
	return out
}

// shortName drops the package path from a global's symbol name:
// "example.com/bank.hits" -> "bank.hits".
func shortName(sym string) string {
	if i := strings.LastIndex(sym, "/"); i >= 0 {
		return sym[i+1:]
	}
	return sym
}

// A traceIndex lists each lock's acquisitions, all acquisitions, and each
// goroutine's events in trace order, built once per trace for the
// reports.
type traceIndex struct {
	byObj map[trace.ObjID][]int
	locks []int // every OpLock and OpRLock
	byG   [][]int32
}

func newTraceIndex(t *trace.Trace) *traceIndex {
	ix := &traceIndex{byObj: map[trace.ObjID][]int{}, byG: eventsByGoroutine(t)}
	for i := range t.Events {
		if e := &t.Events[i]; e.Op == trace.OpLock || e.Op == trace.OpRLock {
			ix.byObj[e.Obj] = append(ix.byObj[e.Obj], i)
			ix.locks = append(ix.locks, i)
		}
	}
	return ix
}

// below returns how many of the sorted events evs are below i.
func below(evs []int32, i int) int {
	n, _ := slices.BinarySearchFunc(evs, i, func(e int32, i int) int { return cmp.Compare(int(e), i) })
	return n
}

// reordered returns the critical sections whose order the witness changes:
// for each lock, the schedule's last acquisition of it (the overtaker) and
// the acquisitions the recorded run made before it, by other goroutines,
// that the schedule leaves out or runs after it. The overtaker is in the
// window, or in the prefix when the witness leaves a section out instead
// of moving it (the sound layers' witnesses: a goroutine stopped before a
// section that the recorded run had run first), or when the window runs a
// section after the prefix's later one (movedLater).
func reordered(t *trace.Trace, f *predict.Finding, ix *traceIndex, names *namer) []report.Sync {
	limit := limits(t, f)
	pos := make(map[int]int, len(f.Witness))
	last := map[trace.ObjID]int{}
	for p, i := range f.Witness {
		pos[i] = p
		if e := &t.Events[i]; e.Op == trace.OpLock || e.Op == trace.OpRLock {
			last[e.Obj] = i
		}
	}
	inPrefix := func(i int) bool { return f.Prefix > 0 && i < f.Prefix && i < limit[t.Events[i].G] }
	before := func(i, overtaker int) bool { // does the schedule run i before overtaker?
		if p, ok := pos[i]; ok {
			q, ok := pos[overtaker]
			return !ok || p < q
		}
		return inPrefix(i)
	}
	// Below the least limit, the prefix runs every recorded event: no
	// acquisition there is left out.
	low := f.Prefix
	for g := range limit {
		low = min(low, limit[g])
	}
	for _, i := range ix.locks[sort.SearchInts(ix.locks, max(low, 0)):] {
		if i >= f.Prefix || i >= len(t.Events) {
			break
		}
		e := &t.Events[i]
		if inPrefix(i) {
			continue
		}
		if _, ok := last[e.Obj]; ok {
			continue
		}
		// Left out: overtaken if the prefix runs a later acquisition.
		list := ix.byObj[e.Obj]
		for k := sort.SearchInts(list, f.Prefix) - 1; k >= 0 && list[k] > i; k-- {
			if inPrefix(list[k]) {
				last[e.Obj] = list[k]
				break
			}
		}
	}
	var out []report.Sync
	add := func(i int, first bool) {
		e := &t.Events[i]
		site, user := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT)
		if !user {
			site = t.Site(e)
		}
		out = append(out, report.Sync{Op: e.Op.String(), Goroutine: int(e.G), File: site.File, Line: site.Line, Object: names.object(i, user), First: first})
	}
	objs := make([]trace.ObjID, 0, len(last))
	for obj := range last {
		objs = append(objs, obj)
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i] < objs[j] })
	for _, obj := range objs {
		overtaker := last[obj]
		var overtaken []int
		list := ix.byObj[obj]
		for _, i := range list[sort.SearchInts(list, max(low, 0)):] {
			if i >= overtaker {
				break
			}
			if t.Events[i].G != t.Events[overtaker].G && !before(i, overtaker) {
				overtaken = append(overtaken, i)
			}
		}
		if len(overtaken) == 0 {
			overtaker, overtaken = movedLater(t, ix.byObj[obj], pos, inPrefix, f.Prefix)
		}
		if len(overtaken) > 0 {
			for _, i := range overtaken {
				add(i, false)
			}
			add(overtaker, true)
		}
	}
	return out
}

// movedLater returns, for a lock whose acquisitions are list, the
// sections a witness runs later than the recorded run did (its window's
// acquisitions, at pos, of a goroutine's section moved after another's:
// predict's section_move.go) and the prefix's last acquisition that the
// run made after them, which the schedule runs first; none when there is
// no such section.
func movedLater(t *trace.Trace, list []int, pos map[int]int, inPrefix func(int) bool, prefix int) (int, []int) {
	for k := sort.SearchInts(list, prefix) - 1; k >= 0; k-- {
		y := list[k]
		if !inPrefix(y) {
			continue
		}
		var moved []int
		for _, i := range list[:k] {
			if _, ok := pos[i]; ok && t.Events[i].G != t.Events[y].G {
				moved = append(moved, i)
			}
		}
		return y, moved
	}
	return 0, nil
}

// runtimeMade reports whether the runtime, not the test, started g: a
// batch of finalizers or cleanups (no creation stack, see the trace
// package's runtimegs.go) or a goroutine a runtime function created (the
// cleanup queue's goroutines).
func runtimeMade(t *trace.Trace, g *trace.Goroutine) bool {
	if g.Parent == 0 {
		return false
	}
	if g.Create == 0 {
		return true
	}
	st := t.Stack(g.Create)
	return len(st) > 0 && strings.HasPrefix(st[0].Func, "runtime.")
}

// stackTest returns the test whose function (or a function literal in it)
// is on stack frames, if that test ran in t: the runtime runs a cleanup or
// finalizer during whichever test is running when the collector finds its
// object, but the function was written in the test that registered it.
func stackTest(t *trace.Trace, frames []trace.Frame) string {
	for _, f := range frames {
		name := trace.TestName(f.Func)
		if name == "" {
			continue
		}
		for _, g := range t.Goroutines {
			if g.Test == name || strings.HasPrefix(g.Test, name+"/") {
				return name
			}
		}
	}
	return ""
}
