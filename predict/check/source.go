// This file implements Source on package static: exact ranges and names of
// accesses from the package's SSA form.

package check

import (
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/static"
	"github.com/seer-tools/seer/trace"
)

// StaticSource refines findings with a loaded program.
type StaticSource struct {
	Prog *static.Program
}

// Refine gives a an exact range and a recognisable name when the access can
// be found on its line, else the whole line.
func (s StaticSource) Refine(a *report.Access, write bool, size int64) {
	var f trace.Frame
	for _, fr := range a.Stack {
		if fr.File == a.File && fr.Line == a.Line {
			f = trace.Frame{Func: fr.Func, File: fr.File, Line: fr.Line}
			break
		}
	}
	if f.File == "" {
		return
	}
	site, ok := s.Prog.Access(f, write, static.AccessHint{Size: size, Name: a.Variable})
	if !ok {
		site, ok = s.Prog.LineSite(f)
		if !ok {
			return
		}
	} else if site.Name != "" {
		a.Variable = site.Name
	}
	if !site.Range.IsValid() {
		return
	}
	a.Column = site.Range.Start.Col
	a.EndLine = site.Range.End.Line
	a.EndColumn = site.Range.End.Col
}

// ReadFlow is static's control relevance of the reads at f.
func (s StaticSource) ReadFlow(f trace.Frame) (bool, []trace.Frame) {
	flow, ok := s.Prog.ReadFlow(f)
	if !ok || flow.Relevant {
		return false, nil
	}
	return true, flow.Writes
}

// leakSource is a Source that can prove a select's receive the only one
// its channel ever has (static.Program.SelectLeak).
type leakSource interface {
	SelectLeak(f trace.Frame) bool
}

// SelectLeak is static's proof that the select on the line of f is the
// only receive of its channel, with a timer or default case.
func (s StaticSource) SelectLeak(f trace.Frame) bool {
	_, ok := s.Prog.SelectLeak(f)
	return ok
}

// selectLeaks turns src's per-site answer into predict's per-event
// Options.SelectLeak: the select's site is the receive's user frame.
func selectLeaks(src leakSource) func(t *trace.Trace, recv int) bool {
	return func(t *trace.Trace, recv int) bool {
		f, ok := trace.UserFrame(t.Stack(t.Events[recv].Stack), t.Header.GOROOT)
		return ok && src.SelectLeak(trace.Frame{Func: f.Func, File: f.File, Line: f.Line})
	}
}

// valueSource is a Source that can prove a receive's value decides
// nothing (static.Program.RecvValueFree).
type valueSource interface {
	RecvValueFree(f trace.Frame) bool
}

// RecvValueFree is static's proof that the plain receives on the line of
// f discard their value or receive a zero-sized one.
func (s StaticSource) RecvValueFree(f trace.Frame) bool { return s.Prog.RecvValueFree(f) }

// recvValueFree turns src's per-site answer into predict's per-event
// Options.RecvValueFree: the receive's site is its user frame.
func recvValueFree(src valueSource) func(t *trace.Trace, recv int) bool {
	return func(t *trace.Trace, recv int) bool {
		f, ok := trace.UserFrame(t.Stack(t.Events[recv].Stack), t.Header.GOROOT)
		return ok && src.RecvValueFree(trace.Frame{Func: f.Func, File: f.File, Line: f.Line})
	}
}

// rangeSize is the size hint of access e for Source.Refine: the bytes of a
// range access (racereadrange and racewriterange, which the runtime and
// the compiler use for structs, arrays and a map's key), else 0. A single
// access's record says 1 byte whatever the variable's type (raceread and
// racewrite carry no size), which would pick a one-byte candidate.
func rangeSize(e *trace.Event) int64 {
	if e.Size > 1 {
		return int64(e.Size)
	}
	return 0
}

// refineWith refines the accesses of findings through src.
func refineWith(src Source, findings []report.Finding) {
	for i := range findings {
		f := &findings[i]
		for j := range f.Accesses {
			src.Refine(&f.Accesses[j], f.Accesses[j].Op == "write", 0) // go test -race's report has no sizes
		}
		if len(f.Accesses) > 0 && f.Accesses[0].Variable != "" {
			f.Variable = f.Accesses[0].Variable
		}
	}
}

// atomicFuncs returns which functions prog marks //seer:atomic, or nil when
// it marks none (or prog is nil).
func atomicFuncs(prog *static.Program) func(string) bool {
	if prog == nil || len(prog.AtomicFuncs()) == 0 {
		return nil
	}
	return prog.IsAtomic
}

// nilSource is a Source that can prove the static half of a predicted
// panic from an order violation (static.Program.NilStore and NilUse).
type nilSource interface {
	NilStore(f trace.Frame) bool
	// NilUse says how the value read at stack's first frame panics when
	// nil (KindNilDeref, KindIndexOutOfRange, KindNilMapWrite, or "" when
	// not known), and
	// names what is read when that has one name.
	NilUse(stack []trace.Frame) (kind report.Kind, name string)
}

// NilStore is static's proof that the writes on the line of f store nil
// into pointers, interfaces, slices or maps.
func (s StaticSource) NilStore(f trace.Frame) bool { return s.Prog.NilStore(f) }

// NilUse is static's proof that a pointer, interface, slice or map read
// at stack's first frame is dereferenced, indexed or assigned an entry at
// once, unchecked and unrecovered.
func (s StaticSource) NilUse(stack []trace.Frame) (report.Kind, string) {
	use, name := s.Prog.NilUse(stack)
	switch use {
	case static.NilDeref:
		return report.KindNilDeref, name
	case static.NilIndex:
		return report.KindIndexOutOfRange, name
	case static.NilMapWrite:
		return report.KindNilMapWrite, name
	}
	return "", ""
}

// nilStores and nilUses turn src's per-site answers into predict's
// per-event Options.NilStore and NilUse. The access must be made by the
// user's code itself (its first frame is the user frame), not by a
// function of the standard library on its behalf.
func nilStores(src nilSource) func(t *trace.Trace, w int) bool {
	return func(t *trace.Trace, w int) bool {
		stack, ok := userStack(t, w)
		return ok && src.NilStore(stack[0])
	}
}

func nilUses(src nilSource) func(t *trace.Trace, r int) report.Kind {
	return func(t *trace.Trace, r int) report.Kind {
		stack, ok := userStack(t, r)
		if !ok {
			return ""
		}
		kind, _ := src.NilUse(stack)
		return kind
	}
}

// nilUseOf is src's NilUse of read event i ("" if src cannot tell).
func nilUseOf(t *trace.Trace, i int, src Source) (report.Kind, string) {
	ns, ok := src.(nilSource)
	if !ok {
		return "", ""
	}
	stack, ok := userStack(t, i)
	if !ok {
		return "", ""
	}
	return ns.NilUse(stack)
}

// userStack returns event i's frames when its first is the user's code.
func userStack(t *trace.Trace, i int) ([]trace.Frame, bool) {
	frames := t.Stack(t.Events[i].Stack)
	f, ok := trace.UserFrame(frames, t.Header.GOROOT)
	if !ok || len(frames) == 0 || frames[0] != f {
		return nil, false
	}
	return frames, true
}
