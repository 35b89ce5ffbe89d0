// This file implements turning the predictor's findings (event indices)
// into report findings (source positions, goroutines, witness steps), and
// the rule that keeps only user findings.

package check

import (
	"strings"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
)

// userFinding converts f, or reports false when f is not the user's: an
// access with no user-code frame (a race inside the testing harness or the
// runtime) or one made by a goroutine that belongs to no test. STD traces
// have no tests, and all their findings are the user's.
func userFinding(t *trace.Trace, f *predict.Finding, src Source) (Finding, bool) {
	std := t.Header.Format == "std"
	out := Finding{Kind: f.Kind, Predicted: f.Predicted, Count: f.Count}
	if out.Count == 0 {
		out.Count = 1
	}
	for _, i := range f.Events {
		e := &t.Events[i]
		frames := t.Stack(e.Stack)
		site, ok := trace.UserFrame(frames, t.Header.GOROOT)
		if !ok {
			return Finding{}, false
		}
		g := t.Goroutine(e.G)
		if !std {
			if g == nil || g.Test == "" {
				return Finding{}, false
			}
			if out.Test == "" {
				out.Test = g.Test
			}
		}
		a := Access{
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
		if o := t.Object(e.Obj); o != nil && o.Name != "" {
			a.Variable = shortName(o.Name)
		}
		if src != nil && !std {
			src.Refine(&a, e.Op == trace.OpWrite)
		}
		if out.Variable == "" {
			out.Variable = a.Variable
		}
		out.Accesses = append(out.Accesses, a)
	}
	for _, i := range f.Witness {
		e := &t.Events[i]
		site := t.Site(e)
		out.Witness = append(out.Witness, Step{
			Goroutine: int(e.G),
			Op:        e.Op.String(),
			File:      site.File,
			Line:      site.Line,
			Event:     i,
			Object:    t.ObjectLabel(e),
		})
	}
	out.Reordered = reordered(t, f.Witness)
	return out, true
}

func toFrames(frames []trace.Frame) []Frame {
	out := make([]Frame, len(frames))
	for i, f := range frames {
		out[i] = Frame{Func: f.Func, File: f.File, Line: f.Line}
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

// reordered returns the critical sections whose order the witness changes:
// for each lock, the acquisitions the recorded run made before one that the
// witness makes, but that the witness leaves out or runs later, followed by
// the witness's acquisition that overtook them.
func reordered(t *trace.Trace, witness []int) []Sync {
	pos := make(map[int]int, len(witness))
	last := map[trace.ObjID]int{} // lock -> its last acquisition in the witness
	for p, i := range witness {
		pos[i] = p
		if e := &t.Events[i]; e.Op == trace.OpLock || e.Op == trace.OpRLock {
			last[e.Obj] = i
		}
	}
	var out []Sync
	add := func(i int) {
		e := &t.Events[i]
		site := t.Site(e)
		out = append(out, Sync{Op: e.Op.String(), Goroutine: int(e.G), File: site.File, Line: site.Line, Object: t.ObjectLabel(e)})
	}
	for obj, overtaker := range last {
		var overtaken []int
		for i := 0; i < overtaker; i++ {
			e := &t.Events[i]
			if e.Obj != obj || (e.Op != trace.OpLock && e.Op != trace.OpRLock) || e.G == t.Events[overtaker].G {
				continue
			}
			if p, ok := pos[i]; !ok || p > pos[overtaker] {
				overtaken = append(overtaken, i)
			}
		}
		if len(overtaken) > 0 {
			for _, i := range overtaken {
				add(i)
			}
			add(overtaker)
		}
	}
	return out
}
