// This file implements the static half of a select that can never
// proceed (issue 32, item 5; predict/leak_selectstuck.go,
// predict/witness/select.go): the cases of the select on a line, each
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
// the select's function and used, there and wherever it goes, only by
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
		mc := chanRoot(st.Chan)
		if mc == nil || mc.Parent() != sel.Parent() {
			return nil, false
		}
		ops := chanOpSites{p: p, seen: map[ssa.Value]bool{}}
		if !ops.follow(mc) {
			return nil, false
		}
		c := SelectCase{Send: st.Dir == types.SendOnly, Name: chanName(st.Chan, mc), Partners: ops.closes}
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
// following it through local variables, closures and static calls.
type chanOpSites struct {
	p                    *Program
	seen                 map[ssa.Value]bool
	sends, recvs, closes []trace.Frame
}

// at returns the place of pos.
func (o *chanOpSites) at(pos token.Pos) (trace.Frame, bool) {
	if !pos.IsValid() {
		return trace.Frame{}, false
	}
	ps := o.p.Fset.Position(pos)
	return trace.Frame{File: filepath.Base(ps.Filename), Line: ps.Line}, true
}

// add records the place of an operation at pos in list; false when it
// has none.
func (o *chanOpSites) add(list *[]trace.Frame, pos token.Pos) bool {
	f, ok := o.at(pos)
	if ok {
		*list = append(*list, f)
	}
	return ok
}

// follow records the operations on v (the channel, or a variable holding
// only it) and reports whether every use of it is known.
func (o *chanOpSites) follow(v ssa.Value) bool {
	if o.seen[v] {
		return true
	}
	o.seen[v] = true
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		if !o.use(v, r) {
			return false
		}
	}
	return true
}

// use records instruction r's use of v, and reports whether it is known.
func (o *chanOpSites) use(v ssa.Value, r ssa.Instruction) bool {
	switch r := r.(type) {
	case *ssa.DebugRef:
		return true
	case *ssa.Select:
		for _, st := range r.States {
			if st.Send == v {
				return false // the channel sent on a channel
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
				return false
			}
			o.add(list, st.Pos)
		}
		return true
	case *ssa.Send:
		return r.Chan == v && r.X != v && o.add(&o.sends, r.Pos())
	case *ssa.UnOp:
		switch {
		case r.Op == token.ARROW && r.X == v:
			return o.add(&o.recvs, r.Pos())
		case r.Op == token.MUL && r.X == v:
			return o.follow(r)
		}
		return false
	case *ssa.ChangeType: // chan T to <-chan T or chan<- T
		return o.follow(r)
	case *ssa.Store:
		if r.Addr == v {
			return o.seen[r.Val] // the channel itself, stored back
		}
		a, ok := r.Addr.(*ssa.Alloc)
		return ok && r.Val == v && o.follow(a)
	case *ssa.MakeClosure:
		if r.Fn == v {
			return false
		}
		fn, ok := r.Fn.(*ssa.Function)
		if !ok || len(fn.FreeVars) != len(r.Bindings) {
			return false
		}
		for k, b := range r.Bindings {
			if b == v && !o.follow(fn.FreeVars[k]) {
				return false
			}
		}
		return true
	case ssa.CallInstruction:
		com := r.Common()
		if b, ok := com.Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "close":
				return o.add(&o.closes, r.Pos())
			case "len", "cap":
				return true
			}
			return false
		}
		if com.IsInvoke() || com.Value == v {
			return false
		}
		fn := com.StaticCallee()
		if fn == nil || fn.Blocks == nil || len(fn.Params) != len(com.Args) {
			return false
		}
		for k, a := range com.Args {
			if a == v && !o.follow(fn.Params[k]) {
				return false
			}
		}
		return true
	}
	return false
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
