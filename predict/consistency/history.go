// This file implements the history itself (Zennou et al., "Gradual
// Consistency Checking", §2, Definition 1): the operations of each
// process in program order, recorded through Write and Read, checked to
// be differentiated, and written in the text format that Parse reads.

package consistency

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Kind says whether an operation writes or reads.
type Kind uint8

const (
	Write Kind = iota // w(key,value)
	Read              // r(key,value)
)

func (k Kind) String() string {
	if k == Write {
		return "w"
	}
	return "r"
}

// Op is one operation of a process.
type Op struct {
	Kind  Kind
	Key   string
	Value int64
	// Call and Return are the operation's invocation and response times
	// when HasTime is set. None of the models here is real-time (they
	// are not linearizability), so the checks ignore them; they are kept
	// so that a history written by a test round-trips and can be handed
	// to a linearizability checker.
	Call, Return int64
	HasTime      bool

	line int // source line when parsed, else 0
}

func (o Op) String() string {
	s := fmt.Sprintf("%s(%s,%d)", o.Kind, o.Key, o.Value)
	if o.HasTime {
		s += fmt.Sprintf("@%d-%d", o.Call, o.Return)
	}
	return s
}

// Process is one process's operations in program order.
type Process struct {
	Name string
	Ops  []Op

	line int
}

// A History is a set of processes, each a sequence of reads and writes of
// integer values to named keys. Every key holds 0 before any operation;
// a history is differentiated when no key is written the same value
// twice and no write stores 0, so that each read names the one write it
// read from (the paper's write-read relation). The zero History is empty
// and ready to use.
type History struct {
	procs  []*Process
	byName map[string]int
}

// New returns an empty history.
func New() *History { return &History{} }

// Processes returns the processes in the order they first appeared.
func (h *History) Processes() []*Process { return h.procs }

// Len returns the number of operations.
func (h *History) Len() int {
	n := 0
	for _, p := range h.procs {
		n += len(p.Ops)
	}
	return n
}

func (h *History) process(name string) *Process {
	if h.byName == nil {
		h.byName = map[string]int{}
	}
	if i, ok := h.byName[name]; ok {
		return h.procs[i]
	}
	p := &Process{Name: name}
	h.byName[name] = len(h.procs)
	h.procs = append(h.procs, p)
	return p
}

// AddProcess adds a process with no operations (a process that only
// exists is harmless, but a test may want its name kept).
func (h *History) AddProcess(name string) { h.process(name) }

// Write records that proc wrote value to key, after its earlier operations.
func (h *History) Write(proc, key string, value int64) {
	h.add(proc, Op{Kind: Write, Key: key, Value: value})
}

// Read records that proc read value from key, after its earlier operations.
func (h *History) Read(proc, key string, value int64) {
	h.add(proc, Op{Kind: Read, Key: key, Value: value})
}

// WriteAt is Write with the operation's call and return times.
func (h *History) WriteAt(proc, key string, value, call, ret int64) {
	h.add(proc, Op{Kind: Write, Key: key, Value: value, Call: call, Return: ret, HasTime: true})
}

// ReadAt is Read with the operation's call and return times.
func (h *History) ReadAt(proc, key string, value, call, ret int64) {
	h.add(proc, Op{Kind: Read, Key: key, Value: value, Call: call, Return: ret, HasTime: true})
}

func (h *History) add(proc string, o Op) {
	p := h.process(proc)
	p.Ops = append(p.Ops, o)
}

// Validate reports the first way in which h is not a differentiated
// history: a write of 0 (the initial value of every key) or a value
// written twice to one key. Check validates before it checks.
func (h *History) Validate() error {
	type kv struct {
		key string
		v   int64
	}
	first := map[kv]OpRef{}
	for _, p := range h.procs {
		for i, o := range p.Ops {
			if o.Kind != Write {
				continue
			}
			ref := OpRef{Proc: p.Name, Index: i, Op: o}
			if o.Value == 0 {
				return &InputError{Line: o.line, Msg: fmt.Sprintf("%s writes 0, the initial value of every key: writes must store other values", ref)}
			}
			if prev, ok := first[kv{o.Key, o.Value}]; ok {
				where := prev.String()
				if prev.Op.line > 0 {
					where += fmt.Sprintf(" (line %d)", prev.Op.line)
				}
				return &InputError{Line: o.line, Msg: fmt.Sprintf("%s writes %s=%d, which %s already wrote: each value may be written to a key at most once", ref, o.Key, o.Value, where)}
			}
			first[kv{o.Key, o.Value}] = ref
		}
	}
	return nil
}

// Format writes h in the text format Parse reads: one line per process.
func (h *History) Format(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, p := range h.procs {
		bw.WriteString(p.Name)
		bw.WriteString(":")
		for _, o := range p.Ops {
			bw.WriteString(" ")
			bw.WriteString(o.String())
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

func (h *History) String() string {
	var b strings.Builder
	h.Format(&b)
	return b.String()
}

// OpRef names an operation in the user's terms: its process, its index in
// the process (from 0) and the operation. The initial write of a key has
// Index -1 and an empty Proc.
type OpRef struct {
	Proc  string
	Index int
	Op    Op
}

// Initial reports whether r is a key's initial write of 0.
func (r OpRef) Initial() bool { return r.Index < 0 }

func (r OpRef) String() string {
	if r.Initial() {
		return fmt.Sprintf("init %s=0", r.Op.Key)
	}
	o := r.Op
	o.HasTime = false
	return fmt.Sprintf("%s[%d] %s", r.Proc, r.Index, o)
}

// InputError is a malformed or non-differentiated history: Line is the
// source line when the history was parsed (0 otherwise).
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return e.Msg
}
