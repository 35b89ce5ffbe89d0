// This file implements the static half of a predicted leak: whether a
// select's receive is the only receive its channel can ever have, so
// that once the select takes another case, a goroutine that sends on the
// channel later waits for ever.

package static

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/seer-tools/seer/trace"
)

// A SelectLeak describes the select statement on the line of a frame
// whose one receive from a local unbuffered channel is, provably, the
// only receive that channel ever has (SelectLeak's conditions).
type SelectLeak struct {
	// Timer is set when another case receives from the channel of a
	// time.After call, which the runtime sends on by itself once the
	// duration has passed, or from the Done channel of a context made in
	// the function by context.WithTimeout or WithDeadline, which closes
	// at the deadline; Default, when the select has a default case.
	Timer, Default bool
}

// SelectLeak reports whether the select statement on the line of frame
// f (in the functions that may have run it, see Functions) is the one
// place that ever receives from one of its channels, so that a
// goroutine sending on that channel after the select took another case
// blocks for ever. It holds when there is exactly one select on the
// line (or, for a select of one receive and a default, whose code the
// compiler puts at the receive, one with its receive on the line), and:
//
//   - one of its cases receives from a channel ch that the same function
//     makes, unbuffered (make(chan T) or a constant capacity of zero);
//   - every other case receives from the result of a call of time.After,
//     or from ctx.Done() for a ctx that the same function made with
//     context.WithTimeout or WithDeadline (or their Cause forms), or the
//     select has a default case; so the other case becomes ready with no
//     goroutine's help;
//   - ch is used in the function only by that select, and otherwise only
//     captured by closures or passed to functions of the program that do
//     nothing with it but send on it (transitively: a closure may capture
//     it again or pass it on); it is never closed, stored, returned,
//     converted to an interface, compared or received from elsewhere;
//   - from the bodies of the select's other cases (and its default), no
//     path of the function leads back to the select: a goroutine that
//     took another case never receives from ch again (a select in a loop
//     qualifies when its other cases leave the loop, as a timeout that
//     returns does).
//
// Unknown means false: the caller reports nothing.
func (p *Program) SelectLeak(f trace.Frame) (SelectLeak, bool) {
	fi, fns, ok := p.resolve(f)
	if !ok {
		return SelectLeak{}, false
	}
	var sel *ssa.Select
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				s, ok := in.(*ssa.Select)
				if !ok || !s.Pos().IsValid() {
					continue
				}
				// The compiler puts a select of one receive and a
				// default (selectnbrecv) at the receive's line.
				if fi.tok.Line(s.Pos()) != f.Line &&
					!(!s.Blocking && len(s.States) == 1 && s.States[0].Pos.IsValid() && fi.tok.Line(s.States[0].Pos) == f.Line) {
					continue
				}
				if sel != nil {
					return SelectLeak{}, false // two selects on the line
				}
				sel = s
			}
		}
	}
	if sel == nil {
		return SelectLeak{}, false
	}
	out := SelectLeak{Default: !sel.Blocking}
	var ch *ssa.MakeChan
	chCase := -1
	for k, st := range sel.States {
		if st.Dir != types.RecvOnly { // a send case
			return SelectLeak{}, false
		}
		if isTimeAfter(st.Chan) || isDeadlineDone(st.Chan, sel.Parent()) {
			out.Timer = true
			continue
		}
		mc := chanRoot(st.Chan)
		if mc == nil || ch != nil || mc.Parent() != sel.Parent() || !zeroSize(mc.Size) {
			return SelectLeak{}, false
		}
		ch, chCase = mc, k
	}
	if ch == nil || !(out.Timer || out.Default) || comesBack(sel, chCase) {
		return SelectLeak{}, false
	}
	u := chanUses{sel: sel}
	if !u.onlySends(ch) || u.selected != 1 {
		return SelectLeak{}, false
	}
	return out, true
}

// chanRoot returns the make(chan) whose channel v is: v itself, or a
// load of a local variable that only that make's channel is stored in
// (a variable a closure captures stays in memory in go/ssa).
func chanRoot(v ssa.Value) *ssa.MakeChan {
	mc, _ := stored(v).(*ssa.MakeChan)
	return mc
}

// chanUses follows the uses of one channel, and of the variables that
// hold it, through closures and calls (chanWalk), allowing sends and
// the receives of one select.
type chanUses struct {
	sel      *ssa.Select // the one select allowed to receive
	selected int         // its cases on the channel
}

// onlySends reports whether every use of v (the channel, or a variable
// holding only it) only sends on it, but for the receive of u.sel: a
// send, the select's receive, or what chanWalk follows.
func (u *chanUses) onlySends(v ssa.Value) bool {
	w := chanWalk{seen: map[ssa.Value]bool{}, op: u.op}
	return w.follow(v)
}

// op judges the channel operations chanUses allows (chanWalk.op).
func (u *chanUses) op(v ssa.Value, r ssa.Instruction) (known, ok bool) {
	switch r := r.(type) {
	case *ssa.Select:
		if r != u.sel {
			return true, false
		}
		for _, st := range r.States {
			if st.Chan == v {
				u.selected++
			}
		}
		return true, true
	case *ssa.Send:
		return true, r.Chan == v && r.X != v
	}
	return false, false
}

// chanWalk follows the uses of one channel, and of the variables that
// hold it: op judges each use first (known: it is a channel operation,
// allowed when ok); the walk then follows a load of a variable holding
// it, a store of it into a local variable, a conversion, a capture by a
// closure or an argument of a static call (or go or defer) of a function
// of the program, into the captured variable or the parameter. Any other
// use fails the walk.
type chanWalk struct {
	seen map[ssa.Value]bool // values known to be the channel, or variables holding only it
	op   func(v ssa.Value, r ssa.Instruction) (known, ok bool)
}

// follow reports whether every use of v is allowed.
func (w *chanWalk) follow(v ssa.Value) bool {
	if w.seen[v] {
		return true
	}
	w.seen[v] = true
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		if !w.use(v, r) {
			return false
		}
	}
	return true
}

// use reports whether instruction r's use of v is allowed.
func (w *chanWalk) use(v ssa.Value, r ssa.Instruction) bool {
	if known, ok := w.op(v, r); known {
		return ok
	}
	switch r := r.(type) {
	case *ssa.DebugRef:
		return true
	case *ssa.ChangeType: // chan T to chan<- T
		return w.follow(r)
	case *ssa.UnOp:
		return r.Op == token.MUL && r.X == v && w.follow(r)
	case *ssa.Store:
		if r.Addr == v {
			return w.seen[r.Val] // the channel itself, stored back
		}
		a, ok := r.Addr.(*ssa.Alloc)
		return ok && r.Val == v && w.follow(a)
	case *ssa.MakeClosure:
		if r.Fn == v {
			return false
		}
		fn, ok := r.Fn.(*ssa.Function)
		if !ok || len(fn.FreeVars) != len(r.Bindings) {
			return false
		}
		for k, b := range r.Bindings {
			if b == v && !w.follow(fn.FreeVars[k]) {
				return false
			}
		}
		return true
	case ssa.CallInstruction:
		com := r.Common()
		if com.IsInvoke() || com.Value == v {
			return false
		}
		fn := com.StaticCallee()
		if fn == nil || fn.Blocks == nil || len(fn.Params) != len(com.Args) {
			return false
		}
		for k, a := range com.Args {
			if a == v && !w.follow(fn.Params[k]) {
				return false
			}
		}
		return true
	}
	return false
}

// isTimeAfter reports whether v is the result of a call of time.After.
func isTimeAfter(v ssa.Value) bool {
	c, ok := v.(*ssa.Call)
	return ok && calls(c, "time", func(name string) bool { return name == "After" })
}

// calls reports whether c statically calls a function of package pkg
// whose name is one of named's.
func calls(c *ssa.Call, pkg string, named func(string) bool) bool {
	fn := c.Call.StaticCallee()
	if fn == nil {
		return false
	}
	obj, ok := fn.Object().(*types.Func)
	return ok && obj.Pkg() != nil && obj.Pkg().Path() == pkg && named(obj.Name())
}

// deadlineFuncs are the functions of package context whose context's
// Done channel is closed at a deadline with no goroutine's help.
var deadlineFuncs = map[string]bool{"WithTimeout": true, "WithDeadline": true, "WithTimeoutCause": true, "WithDeadlineCause": true}

// isDeadlineDone reports whether v is ctx.Done() for a context that
// function fn made with context.WithTimeout or WithDeadline (or their
// Cause forms): its channel closes once the deadline has passed, if not
// before.
func isDeadlineDone(v ssa.Value, fn *ssa.Function) bool {
	c, ok := v.(*ssa.Call)
	if !ok || !c.Call.IsInvoke() || c.Call.Method.Name() != "Done" || len(c.Call.Args) != 0 {
		return false
	}
	x, ok := stored(c.Call.Value).(*ssa.Extract)
	if !ok || x.Index != 0 || x.Parent() != fn {
		return false
	}
	mk, ok := x.Tuple.(*ssa.Call)
	return ok && calls(mk, "context", func(name string) bool { return deadlineFuncs[name] })
}

// stored returns v, or if v loads a local variable that one store only
// ever writes (a variable a closure captures stays in memory in go/ssa)
// and that is otherwise only read, here or by closures, the value
// stored.
func stored(v ssa.Value) ssa.Value {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return v
	}
	a, ok := u.X.(*ssa.Alloc)
	if !ok {
		return v
	}
	if val := allocValue(a); val != nil {
		return val
	}
	return v
}

// allocValue returns the value one store only ever writes into local
// variable a, which is otherwise only read, here or by closures; nil if
// there is no such value.
func allocValue(a *ssa.Alloc) ssa.Value {
	if a.Referrers() == nil {
		return nil
	}
	var val ssa.Value
	for _, r := range *a.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if r.Addr != a || val != nil {
				return nil
			}
			val = r.Val
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return nil
			}
		case *ssa.DebugRef:
		case *ssa.MakeClosure:
			// A closure may read the variable, not write it.
			fn, ok := r.Fn.(*ssa.Function)
			if !ok || len(fn.FreeVars) != len(r.Bindings) {
				return nil
			}
			for k, b := range r.Bindings {
				if b == a && !readOnly(fn.FreeVars[k]) {
					return nil
				}
			}
		default:
			return nil // its address goes somewhere
		}
	}
	return val
}

// readOnly reports whether a closure's captured variable is only read.
func readOnly(fv *ssa.FreeVar) bool {
	if fv.Referrers() == nil {
		return false
	}
	for _, r := range *fv.Referrers() {
		switch r := r.(type) {
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// zeroSize reports whether a make(chan)'s size is the constant zero.
func zeroSize(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Int && constant.Sign(c.Value) == 0
}

// comesBack reports whether a goroutine that took a case of sel other
// than case ch may reach sel again: whether the block of sel can be
// reached from the bodies of those cases (and the default). The bodies
// are found as go/ssa lays them out: after the select, a chain of tests
// "index == k" each branching to case k's body or to the next test, the
// last "next" being the default's body; when the code is not of that
// shape, any path from the select back to it counts.
func comesBack(sel *ssa.Select, ch int) bool {
	var idx ssa.Value
	for _, r := range *sel.Referrers() {
		if x, ok := r.(*ssa.Extract); ok && x.Index == 0 {
			idx = x
		}
	}
	if idx == nil {
		return inLoop(sel.Block(), sel.Block().Succs)
	}
	var others []*ssa.BasicBlock
	b := sel.Block()
	for k := 0; k < len(sel.States); k++ {
		br, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok || len(b.Succs) != 2 {
			return inLoop(sel.Block(), sel.Block().Succs)
		}
		cond, ok := br.Cond.(*ssa.BinOp)
		if !ok || cond.Op != token.EQL || cond.X != idx {
			return inLoop(sel.Block(), sel.Block().Succs)
		}
		c, ok := cond.Y.(*ssa.Const)
		if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
			return inLoop(sel.Block(), sel.Block().Succs)
		}
		if n, exact := constant.Int64Val(c.Value); !exact || n != int64(k) {
			return inLoop(sel.Block(), sel.Block().Succs)
		}
		if k != ch {
			others = append(others, b.Succs[0])
		}
		b = b.Succs[1]
	}
	if !sel.Blocking {
		others = append(others, b) // the default's body
	}
	return inLoop(sel.Block(), others)
}

// inLoop reports whether block b can be reached from the blocks from.
func inLoop(b *ssa.BasicBlock, from []*ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), from...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == b {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, x.Succs...)
	}
	return false
}
