// This file implements nodeIndex, which maps the source positions that
// SSA instructions carry back to the syntax they came from, and the
// names and identities seer gives to accessed expressions.

package static

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A nodeIndex indexes the syntax of one function (or, for the package
// initializer, of a file's package-level declarations).
//
// go/ssa gives each instruction the position of one designated token of
// its expression (see the Pos methods in go/ssa): the identifier of a
// variable, the selector of a field, the "[" of an index, the "*" of a
// dereference, the ":" of a literal's key, the "(" of a call, the "for"
// of a range. at maps those tokens back to the whole expression.
type nodeIndex struct {
	info   *types.Info
	at     map[token.Pos]ast.Node
	parent map[ast.Node]ast.Node
	rangeX map[ast.Expr]bool // the (unparenthesized) operands of range statements
	root   ast.Node
	selByX map[token.Pos][]*ast.SelectorExpr
}

func newNodeIndex(fi *file, syntax ast.Node) *nodeIndex {
	ix := &nodeIndex{
		info:   fi.pkg.info,
		at:     make(map[token.Pos]ast.Node),
		parent: make(map[ast.Node]ast.Node),
		rangeX: make(map[ast.Expr]bool),
		selByX: make(map[token.Pos][]*ast.SelectorExpr),
	}
	if syntax == nil {
		syntax = fi.ast // the package initializer: index the whole file
	}
	ix.root = syntax
	var stack []ast.Node
	ast.Inspect(syntax, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			ix.parent[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.Ident:
			if _, ok := ix.at[n.Pos()]; !ok {
				ix.at[n.Pos()] = n
			}
		case *ast.SelectorExpr:
			ix.at[n.Sel.Pos()] = n
			ix.selByX[n.X.Pos()] = append(ix.selByX[n.X.Pos()], n)
		case *ast.IndexExpr:
			ix.at[n.Lbrack] = n
		case *ast.IndexListExpr:
			ix.at[n.Lbrack] = n
		case *ast.SliceExpr:
			ix.at[n.Lbrack] = n
		case *ast.StarExpr:
			ix.at[n.Star] = n
		case *ast.CompositeLit:
			ix.at[n.Lbrace] = n
			for _, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					ix.at[kv.Colon] = kv
				}
			}
		case *ast.CallExpr:
			ix.at[n.Lparen] = n
		case *ast.RangeStmt:
			ix.at[n.For] = n
			ix.rangeX[ast.Unparen(n.X)] = true
		}
		return true
	})
	return ix
}

// accessed returns the expression that an access instruction at pos
// accesses: the expression whose designated token is at pos, or else the
// innermost expression that contains pos.
func (ix *nodeIndex) accessed(pos token.Pos) ast.Node {
	if n, ok := ix.at[pos]; ok {
		return n
	}
	var best ast.Node
	ast.Inspect(ix.root, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		if _, ok := n.(ast.Expr); ok {
			best = n
		}
		return true
	})
	return best
}

// promoted returns the selector expression whose operand starts at pos
// and selects through an embedded field (whose implicit selections go/ssa
// positions at the operand).
func (ix *nodeIndex) promoted(pos token.Pos) *ast.SelectorExpr {
	for _, se := range ix.selByX[pos] {
		if sel := ix.info.Selections[se]; sel != nil && len(sel.Index()) > 1 {
			return se
		}
	}
	return nil
}

// stmt returns the innermost statement that contains n, and the end of
// its "header": for compound statements (if, for, switch, ...) the part
// before the body, so that a span never covers a whole block.
func (ix *nodeIndex) stmt(n ast.Node) (ast.Node, token.Pos) {
	for m := n; m != nil; m = ix.parent[m] {
		switch s := m.(type) {
		case *ast.BlockStmt:
			continue
		case *ast.IfStmt:
			return s, s.Body.Lbrace
		case *ast.ForStmt:
			return s, s.Body.Lbrace
		case *ast.RangeStmt:
			return s, s.Body.Lbrace
		case *ast.SwitchStmt:
			return s, s.Body.Lbrace
		case *ast.TypeSwitchStmt:
			return s, s.Body.Lbrace
		case *ast.SelectStmt:
			return s, s.Body.Lbrace
		case *ast.CaseClause:
			return s, s.Colon + 1
		case *ast.CommClause:
			return s, s.Colon + 1
		case *ast.LabeledStmt:
			return s, s.Colon + 1
		case ast.Stmt:
			return s, s.End()
		case *ast.ValueSpec:
			return s, s.End()
		case *ast.FuncLit, *ast.FuncDecl:
			return n, n.End()
		}
	}
	return n, n.End()
}

// exprString prints an expression briefly, as go/types does in messages.
func exprString(n ast.Node) string {
	if e, ok := n.(ast.Expr); ok {
		return types.ExprString(e)
	}
	return ""
}

// fieldName returns the name of the field a FieldAddr selects.
func fieldName(fa *ssa.FieldAddr) string {
	if st, ok := deref(fa.X.Type()).Underlying().(*types.Struct); ok && fa.Field < st.NumFields() {
		return st.Field(fa.Field).Name()
	}
	return fmt.Sprintf("field%d", fa.Field)
}

func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// captureSuffix returns the explanation added to the name of an access
// to a variable that function literals capture: " (captured by the
// closure at line 17)" for the variable itself, " (x captured by ...)"
// for a part of it.
func (p *Program) captureSuffix(q *pkg, addr ssa.Value, expr ast.Node) string {
	v := q.rootVar(addr)
	if v == nil {
		return ""
	}
	lits := q.captures(p.sizes).closures[v]
	if len(lits) == 0 {
		return ""
	}
	var lines []string
	seen := make(map[int]bool)
	for _, lit := range lits {
		if l := p.Fset.Position(lit.Pos()).Line; !seen[l] {
			seen[l] = true
			lines = append(lines, fmt.Sprint(l))
		}
	}
	where := "the closure at line " + lines[0]
	if len(lines) > 1 {
		where = "the closures at lines " + joinOr(lines, "and")
	}
	if id, ok := expr.(*ast.Ident); ok && id.Name == v.Name() {
		return " (captured by " + where + ")"
	}
	return " (" + v.Name() + " captured by " + where + ")"
}

// joinOr joins items as "a, b and c" (or "a, b or c").
func joinOr(items []string, word string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + word + " " + items[len(items)-1]
}

// objectKey returns the identity of the memory an access touches (see
// Site.Object), from the address (or map, or slice) it accesses.
func (p *Program) objectKey(q *pkg, addr ssa.Value) string {
	switch a := addr.(type) {
	case *ssa.Global:
		if a.Pkg != nil {
			return a.Pkg.Pkg.Path() + "." + a.Name()
		}
		return a.Name()
	case *ssa.FieldAddr:
		return typeKey(deref(a.X.Type())) + "." + fieldName(a)
	case *ssa.IndexAddr:
		return typeKey(deref(a.X.Type())) + " element"
	case *ssa.Alloc, *ssa.FreeVar:
		if v := q.rootVar(a); v != nil {
			pos := p.Fset.Position(v.Pos())
			return fmt.Sprintf("var %s at %s:%d:%d", v.Name(), pos.Filename, pos.Line, pos.Column)
		}
	}
	switch t := addr.Type().Underlying().(type) {
	case *types.Map:
		return typeKey(addr.Type())
	case *types.Slice:
		return typeKey(addr.Type()) + " element"
	case *types.Pointer:
		return "*" + typeKey(t.Elem())
	}
	return typeKey(addr.Type())
}

func typeKey(t types.Type) string { return types.TypeString(t, nil) }
