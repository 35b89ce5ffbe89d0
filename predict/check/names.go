// This file implements the names a report gives memory and
// synchronisation objects, and the words it gives each witness step. The
// trace knows objects by number ("#755", "mutex#624"), which mean nothing
// to a reader; the report names them as the source does: a global by its
// name, an access by its expression (through Source), a mutex or a channel
// by the expression its operation is called on ("a.mu" in a.mu.Lock()),
// and what is left by where it was allocated.

package check

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

// A namer names the objects of one trace's events. It parses each source
// file it needs once.
type namer struct {
	t     *trace.Trace
	src   Source
	fset  *token.FileSet
	files map[string]*ast.File // nil: the file does not parse
	// known holds names already given to events (the finding's accesses,
	// refined by Source).
	known map[int]string
}

func newNamer(t *trace.Trace, src Source) *namer {
	return &namer{t: t, src: src, fset: token.NewFileSet(), files: map[string]*ast.File{}, known: map[int]string{}}
}

// syncKind reports whether an object kind is synchronisation.
func syncKind(k trace.ObjKind) bool {
	switch k {
	case trace.ObjMutex, trace.ObjRWMutex, trace.ObjChan, trace.ObjWaitGroup, trace.ObjCond, trace.ObjOnce, trace.ObjSync, trace.ObjLock:
		return true
	}
	return false
}

// kindWords names an object of kind k that has no better name.
var kindWords = map[trace.ObjKind]string{
	trace.ObjMutex:     "a mutex",
	trace.ObjRWMutex:   "an RWMutex",
	trace.ObjChan:      "a channel",
	trace.ObjWaitGroup: "a WaitGroup",
	trace.ObjCond:      "a sync.Cond",
	trace.ObjOnce:      "a sync.Once",
	trace.ObjAtomic:    "an atomic variable",
}

// object names what event i acts on, or "" for events that act on no
// object (goroutine life cycle, transaction bounds). user says whether
// the event is in user code, whose source is worth reading.
func (n *namer) object(i int, user bool) string {
	if name, ok := n.known[i]; ok {
		return name
	}
	e := &n.t.Events[i]
	switch e.Op {
	case trace.OpGo, trace.OpStart, trace.OpJoin:
		return fmt.Sprintf("goroutine %d", e.Peer)
	case trace.OpEnd, trace.OpTxBegin, trace.OpTxEnd:
		return ""
	}
	if name := n.t.ObjectName(e.Obj); name != "" {
		if n.t.Header.Format == "std" {
			return name
		}
		return shortName(name)
	}
	o := n.t.Object(e.Obj)
	frames := n.t.Stack(e.Stack)
	if user && n.t.Header.Format != "std" {
		if name := n.fromSource(e, o, frames); name != "" {
			return name
		}
	}
	if o != nil && o.Alloc != 0 {
		if site, ok := trace.UserFrame(n.t.Stack(o.Alloc), n.t.Header.GOROOT); ok {
			return fmt.Sprintf("the heap object allocated at %s:%d", filepath.Base(site.File), site.Line)
		}
	}
	if o != nil {
		if w, ok := kindWords[o.Kind]; ok {
			return w
		}
	}
	if e.Op.IsAtomic() {
		return "an atomic variable"
	}
	if syncOp(e.Op) {
		return "a synchronisation object"
	}
	return "memory"
}

// fromSource names the object of e from the user's line: the expression
// a synchronisation method is called on, the channel of a channel
// operation, or the accessed expression (through Source).
func (n *namer) fromSource(e *trace.Event, o *trace.Object, frames []trace.Frame) string {
	site, ok := trace.UserFrame(frames, n.t.Header.GOROOT)
	if !ok {
		return ""
	}
	switch e.Op {
	case trace.OpRead, trace.OpWrite:
		if n.src == nil || libraryCall(frames, n.t.Header.GOROOT) != "" {
			return ""
		}
		a := report.Access{File: site.File, Line: site.Line, Stack: toFrames(frames)}
		n.src.Refine(&a, e.Op == trace.OpWrite, rangeSize(e))
		return a.Variable
	case trace.OpSend, trace.OpRecv, trace.OpClose:
		return n.channelAt(site, e.Op)
	}
	if method := methodName(libraryCall(frames, n.t.Header.GOROOT)); method != "" {
		return n.receiverAt(site, method)
	}
	return ""
}

// libraryCall returns the function that the innermost user frame of
// frames calls into, when the event was made inside the standard library:
// "sync.(*Mutex).Unlock" for the mutex's own read of its state.
func libraryCall(frames []trace.Frame, goroot string) string {
	for k, f := range frames {
		if trace.IsUserFrame(f, goroot) {
			if k == 0 {
				return ""
			}
			return frames[k-1].Func
		}
	}
	return ""
}

// methodName returns the method of a function symbol
// ("sync.(*Mutex).Unlock" → "Unlock"), or "" for a plain function.
func methodName(fn string) string {
	if !strings.Contains(fn, ").") {
		return ""
	}
	return fn[strings.LastIndex(fn, ".")+1:]
}

// file returns the parsed source file, or nil.
func (n *namer) file(path string) *ast.File {
	if f, ok := n.files[path]; ok {
		return f
	}
	f, err := parser.ParseFile(n.fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		f = nil
	}
	n.files[path] = f
	return f
}

// onLine calls visit for each node of file that starts on line.
func (n *namer) onLine(site trace.Frame, visit func(ast.Node) string) string {
	f := n.file(site.File)
	if f == nil {
		return ""
	}
	found := ""
	ast.Inspect(f, func(node ast.Node) bool {
		if found != "" || node == nil {
			return false
		}
		start, end := n.fset.Position(node.Pos()).Line, n.fset.Position(node.End()).Line
		if end < site.Line || start > site.Line {
			return false
		}
		if start == site.Line {
			found = visit(node)
		}
		return found == ""
	})
	return found
}

// receiverAt returns the expression that method is called on at site
// ("a.mu" for a.mu.Lock()).
func (n *namer) receiverAt(site trace.Frame, method string) string {
	return n.onLine(site, func(node ast.Node) string {
		if call, ok := node.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == method {
				return types.ExprString(sel.X)
			}
		}
		return ""
	})
}

// channelAt returns the channel expression of a channel operation at site.
func (n *namer) channelAt(site trace.Frame, op trace.Op) string {
	return n.onLine(site, func(node ast.Node) string {
		switch x := node.(type) {
		case *ast.SendStmt:
			if op == trace.OpSend {
				return types.ExprString(x.Chan)
			}
		case *ast.UnaryExpr:
			if op == trace.OpRecv && x.Op == token.ARROW {
				return types.ExprString(x.X)
			}
		case *ast.RangeStmt:
			if op == trace.OpRecv {
				return types.ExprString(x.X)
			}
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "close" && op == trace.OpClose && len(x.Args) == 1 {
				return types.ExprString(x.Args[0])
			}
		}
		return ""
	})
}

// syncOp reports whether op is synchronisation.
func syncOp(op trace.Op) bool {
	switch op {
	case trace.OpRead, trace.OpWrite, trace.OpGo, trace.OpStart, trace.OpEnd, trace.OpJoin, trace.OpTxBegin, trace.OpTxEnd:
		return false
	}
	return true
}

// stepWords says what an event does to obj, as a verb phrase: "locks
// a.mu", "writes a.note", "sends on done". within, when set, is the
// library call that a memory access is part of.
func stepWords(t *trace.Trace, i int, obj, within string) string {
	e := &t.Events[i]
	if within != "" && (e.Op == trace.OpRead || e.Op == trace.OpWrite) {
		return fmt.Sprintf("inside %s (its own %s)", within, e.Op)
	}
	value, old := t.Value(i)
	switch e.Op {
	case trace.OpRead:
		return "reads " + obj
	case trace.OpWrite:
		return "writes " + obj
	case trace.OpGo:
		return "starts " + obj
	case trace.OpStart:
		return "begins"
	case trace.OpEnd:
		return "ends"
	case trace.OpJoin:
		return "waits for " + obj + " to end"
	case trace.OpLock:
		return "locks " + obj
	case trace.OpUnlock:
		return "unlocks " + obj
	case trace.OpRLock:
		return "read-locks " + obj
	case trace.OpRUnlock:
		return "read-unlocks " + obj
	case trace.OpSend:
		return "sends on " + obj
	case trace.OpRecv:
		return "receives from " + obj
	case trace.OpClose:
		return "closes " + obj
	case trace.OpWGAdd:
		return fmt.Sprintf("adds %d to %s", int64(value), obj)
	case trace.OpWGDone:
		return "calls Done on " + obj
	case trace.OpWGWait:
		return "waits on " + obj
	case trace.OpCondWait:
		return "waits on " + obj
	case trace.OpCondSignal:
		return "signals " + obj
	case trace.OpCondBroadcast:
		return "broadcasts on " + obj
	case trace.OpOnceCheck:
		return "finds " + obj + " done"
	case trace.OpOnceDone:
		return "marks " + obj + " done"
	case trace.OpAtomicLoad:
		return fmt.Sprintf("atomically loads %d from %s", value, obj)
	case trace.OpAtomicStore:
		return fmt.Sprintf("atomically stores %d to %s", value, obj)
	case trace.OpAtomicRMW:
		return fmt.Sprintf("atomically changes %s from %d to %d", obj, old, value)
	case trace.OpTxBegin:
		return "begins a transaction"
	case trace.OpTxEnd:
		return "ends its transaction"
	}
	return e.Op.String() + " " + obj
}

// within returns the library call (as the user wrote it, "a.mu.Unlock")
// that a memory access of event i was made inside, or "": a mutex's own
// read of its state at a.mu.Unlock() is part of unlocking, not an access
// of the user's.
func (n *namer) within(i int) string {
	e := &n.t.Events[i]
	if e.Op != trace.OpRead && e.Op != trace.OpWrite {
		return ""
	}
	frames := n.t.Stack(e.Stack)
	call := libraryCall(frames, n.t.Header.GOROOT)
	if call == "" {
		return ""
	}
	if method := methodName(call); method != "" {
		if site, ok := trace.UserFrame(frames, n.t.Header.GOROOT); ok {
			if recv := n.receiverAt(site, method); recv != "" {
				return recv + "." + method + "()"
			}
		}
	}
	return call
}
