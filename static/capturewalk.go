// This file implements the walk of a package's syntax that collects,
// for each local variable, what the capture rule of capture.go needs: its
// declaration, the function literals that use it, its assignments and
// whether its address is taken.

package static

import (
	"go/ast"
	"go/token"
	"go/types"
)

// captureWalker walks function bodies, keeping the stack of enclosing
// functions and the loop depth within each.
type captureWalker struct {
	info   *types.Info
	vars   map[*types.Var]*varInfo
	modern bool

	funcs    []ast.Node // enclosing *ast.FuncDecl / *ast.FuncLit, outermost first
	depths   []int      // loop depth in each of funcs
	litDepth map[*ast.FuncLit]int
	post     *ast.ForStmt // the loop whose post statement is being walked
}

func (w *captureWalker) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Body == nil {
			return
		}
		w.enter(d)
		w.fieldList(d.Recv)
		w.fieldList(d.Type.Params)
		w.fieldList(d.Type.Results)
		w.node(d.Body)
		w.leave()
	case *ast.GenDecl:
		// Function literals in package-level initializers.
		w.node(d)
	}
}

func (w *captureWalker) enter(fn ast.Node) {
	w.funcs = append(w.funcs, fn)
	w.depths = append(w.depths, 0)
}

func (w *captureWalker) leave() {
	w.funcs = w.funcs[:len(w.funcs)-1]
	w.depths = w.depths[:len(w.depths)-1]
}

func (w *captureWalker) depth() int { return w.depths[len(w.depths)-1] }

func (w *captureWalker) fieldList(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, id := range f.Names {
			w.define(id, nil)
		}
	}
}

// define records the declaration of the variable id defines, if any.
func (w *captureWalker) define(id *ast.Ident, loop *ast.ForStmt) {
	v, ok := w.info.Defs[id].(*types.Var)
	if !ok || len(w.funcs) == 0 {
		return
	}
	vi := w.varInfo(v)
	vi.declFunc = w.funcs[len(w.funcs)-1]
	vi.declDepth = w.depth()
	vi.loopVar = loop
}

func (w *captureWalker) varInfo(v *types.Var) *varInfo {
	vi := w.vars[v]
	if vi == nil {
		vi = &varInfo{}
		w.vars[v] = vi
	}
	return vi
}

// use records a use of the local variable v at the current point.
func (w *captureWalker) use(v *types.Var) {
	vi := w.vars[v]
	if vi == nil || vi.declFunc == nil {
		return
	}
	for i, fn := range w.funcs {
		if fn != vi.declFunc {
			continue
		}
		if i+1 < len(w.funcs) {
			lit := w.funcs[i+1].(*ast.FuncLit)
			vi.captures = append(vi.captures, capture{lit: lit, depth: w.litDepth[lit]})
		}
		return
	}
}

// assignTo records an assignment to the variable that lhs is part of.
func (w *captureWalker) assignTo(lhs ast.Expr, pos token.Pos) {
	if v := rootVar(w.info, lhs); v != nil {
		w.assignVar(v, pos)
	}
}

func (w *captureWalker) assignVar(v *types.Var, pos token.Pos) {
	vi := w.vars[v]
	if vi == nil || vi.declFunc == nil || len(w.funcs) == 0 {
		return
	}
	inClosure := w.funcs[len(w.funcs)-1] != vi.declFunc
	vi.assigns = append(vi.assigns, assign{pos: pos, inClosure: inClosure, post: w.post})
}

func (w *captureWalker) takeAddr(e ast.Expr) {
	if v := rootVar(w.info, e); v != nil {
		if vi := w.vars[v]; vi != nil {
			vi.addrTaken = true
		}
	}
}

// rootVar returns the local variable whose storage e denotes part of, or
// nil: x for x, x.f, x.f.g and x[i] (x an array), but not for p.f (p a
// pointer), s[i] (s a slice) or m[k].
func rootVar(info *types.Info, e ast.Expr) *types.Var {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			obj := info.Uses[x]
			if obj == nil {
				obj = info.Defs[x]
			}
			v, _ := obj.(*types.Var)
			if v == nil || v.IsField() || v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
				return nil
			}
			return v
		case *ast.SelectorExpr:
			sel := info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			t := info.TypeOf(x.X)
			if t == nil {
				return nil
			}
			if _, ok := t.Underlying().(*types.Array); !ok {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// node walks n (nil is allowed).
func (w *captureWalker) node(n ast.Node) {
	if n == nil {
		return
	}
	ast.Inspect(n, w.visit)
}

func (w *captureWalker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FuncLit:
		if len(w.funcs) > 0 {
			w.litDepth[n] = w.depth()
		}
		w.enter(n)
		w.fieldList(n.Type.Params)
		w.fieldList(n.Type.Results)
		w.node(n.Body)
		w.leave()
		return false

	case *ast.ForStmt:
		if init, ok := n.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE && len(w.funcs) > 0 {
			// Each iteration has its own variables, declared in the body.
			for _, r := range init.Rhs {
				w.node(r)
			}
			w.depths[len(w.depths)-1]++
			for _, l := range init.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					loop := n
					if !w.modern {
						loop = nil
					}
					w.define(id, loop)
				}
			}
		} else {
			w.node(n.Init)
			w.depths[len(w.depths)-1]++
		}
		w.node(n.Cond)
		outer := w.post
		w.post = n
		w.node(n.Post)
		w.post = outer
		w.node(n.Body)
		w.depths[len(w.depths)-1]--
		return false

	case *ast.RangeStmt:
		w.node(n.X)
		if len(w.funcs) > 0 {
			w.depths[len(w.depths)-1]++
		}
		for _, e := range []ast.Expr{n.Key, n.Value} {
			if e == nil {
				continue
			}
			if n.Tok == token.DEFINE {
				if id, ok := e.(*ast.Ident); ok {
					w.define(id, nil)
					if v, ok := w.info.Defs[id].(*types.Var); ok && !w.modern {
						w.varInfo(v).addrTaken = true // one variable, assigned by each iteration
					}
				}
			} else {
				w.assignTo(e, n.Pos())
				w.node(e)
			}
		}
		w.node(n.Body)
		if len(w.funcs) > 0 {
			w.depths[len(w.depths)-1]--
		}
		return false

	case *ast.AssignStmt:
		for _, l := range n.Lhs {
			id, isIdent := ast.Unparen(l).(*ast.Ident)
			if n.Tok == token.DEFINE && isIdent && w.info.Defs[id] != nil {
				w.define(id, nil)
				continue
			}
			w.assignTo(l, n.Pos())
		}
		return true

	case *ast.IncDecStmt:
		w.assignTo(n.X, n.Pos())
		return true

	case *ast.ValueSpec:
		for _, id := range n.Names {
			w.define(id, nil)
		}
		return true

	case *ast.CaseClause:
		if v, ok := w.info.Implicits[n].(*types.Var); ok {
			w.defineVar(v)
		}
		return true

	case *ast.ReturnStmt:
		if len(n.Results) > 0 && len(w.funcs) > 0 {
			for _, v := range namedResults(w.info, w.funcs[len(w.funcs)-1]) {
				w.assignVar(v, n.Pos())
			}
		}
		return true

	case *ast.UnaryExpr:
		if n.Op == token.AND {
			w.takeAddr(n.X)
		}
		return true

	case *ast.SliceExpr:
		if t := w.info.TypeOf(n.X); t != nil {
			if _, ok := t.Underlying().(*types.Array); ok {
				w.takeAddr(n.X)
			}
		}
		return true

	case *ast.SelectorExpr:
		if sel := w.info.Selections[n]; sel != nil && sel.Kind() != types.FieldVal {
			if fn, ok := sel.Obj().(*types.Func); ok {
				recv := fn.Type().(*types.Signature).Recv()
				if recv != nil && isPointer(recv.Type()) && !isPointer(w.info.TypeOf(n.X)) {
					w.takeAddr(n.X) // x.M() with func (*T) M: &x
				}
			}
		}
		return true

	case *ast.Ident:
		if v, ok := w.info.Uses[n].(*types.Var); ok && !v.IsField() {
			w.use(v)
		}
		return true
	}
	return true
}

// defineVar records the declaration of v (a type switch's implicit
// variable) at the current point.
func (w *captureWalker) defineVar(v *types.Var) {
	if len(w.funcs) == 0 {
		return
	}
	vi := w.varInfo(v)
	vi.declFunc = w.funcs[len(w.funcs)-1]
	vi.declDepth = w.depth()
}

// namedResults returns the named results of function fn.
func namedResults(info *types.Info, fn ast.Node) []*types.Var {
	var ft *ast.FuncType
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		ft = fn.Type
	case *ast.FuncLit:
		ft = fn.Type
	}
	if ft == nil || ft.Results == nil {
		return nil
	}
	var out []*types.Var
	for _, f := range ft.Results.List {
		for _, id := range f.Names {
			if v, ok := info.Defs[id].(*types.Var); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func isPointer(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}
