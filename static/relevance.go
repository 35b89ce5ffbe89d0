// This file implements control relevance: whether the value a read
// returns can reach a branch, an address, a call or anything else that
// could change what the goroutine does next.

package static

import (
	"fmt"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ssa"

	"github.com/seer-tools/seer/trace"
)

// A ReadFlow says where the values read at one trace site can go.
type ReadFlow struct {
	// Relevant is set when a value read may reach control flow or
	// anything seer does not follow: a branch condition, an index, a
	// slice bound or an address, a dereference, a channel operation, a
	// call (any argument of any call but a few pure built-ins), a go or
	// defer statement, a return, a panic, a type assertion, a closure,
	// a local variable that escapes. Reason says which, in words.
	Relevant bool
	Reason   string

	// Writes are the sites (same function and file) of the stores that
	// may write values derived from the read into memory: "c++" reads c
	// and writes c on the same line. A read that is not Relevant changes
	// control flow only through them, so a predictor that lets the read
	// see another value must keep, for every read that is relevant and
	// reads from one of these writes (in the same activation), the same
	// value, or treat this read as relevant too.
	Writes []trace.Frame
}

// ReadFlow analyses every read of the line of frame f (in every function
// that may have executed the line, see Access). It fails when the frame
// is not in the Program's code or no read is on the line: callers must
// then treat the read as relevant.
func (p *Program) ReadFlow(f trace.Frame) (ReadFlow, bool) {
	fi, cands := p.candidates(f, false, func(a *access) bool { return !a.write })
	if len(cands) == 0 {
		return ReadFlow{}, false
	}
	var rf ReadFlow
	lines := make(map[int]bool)
	for _, c := range cands {
		for _, pos := range c.ff.appends {
			if fi.tok.Line(pos) == f.Line {
				return ReadFlow{Relevant: true, Reason: "append on this line may copy elements into a new array without write events"}, true
			}
		}
		res := p.flow(c.ff, c.a)
		if res.relevant {
			return ReadFlow{Relevant: true, Reason: c.a.name + " " + res.reason}, true
		}
		for _, pos := range res.writes {
			lines[fi.tok.Line(pos)] = true
		}
	}
	for l := range lines {
		rf.Writes = append(rf.Writes, trace.Frame{Func: f.Func, File: f.File, Line: l})
	}
	sort.Slice(rf.Writes, func(i, j int) bool { return rf.Writes[i].Line < rf.Writes[j].Line })
	return rf, true
}

// ReadIrrelevant reports whether every read on the line of frame f is
// proven irrelevant: its values reach only arithmetic whose results reach
// only stores to memory (see ReadFlow for what that leaves to the
// predictor). Unknown means false.
func (p *Program) ReadIrrelevant(f trace.Frame) bool {
	rf, ok := p.ReadFlow(f)
	return ok && !rf.Relevant
}

// flowResult is the outcome of following one read's values.
type flowResult struct {
	relevant bool
	reason   string
	writes   []token.Pos
}

// flow follows the values of read a through ff's function: forward along
// SSA def-use chains, through phis, conversions and arithmetic, and
// through local variables the values are stored in (to the loads of those
// variables). It stops at the first relevant use.
func (p *Program) flow(ff *funcFacts, a *access) flowResult {
	if a.alwaysRelevant != "" {
		return flowResult{relevant: true, reason: a.alwaysRelevant}
	}
	if a.value == nil {
		if call, ok := a.instr.(*ssa.Call); ok && isBuiltin(call, "copy") {
			return flowResult{writes: []token.Pos{call.Pos()}} // copied into dst
		}
		return flowResult{relevant: true, reason: "is read by an operation seer does not follow"}
	}
	fw := &flowWalk{p: p, ff: ff, derived: make(map[ssa.Value]bool), tainted: make(map[*ssa.Alloc]bool)}
	fw.derive(a.value)
	for len(fw.queue) > 0 && fw.reason == "" {
		v := fw.queue[0]
		fw.queue = fw.queue[1:]
		for _, instr := range referrers(v) {
			fw.use(v, instr)
			if fw.reason != "" {
				break
			}
		}
	}
	return flowResult{relevant: fw.reason != "", reason: fw.reason, writes: fw.writes}
}

type flowWalk struct {
	p       *Program
	ff      *funcFacts
	derived map[ssa.Value]bool
	tainted map[*ssa.Alloc]bool
	queue   []ssa.Value
	writes  []token.Pos
	reason  string
}

func (fw *flowWalk) derive(v ssa.Value) {
	if !fw.derived[v] {
		fw.derived[v] = true
		fw.queue = append(fw.queue, v)
	}
}

// relevant records why the values are relevant, at instruction at.
func (fw *flowWalk) relevant(at ssa.Instruction, what string) {
	if fw.reason != "" {
		return
	}
	pos := at.Pos()
	if !pos.IsValid() {
		if v, ok := at.(*ssa.If); ok {
			pos = v.Cond.Pos()
		}
	}
	if pos.IsValid() && pos >= token.Pos(fw.ff.file.tok.Base()) && int(pos) <= fw.ff.file.tok.Base()+fw.ff.file.tok.Size() {
		fw.reason = fmt.Sprintf("%s at line %d", what, fw.ff.file.tok.Line(pos))
	} else {
		fw.reason = what
	}
}

func (fw *flowWalk) write(at ssa.Instruction) {
	if !at.Pos().IsValid() {
		fw.relevant(at, "is stored by an implicit store")
		return
	}
	fw.writes = append(fw.writes, at.Pos())
}

// use handles the use of derived value v by instruction instr.
func (fw *flowWalk) use(v ssa.Value, instr ssa.Instruction) {
	switch r := instr.(type) {
	case *ssa.DebugRef:
		// No effect.
	case *ssa.BinOp:
		switch {
		case (r.Op == token.QUO || r.Op == token.REM) && r.Y == v && isInteger(r.Y.Type()):
			fw.relevant(r, "is a divisor (division by zero panics)")
		case (r.Op == token.SHL || r.Op == token.SHR) && r.Y == v:
			fw.relevant(r, "is a shift count (negative counts panic)")
		case types.IsInterface(r.X.Type()):
			fw.relevant(r, "is compared as an interface (which may panic)")
		default:
			fw.derive(r)
		}
	case *ssa.UnOp:
		switch r.Op {
		case token.MUL:
			fw.relevant(r, "is dereferenced")
		case token.ARROW:
			fw.relevant(r, "is received from")
		default:
			fw.derive(r)
		}
	case *ssa.Convert, *ssa.ChangeType, *ssa.MultiConvert, *ssa.ChangeInterface,
		*ssa.MakeInterface, *ssa.Phi, *ssa.Extract, *ssa.Field:
		fw.derive(r.(ssa.Value))
	case *ssa.Index:
		if r.Index == v {
			fw.relevant(r, "is an index")
		} else {
			fw.derive(r)
		}
	case *ssa.Slice:
		if r.X == v && r.Low != v && r.High != v && r.Max != v {
			fw.derive(r)
		} else {
			fw.relevant(r, "is a slice bound")
		}
	case *ssa.Store:
		if r.Addr == v {
			fw.relevant(r, "is an address written to")
		} else {
			fw.store(r)
		}
	case *ssa.MapUpdate:
		if r.Map == v || r.Key == v {
			fw.relevant(r, "is a map or key updated")
		} else {
			fw.write(r)
		}
	case *ssa.Call:
		fw.call(v, r)
	case *ssa.If:
		fw.relevant(r, "decides a branch")
	case *ssa.Return:
		fw.relevant(r, "is returned")
	case *ssa.Panic:
		fw.relevant(r, "is a panic value")
	case *ssa.Send:
		fw.relevant(r, "is sent on a channel")
	case *ssa.Select:
		fw.relevant(r, "takes part in a select")
	case *ssa.Go:
		fw.relevant(r, "is passed to a go statement")
	case *ssa.Defer:
		fw.relevant(r, "is passed to a defer statement")
	case *ssa.Lookup:
		fw.relevant(r, "is a map, string or key looked up")
	case *ssa.IndexAddr, *ssa.FieldAddr:
		fw.relevant(r, "is an address or index")
	case *ssa.TypeAssert:
		fw.relevant(r, "is type-asserted")
	case *ssa.MakeClosure:
		fw.relevant(r, "is captured by a closure")
	default:
		fw.relevant(instr, "is used by "+fmt.Sprintf("%T", instr)[len("*ssa."):])
	}
}

// call handles a call that uses derived value v.
func (fw *flowWalk) call(v ssa.Value, r *ssa.Call) {
	if b, ok := r.Call.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "len", "cap", "min", "max", "real", "imag", "complex":
			fw.derive(r)
			return
		case "append":
			if len(r.Call.Args) > 0 && r.Call.Args[0] != v {
				fw.write(r) // appended values are stored in the array
				return
			}
		}
		fw.relevant(r, "is passed to "+b.Name())
		return
	}
	name := "a function"
	if callee := r.Call.StaticCallee(); callee != nil {
		name = callee.Name()
	} else if r.Call.IsInvoke() {
		name = "method " + r.Call.Method.Name()
	}
	fw.relevant(r, "is passed to "+name)
}

// store handles a store of a derived value. A store into a local variable
// of the function is followed to the variable's loads; a store anywhere
// else (a package variable, through a pointer, a variable captured from
// an enclosing function) is a write of memory that the race runtime
// records, and is recorded as such.
func (fw *flowWalk) store(s *ssa.Store) {
	root := s.Addr
	for {
		switch a := root.(type) {
		case *ssa.FieldAddr:
			root = a.X
			continue
		case *ssa.IndexAddr:
			if isPointer(a.X.Type()) {
				root = a.X
				continue
			}
		case *ssa.Alloc:
			// A local variable, in the frame or not (escape analysis
			// decides): its accesses may not be events, so follow the
			// values through it.
			fw.taint(a)
			return
		}
		break
	}
	fw.write(s)
}

// taint follows a local variable that holds derived values: its loads
// are derived; any other use of its address (a closure capturing it, a
// call receiving it) is relevant, except the array of a variadic append.
func (fw *flowWalk) taint(alloc *ssa.Alloc) {
	if fw.tainted[alloc] {
		return
	}
	fw.tainted[alloc] = true
	var walk func(addr ssa.Value)
	walk = func(addr ssa.Value) {
		for _, instr := range referrers(addr) {
			if fw.reason != "" {
				return
			}
			switch u := instr.(type) {
			case *ssa.DebugRef:
			case *ssa.UnOp:
				if u.Op == token.MUL {
					fw.derive(u)
				} else {
					fw.relevant(u, "is stored in a local variable used by "+u.Op.String())
				}
			case *ssa.Store:
				if u.Val == addr {
					fw.relevant(u, "is stored in a local variable whose address escapes")
				}
			case *ssa.FieldAddr:
				walk(u)
			case *ssa.IndexAddr:
				if u.X == addr {
					walk(u)
				} else {
					fw.relevant(u, "is stored in a local variable used as an index")
				}
			case *ssa.Slice:
				if alloc.Comment == "varargs" && onlyAppended(u) {
					fw.write(appendCall(u))
				} else {
					fw.relevant(u, "is stored in a local array that is sliced")
				}
			default:
				fw.relevant(instr, "is stored in local variable "+alloc.Comment+", which escapes")
			}
		}
	}
	walk(alloc)
}

// onlyAppended reports whether the slice of a variadic argument array is
// used only as the appended elements of a call of append.
func onlyAppended(s *ssa.Slice) bool {
	rs := referrers(s)
	for _, r := range rs {
		if _, ok := r.(*ssa.DebugRef); ok {
			continue
		}
		call, ok := r.(*ssa.Call)
		if !ok || !isBuiltin(call, "append") || len(call.Call.Args) != 2 || call.Call.Args[1] != s || call.Call.Args[0] == s {
			return false
		}
	}
	return appendCall(s) != nil
}

func appendCall(s *ssa.Slice) *ssa.Call {
	for _, r := range referrers(s) {
		if call, ok := r.(*ssa.Call); ok && isBuiltin(call, "append") {
			return call
		}
	}
	return nil
}

func isBuiltin(call *ssa.Call, name string) bool {
	b, ok := call.Call.Value.(*ssa.Builtin)
	return ok && b.Name() == name
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}
