// This file implements the discovery of a function's memory accesses in
// its SSA form: which instructions read or write memory that the race
// runtime records, at which source position, and on which expression.

package static

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// An access is one memory access of a function's code, as the race
// runtime would record it.
type access struct {
	write bool
	instr ssa.Instruction
	pos   token.Pos // decides the access's line
	expr  ast.Node  // the accessed expression, for its range and name

	name   string // see Site.Name
	object string // see Site.Object
	size   int64  // bytes accessed, -1 if unknown or variable

	// secondary accesses (the element writes of append) are chosen only
	// when a hint asks for them: a line "s = append(s, v)" is about s.
	secondary bool

	// value is the value a read returns, for control relevance; nil when
	// the read's values are not an SSA value (see relevance.go).
	value ssa.Value

	// alwaysRelevant marks reads that decide control flow by themselves
	// (range over a map) or whose values move without write events.
	alwaysRelevant string
}

// funcFacts are the analyses of one function, built on first use.
type funcFacts struct {
	fn       *ssa.Function
	file     *file
	nodes    *nodeIndex
	accesses []access
	appends  []token.Pos // positions of append calls
}

// funcKey identifies the facts of a function in one file (the package
// initializer has code in every file).
type funcKey struct {
	fn   *ssa.Function
	file *file
}

// facts returns the facts of fn's code in file fi.
func (p *Program) facts(fi *file, fn *ssa.Function) *funcFacts {
	key := funcKey{fn, fi}
	p.mu.Lock()
	ff := p.funcs[key]
	p.mu.Unlock()
	if ff != nil {
		return ff
	}
	ff = &funcFacts{fn: fn, file: fi, nodes: newNodeIndex(fi, fn.Syntax())}
	ff.collect(p)
	p.mu.Lock()
	if prev := p.funcs[key]; prev != nil {
		ff = prev
	} else {
		p.funcs[key] = ff
	}
	p.mu.Unlock()
	return ff
}

// collect finds the accesses of ff.fn.
func (ff *funcFacts) collect(p *Program) {
	q := ff.file.pkg
	caps := q.captures(p.sizes)
	for _, b := range ff.fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.UnOp:
				if in.Op == token.MUL && p.recorded(q, caps, in.X) {
					ff.load(p, in)
				}
			case *ssa.Store:
				if p.recorded(q, caps, in.Addr) && in.Pos().IsValid() {
					ff.add(p, access{write: true, instr: in, pos: in.Pos(), size: p.sizeof(in.Val.Type())}, in.Addr)
				}
			case *ssa.Lookup:
				if isMap(in.X.Type()) {
					ff.add(p, access{instr: in, pos: in.Pos(), value: in, size: -1}, in.X)
				}
			case *ssa.MapUpdate:
				ff.add(p, access{write: true, instr: in, pos: in.Pos(), size: -1}, in.Map)
			case *ssa.Range:
				if isMap(in.X.Type()) {
					if rs, ok := ff.nodes.at[in.Pos()].(*ast.RangeStmt); ok {
						ff.add(p, access{instr: in, pos: rs.X.Pos(), expr: rs.X, size: -1,
							alwaysRelevant: "ranging over a map decides how often the loop runs"}, in.X)
					}
				}
			case *ssa.Convert:
				if isByteOrRuneSlice(in.X.Type()) && isString(in.Type()) {
					if call, ok := ff.nodes.at[in.Pos()].(*ast.CallExpr); ok && len(call.Args) == 1 {
						ff.add(p, access{instr: in, pos: call.Lparen, expr: call.Args[0], value: in, size: -1,
							name: "elements of " + exprString(call.Args[0])}, in.X)
					}
				}
			case *ssa.Call:
				ff.builtin(p, in)
			}
		}
	}
}

// load records the read of a load instruction.
func (ff *funcFacts) load(p *Program, in *ssa.UnOp) {
	a := access{instr: in, pos: in.Pos(), value: in, size: p.sizeof(in.Type())}
	if !in.Pos().IsValid() {
		// Implicit loads: the elements of a range over a slice or array
		// pointer, the embedded pointers of promoted selections, and the
		// receivers of value methods called on pointers.
		switch addr := in.X.(type) {
		case *ssa.IndexAddr:
			if x := ff.rangeOver(addr.X); x != nil {
				a.pos, a.expr, a.name = x.Pos(), x, "elements of "+exprString(x)
			}
		case *ssa.FieldAddr:
			if se := ff.nodes.promoted(addr.Pos()); se != nil {
				a.pos, a.expr = addr.Pos(), se.X
				a.name = exprString(se.X) + "." + fieldName(addr)
			}
		}
		if a.expr == nil {
			if call := receiverCall(in); call != nil {
				if node, ok := ff.nodes.at[call.Pos()].(*ast.CallExpr); ok {
					if se, ok := ast.Unparen(node.Fun).(*ast.SelectorExpr); ok {
						a.pos, a.expr, a.name = call.Pos(), se.X, "*"+exprString(se.X)
					}
				}
			}
		}
		if a.expr == nil {
			return
		}
	}
	ff.add(p, a, in.X)
}

// rangeOver returns the range expression whose value x is, if any.
func (ff *funcFacts) rangeOver(x ssa.Value) ast.Expr {
	for _, r := range referrers(x) {
		if ref, ok := r.(*ssa.DebugRef); ok && !ref.IsAddr && ff.nodes.rangeX[ref.Expr] {
			return ref.Expr
		}
	}
	return nil
}

// receiverCall returns the call whose receiver argument is the value of
// load, if any.
func receiverCall(load *ssa.UnOp) *ssa.Call {
	for _, r := range referrers(load) {
		if call, ok := r.(*ssa.Call); ok && call.Call.Signature().Recv() != nil &&
			len(call.Call.Args) > 0 && call.Call.Args[0] == load {
			return call
		}
	}
	return nil
}

// builtin records the accesses of the built-in functions that read or
// write memory through their operands.
func (ff *funcFacts) builtin(p *Program, call *ssa.Call) {
	b, ok := call.Call.Value.(*ssa.Builtin)
	if !ok {
		return
	}
	node, ok := ff.nodes.at[call.Pos()].(*ast.CallExpr)
	if !ok {
		return
	}
	args := call.Call.Args
	switch b.Name() {
	case "append":
		ff.appends = append(ff.appends, call.Pos())
		if len(node.Args) > 0 {
			ff.add(p, access{write: true, instr: call, pos: call.Pos(), expr: node.Args[0], size: -1, secondary: true,
				name: "elements of " + exprString(node.Args[0]) + " (append)"}, args[0])
		}
		if node.Ellipsis.IsValid() && len(node.Args) == 2 && !isString(args[1].Type()) {
			ff.add(p, access{instr: call, pos: call.Pos(), expr: node.Args[1], size: -1,
				name:           "elements of " + exprString(node.Args[1]),
				alwaysRelevant: "append may copy elements into a new array without write events"}, args[1])
		}
	case "copy":
		if len(node.Args) == 2 {
			ff.add(p, access{write: true, instr: call, pos: call.Pos(), expr: node.Args[0], size: -1,
				name: "elements of " + exprString(node.Args[0])}, args[0])
			if !isString(args[1].Type()) {
				ff.add(p, access{instr: call, pos: call.Pos(), expr: node.Args[1], size: -1,
					name: "elements of " + exprString(node.Args[1])}, args[1])
			}
		}
	case "delete", "clear":
		if len(args) > 0 {
			ff.add(p, access{write: true, instr: call, pos: call.Pos(), expr: node, size: -1}, args[0])
		}
	case "len":
		if len(args) == 1 && isMap(args[0].Type()) {
			ff.add(p, access{instr: call, pos: call.Pos(), expr: node, value: call, size: -1}, args[0])
		}
	}
}

// add completes a (its expression, name and object) and records it. addr
// is the address accessed (or the map, or the slice).
func (ff *funcFacts) add(p *Program, a access, addr ssa.Value) {
	if !a.pos.IsValid() || ff.file.tok.Base() > int(a.pos) || int(a.pos) > ff.file.tok.Base()+ff.file.tok.Size() {
		return
	}
	if a.expr == nil {
		a.expr = ff.nodes.accessed(a.pos)
		if a.expr == nil {
			return
		}
	}
	if a.name == "" {
		a.name = exprString(a.expr)
		if a.write {
			if name, ok := ff.literalElement(a.expr); ok {
				a.name = name
			}
		}
	}
	a.name += p.captureSuffix(ff.file.pkg, addr, a.expr)
	a.object = p.objectKey(ff.file.pkg, addr)
	ff.accesses = append(ff.accesses, a)
}

// recorded reports whether the race runtime records accesses to addr: not
// for the stack (a local variable the compiler keeps in the frame) or the
// read-only data of a closure (a variable captured by value). Where it
// cannot tell, it says yes.
func (p *Program) recorded(q *pkg, caps *captureFacts, addr ssa.Value) bool {
	for {
		switch a := unphi(addr).(type) {
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			if !isPointer(a.X.Type()) {
				return true // a slice: its array is not known to be in the frame
			}
			addr = a.X
		case *ssa.Alloc:
			if !a.Heap || a.Comment == "varargs" {
				// The frame, or the implicit array of a variadic call's
				// arguments (which the compiler fills before the call).
				return false
			}
			return !caps.allByValue(q.localVars(a.Pos(), a.Comment))
		case *ssa.FreeVar:
			return !caps.allByValue(q.localVars(a.Pos(), a.Name()))
		default:
			return true
		}
	}
}

// rootVar returns the local variable whose storage addr points into, if
// any (through fields and array elements).
func (q *pkg) rootVar(addr ssa.Value) *types.Var {
	for {
		switch a := unphi(addr).(type) {
		case *ssa.FieldAddr:
			addr = a.X
		case *ssa.IndexAddr:
			if !isPointer(a.X.Type()) {
				return nil
			}
			addr = a.X
		case *ssa.Alloc:
			return q.localVar(a.Pos(), a.Comment)
		case *ssa.FreeVar:
			return q.localVar(a.Pos(), a.Name())
		default:
			return nil
		}
	}
}

// unphi returns the variable that a phi of addresses denotes when all its
// edges are the per-iteration copies of one loop variable (which go/ssa
// allocates anew for each iteration of a loop whose variable is
// captured); otherwise it returns v.
func unphi(v ssa.Value) ssa.Value {
	phi, ok := v.(*ssa.Phi)
	if !ok {
		return v
	}
	var first *ssa.Alloc
	seen := make(map[*ssa.Phi]bool)
	var visit func(*ssa.Phi) bool
	visit = func(phi *ssa.Phi) bool {
		if seen[phi] {
			return true
		}
		seen[phi] = true
		for _, e := range phi.Edges {
			switch e := e.(type) {
			case *ssa.Phi:
				if !visit(e) {
					return false
				}
			case *ssa.Alloc:
				if first == nil {
					first = e
				} else if e.Pos() != first.Pos() || e.Comment != first.Comment {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if visit(phi) && first != nil {
		return first
	}
	return v
}

func (p *Program) sizeof(t types.Type) (size int64) {
	if containsTypeParam(t) {
		return -1
	}
	defer func() {
		if recover() != nil {
			size = -1
		}
	}()
	return p.sizes.Sizeof(t)
}

func referrers(v ssa.Value) []ssa.Instruction {
	if rs := v.Referrers(); rs != nil {
		return *rs
	}
	return nil
}

func isMap(t types.Type) bool {
	_, ok := t.Underlying().(*types.Map)
	return ok
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

func isByteOrRuneSlice(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && (b.Kind() == types.Byte || b.Kind() == types.Rune)
}

// literalElement returns the name of the element of a composite literal
// that n is (the stores that initialize a literal are positioned at its
// elements): "Account{…}.balance", "[]int{…}[1]", "map[string]int{…}[k]".
func (ff *funcFacts) literalElement(n ast.Node) (string, bool) {
	lit, ok := ff.nodes.parent[n].(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	index := -1
	for i, elt := range lit.Elts {
		if elt == n {
			index = i
		}
	}
	kv, _ := n.(*ast.KeyValueExpr)
	switch t := typeUnder(ff.file.pkg.info.TypeOf(lit)).(type) {
	case *types.Struct:
		if kv != nil {
			return exprString(lit) + "." + exprString(kv.Key), true
		}
		if index >= 0 && index < t.NumFields() {
			return exprString(lit) + "." + t.Field(index).Name(), true
		}
	default:
		if kv != nil {
			return exprString(lit) + "[" + exprString(kv.Key) + "]", true
		}
		if index >= 0 {
			return exprString(lit) + "[" + strconv.Itoa(index) + "]", true
		}
	}
	return "", false
}

// typeUnder returns the underlying type of t, through a pointer (for the
// type of &T{...} literals).
func typeUnder(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return deref(t).Underlying()
}
