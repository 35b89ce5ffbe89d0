// This file implements the static half of a predicted nil dereference
// (issue 32, item 6): whether a write on a line stores nil into a pointer
// or interface variable, and whether the value a read on a line returns
// is dereferenced, with no check between, right after the read. The trace
// records which write a read saw, not the values; these two answers let
// the predictor (predict/nilderef.go) turn "another schedule lets the read
// see that write" into "another schedule panics".

package static

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/seer-tools/seer/trace"
)

// NilStore reports whether every recorded write on the line of frame f
// stores the constant nil into a pointer or an interface (and there is
// one): "c.conn = nil". A trace's event then writes a pointer's (or an
// interface's) memory, whatever size the race runtime gave it. Unknown
// means false.
func (p *Program) NilStore(f trace.Frame) bool {
	_, cands := p.candidates(f, false, func(a *access) bool { return a.write })
	if len(cands) == 0 {
		return false
	}
	for _, c := range cands {
		st, ok := c.a.instr.(*ssa.Store)
		if !ok || !derefable(st.Val.Type()) || !nilConst(st.Val) {
			return false
		}
	}
	return true
}

// scalar reports whether a value of type t holds no pointer: in a
// program without unsafe, its memory is never a pointer's.
func scalar(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsNumeric) != 0
}

// nilConst reports whether v is the constant nil (of a pointer type, or
// nil converted to an interface).
func nilConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// derefable reports whether a nil of type t panics when dereferenced or
// called through: a pointer or an interface.
func derefable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface:
		return true
	}
	return false
}

// NilDeref reports whether every recorded read on the line of frame f
// that loads a pointer or an interface (and there is one; the other reads
// must be of booleans or numbers, which never read a pointer's memory)
// loads one whose
// value its own goroutine dereferences next, whatever the value: a later
// instruction of the read's basic block (so no branch, no nil check, lies
// between) loads or stores through the pointer, takes the address of a
// field or array element of it, or calls a method of the interface; and
// the instructions between cannot block, call, or panic otherwise.
// Calling a method of a nil interface panics as a dereference does; a
// method called on a nil pointer is not counted (the method may check).
//
// And that the panic reaches the goroutine's end: no function of stack
// (the read's frames, innermost first, as the trace gives them; frames
// outside the program are the runtime's or the standard library's and
// are skipped) defers a call that may recover. A deferred call whose
// callee is not known statically counts as one that may. Unknown means
// false.
func (p *Program) NilDeref(stack []trace.Frame) bool {
	_, ok := p.NilDerefName(stack)
	return ok
}

// NilDerefName is NilDeref, and the name of what the dereferenced read
// reads ("c.conn") when the reads of pointers and interfaces on the line
// have one name, else "".
func (p *Program) NilDerefName(stack []trace.Frame) (string, bool) {
	if len(stack) == 0 {
		return "", false
	}
	f := stack[0]
	_, cands := p.candidates(f, false, func(a *access) bool { return !a.write })
	if len(cands) == 0 {
		return "", false
	}
	n, name := 0, ""
	for _, c := range cands {
		ld, ok := c.a.instr.(*ssa.UnOp)
		if !ok || ld.Op != token.MUL {
			return "", false
		}
		if !derefable(ld.Type()) {
			if !scalar(ld.Type()) {
				return "", false // may read a pointer's memory
			}
			continue
		}
		if !derefNext(ld) {
			return "", false
		}
		if n == 0 {
			name = c.a.name
		} else if name != c.a.name {
			name = ""
		}
		n++
	}
	if n == 0 {
		return "", false
	}
	for _, fr := range stack {
		_, fns, ok := p.resolve(fr)
		if !ok {
			if _, known := p.lookupFile(fr.File); known {
				return "", false // a frame of the program not resolved
			}
			continue
		}
		for _, fn := range fns {
			if mayRecover(fn) {
				return "", false
			}
		}
	}
	return name, true
}

// derefNext reports whether load v is dereferenced by a later
// instruction of its block, with only harmless instructions between.
func derefNext(v *ssa.UnOp) bool {
	b := v.Block()
	k := -1
	for j, in := range b.Instrs {
		if in == v {
			k = j
			break
		}
	}
	if k < 0 {
		return false
	}
	for _, in := range b.Instrs[k+1:] {
		if derefs(in, v) {
			return true
		}
		if !harmless(in) {
			return false
		}
	}
	return false
}

// derefs reports whether instruction in panics when v is nil.
func derefs(in ssa.Instruction, v ssa.Value) bool {
	switch in := in.(type) {
	case *ssa.FieldAddr:
		return in.X == v
	case *ssa.IndexAddr:
		_, ptr := in.X.Type().Underlying().(*types.Pointer)
		return in.X == v && ptr
	case *ssa.UnOp:
		return in.Op == token.MUL && in.X == v
	case *ssa.Store:
		return in.Addr == v
	case *ssa.Call:
		return in.Call.IsInvoke() && in.Call.Value == v
	}
	return false
}

// harmless reports whether instruction in neither blocks, calls, nor
// panics for a reason other than a nil dereference, so that a goroutine
// past it reaches the next instruction of its block.
func harmless(in ssa.Instruction) bool {
	switch in := in.(type) {
	case *ssa.FieldAddr, *ssa.Field, *ssa.ChangeType, *ssa.ChangeInterface,
		*ssa.MakeInterface, *ssa.DebugRef, *ssa.Extract, *ssa.Store, *ssa.MakeClosure:
		return true
	case *ssa.UnOp:
		return in.Op != token.ARROW
	case *ssa.BinOp:
		switch in.Op {
		case token.QUO, token.REM, token.SHL, token.SHR:
			return false
		}
		return true
	case *ssa.Convert:
		// Conversions between numbers and strings cannot fail; slice to
		// array (pointer) can.
		_, toArr := in.Type().Underlying().(*types.Array)
		_, toPtr := in.Type().Underlying().(*types.Pointer)
		return !toArr && !toPtr
	}
	return false
}

// mayRecover reports whether fn defers a call that may recover a panic:
// one whose callee is not known, or whose callee calls the built-in
// recover.
func mayRecover(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			d, ok := in.(*ssa.Defer)
			if !ok {
				continue
			}
			if d.Call.IsInvoke() {
				return true
			}
			var callee *ssa.Function
			switch c := d.Call.Value.(type) {
			case *ssa.Function:
				callee = c
			case *ssa.MakeClosure:
				callee, _ = c.Fn.(*ssa.Function)
			case *ssa.Builtin:
				continue
			}
			if callee == nil || callsRecover(callee) {
				return true
			}
		}
	}
	return false
}

// callsRecover reports whether fn (or a function literal in it) calls the
// built-in recover.
func callsRecover(fn *ssa.Function) bool {
	if fn.Blocks == nil {
		return false // a function of another package, without body here
	}
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if c, ok := in.(*ssa.Call); ok {
				if bi, ok := c.Call.Value.(*ssa.Builtin); ok && bi.Name() == "recover" {
					return true
				}
			}
		}
	}
	for _, an := range fn.AnonFuncs {
		if callsRecover(an) {
			return true
		}
	}
	return false
}
