// This file implements the resolution of a trace frame (function symbol,
// file, line) to the SSA functions whose code is on that line.

package static

import (
	"go/ast"

	"golang.org/x/tools/go/ssa"

	"github.com/seer-tools/seer/trace"
)

// Functions returns the SSA functions whose code may be at frame f's line
// (see Access): one for a declared function, and for a closure each
// function literal or range-over-func body that contains the line,
// innermost first. Generic functions are their generic bodies. It
// returns nil when the frame is not in the Program's code.
func (p *Program) Functions(f trace.Frame) []*ssa.Function {
	_, fns, _ := p.resolve(f)
	return fns
}

// resolve returns the file of frame f and the functions of the Program
// that may have executed its line: for a declared function, the one
// declaration that contains the line; for a closure, every function
// literal (and range-over-func body) that contains it, innermost first.
// Each instruction belongs to one function, so the code of the line is
// the code on that line of these functions; usually it is all in one.
// When it is not ("go func() { a++ }(); go func() { b++ }()"), callers
// consider all of it.
//
// The file and line decide; the symbol only says the package and whether
// the frame is a closure (function literal or range-over-func body) or a
// declared function. Closure numbers are not used: the compiler renumbers
// the closures of inlined functions.
func (p *Program) resolve(f trace.Frame) (*file, []*ssa.Function, bool) {
	fi, ok := p.lookupFile(f.File)
	if !ok || f.Line < 1 || f.Line > fi.tok.LineCount() {
		return nil, nil, false
	}
	sym, err := ParseSymbol(f.Func)
	if err != nil || sym.PkgPath != fi.pkg.path {
		return nil, nil, false
	}
	if sym.IsClosure() {
		fns := containing(fi.funcs, f.Line, func(n funcNode) bool {
			_, isDecl := n.node.(*ast.FuncDecl)
			return !isDecl
		})
		return fi, fns, len(fns) > 0
	}
	fns := containing(fi.funcs, f.Line, func(n funcNode) bool {
		_, isDecl := n.node.(*ast.FuncDecl)
		return isDecl
	})
	if len(fns) == 0 && sym.IsPackageInit() {
		// Package-level variable initialization.
		if init := fi.pkg.ssa.Func("init"); init != nil {
			fns = []*ssa.Function{init}
		}
	}
	return fi, fns, len(fns) > 0
}

// containing returns the functions among nodes that contain line and
// satisfy keep, innermost first.
func containing(nodes []funcNode, line int, keep func(funcNode) bool) []*ssa.Function {
	var out []*ssa.Function
	for i := len(nodes) - 1; i >= 0; i-- { // nodes are sorted by start
		if n := nodes[i]; keep(n) && n.start <= line && line <= n.end {
			out = append(out, n.fn)
		}
	}
	return out
}
