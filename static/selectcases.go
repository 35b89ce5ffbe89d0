// This file implements the static half of a select that can never
// proceed (issue 32, item 5; predict/deadlock_select.go,
// predict/leak_selectstuck.go, predict/witness/select.go): the cases of the select on a line, each
// with every place in the program that could ever be its partner. The
// trace records only the case a select took; the checker trusts this
// list, as it trusts RecvValueFree, to see that the other cases cannot
// proceed once no goroutine can reach one of those places.

package static

import (
	"go/token"
	"go/types"
	"path/filepath"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/seer-tools/seer/trace"
)

// A SelectCase is one case of a select: whether it sends, and the
// places (File is a base name, Line a line) of every operation of the
// program that could complete it — for a receive, the sends on its
// channel and its closes; for a send, the receives (selects' included)
// and the closes (a send on a closed channel proceeds, to panic).
type SelectCase struct {
	Send     bool
	Name     string // the channel's variable, "" if it has none
	Partners []trace.Frame
}

// SelectCases returns the cases of the blocking select on the line of
// frame f (in the functions that may have run it, see Functions), when
// every one of them is known: there is exactly one select on the line,
// it has no default, and each case's channel is made by make(chan) in
// the select's function, or comes from known makes through parameters
// and closures' captures (selectcases_roots.go), and each such channel is
// used, there and wherever it goes, only by
// channel operations, len and cap, local variables, closures' captures
// and arguments of static calls of the program's functions (so that
// every operation on it is in the list: it is never stored in memory
// another goroutine could reach by other means, returned, converted to
// an interface or passed to a function without a body). A case on
// time.After or a context's Done channel, which proceeds with no
// goroutine's help, makes the answer false. Unknown means false.
func (p *Program) SelectCases(f trace.Frame) ([]SelectCase, bool) {
	fi, fns, ok := p.resolve(f)
	if !ok {
		return nil, false
	}
	var sel *ssa.Select
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				s, ok := in.(*ssa.Select)
				if !ok || !s.Pos().IsValid() || fi.tok.Line(s.Pos()) != f.Line {
					continue
				}
				if sel != nil {
					return nil, false // two selects on the line
				}
				sel = s
			}
		}
	}
	if sel == nil || !sel.Blocking || len(sel.States) == 0 {
		return nil, false
	}
	out := make([]SelectCase, 0, len(sel.States))
	for _, st := range sel.States {
		roots, ok := p.chanRoots(st.Chan) // selectcases_roots.go
		if !ok {
			return nil, false
		}
		ops := chanOpSites{p: p}
		for _, mc := range roots {
			if !ops.follow(mc) {
				return nil, false
			}
		}
		c := SelectCase{Send: st.Dir == types.SendOnly, Name: chanName(st.Chan, roots[0]), Partners: ops.closes}
		if c.Send {
			c.Partners = append(c.Partners, ops.recvs...)
		} else {
			c.Partners = append(c.Partners, ops.sends...)
		}
		slices.SortFunc(c.Partners, func(a, b trace.Frame) int {
			if a.File != b.File {
				if a.File < b.File {
					return -1
				}
				return 1
			}
			return a.Line - b.Line
		})
		c.Partners = slices.Compact(c.Partners)
		out = append(out, c)
	}
	return out, true
}

// chanOpSites collects the places of every operation on one channel,
// following it through local variables, closures and static calls
// (chanWalk).
type chanOpSites struct {
	p                    *Program
	sends, recvs, closes []trace.Frame
}

// follow records the operations on channel v and reports whether every
// use of it is known.
func (o *chanOpSites) follow(v ssa.Value) bool {
	w := chanWalk{seen: map[ssa.Value]bool{}, op: o.op}
	return w.follow(v)
}

// add records the place of an operation at pos in list; false when it
// has none.
func (o *chanOpSites) add(list *[]trace.Frame, pos token.Pos) bool {
	if !pos.IsValid() {
		return false
	}
	ps := o.p.Fset.Position(pos)
	*list = append(*list, trace.Frame{File: filepath.Base(ps.Filename), Line: ps.Line})
	return true
}

// op records the channel operations (chanWalk.op): selects' cases,
// sends, receives, close, len and cap.
func (o *chanOpSites) op(v ssa.Value, r ssa.Instruction) (known, ok bool) {
	switch r := r.(type) {
	case *ssa.Select:
		for _, st := range r.States {
			if st.Send == v {
				return true, false // the channel sent on a channel
			}
			if st.Chan != v {
				continue
			}
			// The trace places a select's operations at the select's
			// line (selectgo), or a one-case select's at the case's.
			list := &o.recvs
			if st.Dir == types.SendOnly {
				list = &o.sends
			}
			if !o.add(list, r.Pos()) {
				return true, false
			}
			o.add(list, st.Pos)
		}
		return true, true
	case *ssa.Send:
		return true, r.Chan == v && r.X != v && o.add(&o.sends, r.Pos())
	case *ssa.UnOp:
		if r.Op == token.ARROW && r.X == v {
			return true, o.add(&o.recvs, r.Pos())
		}
	case ssa.CallInstruction:
		if b, isB := r.Common().Value.(*ssa.Builtin); isB {
			switch b.Name() {
			case "close":
				return true, o.add(&o.closes, r.Pos())
			case "len", "cap":
				return true, true
			}
			return true, false
		}
	}
	return false, false
}

// chanName returns the name of the variable a select's case reads its
// channel v from (made by mc), or "".
func chanName(v ssa.Value, mc *ssa.MakeChan) string {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		if a, ok := u.X.(*ssa.Alloc); ok {
			return a.Comment
		}
	}
	for _, x := range []ssa.Value{v, mc} {
		if refs := x.Referrers(); refs != nil {
			for _, r := range *refs {
				if d, ok := r.(*ssa.DebugRef); ok && d.Object() != nil {
					return d.Object().Name()
				}
			}
		}
	}
	return ""
}
