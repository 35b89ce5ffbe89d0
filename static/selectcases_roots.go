// This file implements the interprocedural half of SelectCases (issue
// 32, item 5): the make(chan)s a select's case may operate on when its
// channel is not made in the select's own function but comes in as a
// parameter or as a closure's captured variable:
//
//	func worker(jobs <-chan int, quit <-chan struct{}) {
//		for {
//			select {
//			case j := <-jobs: ...
//			case <-quit: return
//			}
//		}
//	}
//
// The rule is the simplest sound one, with no call graph but the
// function's own call sites: a parameter's channel is any of the
// arguments its function is called with, so every call of the function
// must be known. That holds for a function literal whose value is only
// called (directly, or through its closure), and for an unexported
// function of the package that is not a method, not generic, and is
// named in its package only as the callee of calls (go and defer
// included; never as a value, which could reach any caller): no other
// package can call it, and every body of its package is in the
// Program. Each argument must itself resolve, the same way, to
// make(chan)s; a captured variable resolves to the one value stored in
// it. SelectCases then follows every such make's channel wherever it
// goes (chanWalk), so the partners it lists are every operation on any
// channel the case may be on. Anything else is unknown.

package static

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// maxRootDepth bounds the parameters and captures chanRoots goes
// through from a select's channel to its makes.
const maxRootDepth = 8

// chanRoots returns the make(chan)s whose channels value v may be,
// through local variables, parameters (every call of the function) and
// closures' captures (see the file comment); ok is false when some
// value v may be is not known to come from one.
func (p *Program) chanRoots(v ssa.Value) ([]*ssa.MakeChan, bool) {
	r := rootFinder{p: p, seen: map[ssa.Value]bool{}}
	if !r.find(v, 0) || len(r.roots) == 0 {
		return nil, false
	}
	return r.roots, true
}

// rootFinder collects the makes of chanRoots.
type rootFinder struct {
	p     *Program
	seen  map[ssa.Value]bool
	roots []*ssa.MakeChan
}

// find adds the makes value v may be and reports whether all are known.
// A value already met adds nothing more (a recursive call passing its
// parameter on).
func (r *rootFinder) find(v ssa.Value, depth int) bool {
	if depth > maxRootDepth {
		return false
	}
	v = stored(v)
	if r.seen[v] {
		return true
	}
	r.seen[v] = true
	switch v := v.(type) {
	case *ssa.MakeChan:
		r.roots = append(r.roots, v)
		return true
	case *ssa.ChangeType: // chan T passed as <-chan T or chan<- T
		return r.find(v.X, depth)
	case *ssa.Parameter:
		k := paramIndex(v)
		calls, ok := r.p.callSites(v.Parent())
		if k < 0 || !ok {
			return false
		}
		for _, c := range calls {
			if k >= len(c.Args) || !r.find(c.Args[k], depth+1) {
				return false
			}
		}
		return true
	case *ssa.UnOp: // a load of a closure's captured variable
		fv, ok := v.X.(*ssa.FreeVar)
		if !ok || v.Op != token.MUL || !readOnly(fv) {
			return false
		}
		bindings, ok := closureBindings(fv)
		if !ok {
			return false
		}
		for _, b := range bindings {
			a, ok := b.(*ssa.Alloc)
			if !ok {
				return false
			}
			val := allocValue(a)
			if val == nil || !r.find(val, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// paramIndex returns the index of parameter v among its function's, or
// -1.
func paramIndex(v *ssa.Parameter) int {
	for k, q := range v.Parent().Params {
		if q == v {
			return k
		}
	}
	return -1
}

// closureBindings returns the values that free variable fv of a
// function literal is bound to, one per closure made of it; ok is false
// when the literal is used otherwise than through MakeClosure.
func closureBindings(fv *ssa.FreeVar) ([]ssa.Value, bool) {
	fn := fv.Parent()
	k := -1
	for j, q := range fn.FreeVars {
		if q == fv {
			k = j
		}
	}
	refs := fn.Referrers()
	if k < 0 || refs == nil {
		return nil, false
	}
	var out []ssa.Value
	for _, ref := range *refs {
		mc, ok := ref.(*ssa.MakeClosure)
		if !ok || mc.Fn != fn || k >= len(mc.Bindings) {
			return nil, false
		}
		out = append(out, mc.Bindings[k])
	}
	return out, len(out) > 0
}

// callSites returns every call of fn in the program (see the file
// comment), or false when fn may be called from somewhere unseen.
func (p *Program) callSites(fn *ssa.Function) ([]*ssa.CallCommon, bool) {
	if fn.Parent() != nil { // a function literal
		return literalCalls(fn)
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok || obj.Exported() || fn.Signature.Recv() != nil || fn.TypeParams().Len() > 0 || fn.Origin() != nil || fn.Pkg == nil {
		return nil, false
	}
	var q *pkg
	for _, c := range p.pkgs {
		if c.ssa == fn.Pkg {
			q = c
		}
	}
	if q == nil {
		return nil, false
	}
	calls := q.callIndex()
	if calls.asValue[fn] {
		return nil, false // fn as a value: it may be called anywhere
	}
	out := calls.sites[fn]
	return out, len(out) > 0
}

// callees indexes how a package's bodies name its functions: the calls
// that name each as their callee, and the functions named any other way
// (as a value, which could reach any caller).
type callees struct {
	sites   map[*ssa.Function][]*ssa.CallCommon
	asValue map[*ssa.Function]bool
}

// callIndex returns q's callees, built on first use with one pass over
// the package's bodies (callSites asks once per select whose channel
// comes in as a parameter).
func (q *pkg) callIndex() *callees {
	q.calleesOnce.Do(func() {
		c := &callees{sites: map[*ssa.Function][]*ssa.CallCommon{}, asValue: map[*ssa.Function]bool{}}
		q.eachFunc(func(f *ssa.Function) {
			for _, b := range f.Blocks {
				for _, in := range b.Instrs {
					if _, dbg := in.(*ssa.DebugRef); dbg {
						continue
					}
					var rands [8]*ssa.Value
					for _, x := range in.Operands(rands[:0]) {
						if x == nil {
							continue
						}
						g, ok := (*x).(*ssa.Function)
						if !ok {
							continue
						}
						if call, isCall := in.(ssa.CallInstruction); isCall && call.Common().Value == g && x == &call.Common().Value {
							c.sites[g] = append(c.sites[g], call.Common())
						} else {
							c.asValue[g] = true
						}
					}
				}
			}
		})
		q.callees = c
	})
	return q.callees
}

// literalCalls returns the calls of function literal fn: its value, or
// the closures made of it, may only be called.
func literalCalls(fn *ssa.Function) ([]*ssa.CallCommon, bool) {
	refs := fn.Referrers()
	if refs == nil {
		return nil, false
	}
	var out []*ssa.CallCommon
	called := func(v ssa.Value, r ssa.Instruction) bool {
		c, ok := r.(ssa.CallInstruction)
		if !ok || c.Common().Value != v {
			return false
		}
		for _, a := range c.Common().Args {
			if a == v {
				return false
			}
		}
		out = append(out, c.Common())
		return true
	}
	for _, r := range *refs {
		if mc, ok := r.(*ssa.MakeClosure); ok && mc.Fn == fn {
			crefs := mc.Referrers()
			if crefs == nil {
				return nil, false
			}
			for _, cr := range *crefs {
				if _, dbg := cr.(*ssa.DebugRef); !dbg && !called(mc, cr) {
					return nil, false
				}
			}
			continue
		}
		if _, dbg := r.(*ssa.DebugRef); !dbg && !called(fn, r) {
			return nil, false
		}
	}
	return out, len(out) > 0
}

// eachFunc calls f on every function of package q with a body: its
// functions, its named types' methods (the body of a generic one), and
// the function literals in them, its init's included.
func (q *pkg) eachFunc(f func(*ssa.Function)) {
	seen := map[*ssa.Function]bool{}
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if fn == nil || seen[fn] {
			return
		}
		seen[fn] = true
		f(fn)
		for _, a := range fn.AnonFuncs {
			visit(a)
		}
	}
	for _, m := range q.ssa.Members {
		switch m := m.(type) {
		case *ssa.Function:
			visit(m)
		case *ssa.Type:
			if named, ok := m.Type().(*types.Named); ok {
				for k := range named.NumMethods() {
					visit(q.ssa.Prog.FuncValue(named.Method(k)))
				}
			}
		}
	}
}
