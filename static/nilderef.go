// This file implements the static half of a predicted panic from an
// order violation (issue 32, item 6): whether a write on a line stores
// nil into a pointer, an interface, a slice or a map, and whether the
// value a read on a line returns is used, with no check between, right
// after the read in a way that panics when it is nil: dereferenced (a nil
// pointer dereference), indexed (a nil slice has length 0: index out of
// range) or assigned an entry (a nil map: "assignment to entry in nil
// map"). The trace records which write a read saw, not the values; these
// two answers let the predictor (predict/nilderef.go) turn "another
// schedule lets the read see that write" into "another schedule panics".

package static

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/seer-tools/seer/trace"
)

// A NilUse is what a goroutine does at once with a value it read, that
// panics when the value is nil.
type NilUse int

const (
	// NoNilUse: not known to panic.
	NoNilUse NilUse = iota
	// NilDeref: loads or stores through a pointer, takes the address of
	// a field or element of it, or calls a method of an interface.
	NilDeref
	// NilIndex: indexes a slice (a nil slice has length 0, so every
	// index is out of range).
	NilIndex
	// NilMapWrite: assigns to an entry of a map (a nil map has no entries
	// to assign: "assignment to entry in nil map"; reading it or deleting
	// from it does not panic).
	NilMapWrite
)

// NilStore reports whether every recorded write on the line of frame f
// stores the constant nil into a pointer, an interface, a slice or a map
// (and there is one): "c.conn = nil". A trace's event then writes such a
// variable's memory, whatever size the race runtime gave it. Unknown
// means false.
func (p *Program) NilStore(f trace.Frame) bool {
	_, cands := p.candidates(f, false, func(a *access) bool { return a.write })
	if len(cands) == 0 {
		return false
	}
	for _, c := range cands {
		st, ok := c.a.instr.(*ssa.Store)
		if !ok || !nilable(st.Val.Type()) || !nilConst(st.Val) {
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

// nilConst reports whether v is the constant nil.
func nilConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// nilable reports whether a value of type t may be a nil that NilUse
// follows: a pointer, an interface, a slice or a map.
func nilable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface, *types.Slice, *types.Map:
		return true
	}
	return false
}

// NilUse reports what the goroutine does with the value that every
// recorded read on the line of frame stack[0] loads of a pointer, an
// interface, a slice or a map (there must be one; the other reads must be of
// booleans or numbers, which never read such a variable's memory): the
// same NilUse for all, made by a later instruction of the read's basic
// block (so no branch, no nil or length check, lies between), with the
// instructions between unable to block, call, or panic otherwise; and the
// name of what is read ("c.conn") when the reads have one. A method
// called on a nil pointer is not a use (the method may check).
//
// And that the panic reaches the goroutine's end: no function of stack
// (the read's frames, innermost first, as the trace gives them; frames
// outside the program are the runtime's or the standard library's and
// are skipped) defers a call that may recover. A deferred call whose
// callee is not known statically counts as one that may. Unknown means
// NoNilUse.
func (p *Program) NilUse(stack []trace.Frame) (NilUse, string) {
	if len(stack) == 0 {
		return NoNilUse, ""
	}
	_, cands := p.candidates(stack[0], false, func(a *access) bool { return !a.write })
	use, name := NoNilUse, ""
	for _, c := range cands {
		ld, ok := c.a.instr.(*ssa.UnOp)
		if !ok || ld.Op != token.MUL {
			return NoNilUse, ""
		}
		if !nilable(ld.Type()) {
			if !scalar(ld.Type()) {
				return NoNilUse, "" // may read such a variable's memory
			}
			continue
		}
		u := usedNext(ld)
		if u == NoNilUse || use != NoNilUse && u != use {
			return NoNilUse, ""
		}
		if use == NoNilUse {
			name = c.a.name
		} else if name != c.a.name {
			name = ""
		}
		use = u
	}
	if use == NoNilUse {
		return NoNilUse, ""
	}
	for _, fr := range stack {
		_, fns, ok := p.resolve(fr)
		if !ok {
			if _, known := p.lookupFile(fr.File); known {
				return NoNilUse, "" // a frame of the program not resolved
			}
			continue
		}
		for _, fn := range fns {
			if mayRecover(fn) {
				return NoNilUse, ""
			}
		}
	}
	return use, name
}

// usedNext returns what a later instruction of load v's block does with
// it that panics when it is nil, with only harmless instructions between.
func usedNext(v *ssa.UnOp) NilUse {
	b := v.Block()
	k := -1
	for j, in := range b.Instrs {
		if in == v {
			k = j
			break
		}
	}
	if k < 0 {
		return NoNilUse
	}
	for _, in := range b.Instrs[k+1:] {
		if u := uses(in, v); u != NoNilUse {
			return u
		}
		if !harmless(in) {
			return NoNilUse
		}
	}
	return NoNilUse
}

// uses returns how instruction in panics when v is nil, if it does.
func uses(in ssa.Instruction, v ssa.Value) NilUse {
	deref := false
	switch in := in.(type) {
	case *ssa.FieldAddr:
		deref = in.X == v
	case *ssa.IndexAddr:
		if in.X == v {
			switch in.X.Type().Underlying().(type) {
			case *types.Pointer:
				return NilDeref
			case *types.Slice:
				return NilIndex
			}
		}
	case *ssa.UnOp:
		deref = in.Op == token.MUL && in.X == v
	case *ssa.Store:
		deref = in.Addr == v
	case *ssa.MapUpdate:
		if in.Map == v {
			return NilMapWrite
		}
	case *ssa.Call:
		deref = in.Call.IsInvoke() && in.Call.Value == v
	}
	if deref {
		return NilDeref
	}
	return NoNilUse
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
