// This file implements the compiler's rule for how function literals
// capture variables (by value or by reference), which decides whether an
// access to a captured variable is a memory access the race runtime sees.

package static

import (
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"sort"
)

// captureFacts says, for the local variables of one package that function
// literals capture, how they are captured and by which literals.
//
// The gc compiler captures a variable by value, copying it into the
// closure, when it is at most 128 bytes, its address is never taken, and
// it is not reassigned after the first function literal that captures it
// (cmd/compile/internal/escape, flowClosure). A variable captured by
// value is a plain local in the declaring function and read-only closure
// data in the literal: the race runtime sees no access to it. One captured
// by reference lives on the heap and every access to it is recorded.
//
// go/ssa treats both alike (a heap Alloc, a FreeVar), so seer decides with
// the compiler's rule, erring towards "by reference" where it cannot follow
// the compiler exactly (goto loops, generic types, old loop semantics):
// an access wrongly believed to exist only makes a line's reads more
// ambiguous and more relevant, never less.
type captureFacts struct {
	byRef    map[*types.Var]bool
	closures map[*types.Var][]*ast.FuncLit // capturing literals, outermost ones, in source order
}

// captured reports whether function literals capture v.
func (c *captureFacts) captured(v *types.Var) bool { return len(c.closures[v]) > 0 }

// byValue reports whether v is captured, and captured by value.
func (c *captureFacts) byValue(v *types.Var) bool { return c.captured(v) && !c.byRef[v] }

// allByValue reports whether there are variables in vs and all are
// captured by value (see pkg.localVars for why there may be several).
func (c *captureFacts) allByValue(vs []*types.Var) bool {
	for _, v := range vs {
		if !c.byValue(v) {
			return false
		}
	}
	return len(vs) > 0
}

// varInfo is what the walk learns about one local variable.
type varInfo struct {
	declFunc  ast.Node // the *ast.FuncDecl or *ast.FuncLit that declares it
	declDepth int      // loop depth of the declaration in declFunc
	captures  []capture
	assigns   []assign
	addrTaken bool         // or otherwise always captured by reference
	loopVar   *ast.ForStmt // declared by the init statement of this 3-clause loop
}

type capture struct {
	lit   *ast.FuncLit // outermost literal under declFunc that uses the variable
	depth int          // loop depth of lit in declFunc
}

type assign struct {
	pos       token.Pos
	inClosure bool         // in a function literal, not in declFunc
	post      *ast.ForStmt // in the post statement of this loop
}

// captures returns the capture facts of q, computing them on first use.
func (q *pkg) captures(sizes types.Sizes) *captureFacts {
	q.captureOnce.Do(func() { q.capture = computeCaptures(q, sizes) })
	return q.capture
}

func computeCaptures(q *pkg, sizes types.Sizes) *captureFacts {
	vars := make(map[*types.Var]*varInfo)
	for _, f := range q.syntax {
		w := &captureWalker{info: q.info, vars: vars, modern: fileIsModern(q.info, f), litDepth: make(map[*ast.FuncLit]int)}
		for _, decl := range f.Decls {
			w.decl(decl)
		}
	}

	c := &captureFacts{byRef: make(map[*types.Var]bool), closures: make(map[*types.Var][]*ast.FuncLit)}
	gotos := make(map[ast.Node]bool)
	hasGoto := func(fn ast.Node) bool {
		has, ok := gotos[fn]
		if !ok {
			has = containsGoto(fn)
			gotos[fn] = has
		}
		return has
	}
	for v, vi := range vars {
		if len(vi.captures) == 0 {
			continue
		}
		seen := make(map[*ast.FuncLit]bool)
		first := vi.captures[0]
		for _, cp := range vi.captures {
			if !seen[cp.lit] {
				seen[cp.lit] = true
				c.closures[v] = append(c.closures[v], cp.lit)
			}
			if cp.lit.Pos() < first.lit.Pos() {
				first = cp
			}
		}
		sort.Slice(c.closures[v], func(i, j int) bool { return c.closures[v][i].Pos() < c.closures[v][j].Pos() })
		c.byRef[v] = vi.addrTaken || !fitsByValue(sizes, v.Type()) || reassigned(vi, first, hasGoto(vi.declFunc))
	}
	return c
}

// reassigned applies the compiler's rule: assignments other than the
// declaration count, except those before the first capturing literal
// when that literal is at the loop depth of the declaration.
func reassigned(vi *varInfo, first capture, hasGoto bool) bool {
	reset := first.depth == vi.declDepth && !hasGoto
	for _, a := range vi.assigns {
		switch {
		case a.post != nil && a.post == vi.loopVar:
			// Each iteration has its own copy (Go 1.22 loop semantics);
			// the post statement assigns the next one.
		case a.inClosure:
			return true
		case !reset || a.pos > first.lit.Pos():
			return true
		}
	}
	return false
}

// fitsByValue reports whether a variable of type t may be captured by
// value (at most 128 bytes; unknown sizes do not fit).
func fitsByValue(sizes types.Sizes, t types.Type) (ok bool) {
	if containsTypeParam(t) {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return sizes.Sizeof(t) <= 128
}

// containsTypeParam reports whether t mentions a type parameter, so that
// its size depends on the instantiation.
func containsTypeParam(t types.Type) bool {
	switch t := t.(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		args := t.TypeArgs()
		for i := 0; i < args.Len(); i++ {
			if containsTypeParam(args.At(i)) {
				return true
			}
		}
		return false
	case *types.Alias:
		return containsTypeParam(types.Unalias(t))
	case *types.Array:
		return containsTypeParam(t.Elem())
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if containsTypeParam(t.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// containsGoto reports whether the body of fn has a goto statement (whose
// backward jumps the compiler treats as loops).
func containsGoto(fn ast.Node) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO {
			found = true
		}
		return !found
	})
	return found
}

// fileIsModern reports whether f has Go 1.22 loop variable semantics
// (each iteration declares new variables).
func fileIsModern(info *types.Info, f *ast.File) bool {
	v := info.FileVersions[f]
	return v != "" && version.Compare(v, "go1.22") >= 0
}
