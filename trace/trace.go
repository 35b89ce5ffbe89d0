// This file defines Trace, the in-memory form of one recorded run, and its
// tables of event values, goroutines, objects, frames and stacks.

package trace

import (
	"fmt"
	"slices"
	"sort"
)

// A Trace is one recorded run of a test, read back and classified.
type Trace struct {
	Header Header
	Events []Event

	// Values holds the values of the events that carry any (see
	// EventValue), sorted by event index, one entry per event whose Value
	// or Old is not zero. Use Value to look one up.
	Values []EventValue

	Goroutines []Goroutine // indexed by GoID; entry 0 is unused
	Objects    []Object    // indexed by ObjID; entry 0 is unused
	// Names holds the names of the objects that have one: "V5", "L2" in
	// STD traces, a global's symbol name. Most objects (heap lives,
	// channels, locks) have none, and a name in Object would make the
	// table of millions of objects one the collector scans (see Object).
	Names   map[ObjID]string
	Stacks  *StackTable
	Outcome Outcome

	// Truncated is set when the file ended before its final record (the
	// recorded process was killed, or the file was cut): Events holds every
	// complete event before that point.
	Truncated bool

	// Local counts, by goroutine id, the plain accesses to memory no
	// other goroutine touched that conversion left out of Events (see
	// record.RecordOptions.KeepLocal); nil if none were. Trace files do not
	// keep it.
	Local []int

	replayPos []uint32 // see ReplayPos (replay.go); nil unless recorded to replay
	// valuesParked is set while ParkValues holds the values (park.go):
	// Value panics then rather than answer zero.
	valuesParked bool
}

// Prefix returns the trace of t's first n events: the run as it was up
// to event n, which is itself a run of the program (every goroutine did a
// prefix of what it did, every read saw what it saw). It shares t's
// tables and storage; Values and replay positions are cut to the events
// it keeps. Goroutines and objects first seen after event n stay in the
// tables, unused, as in a trace whose recording was cut there.
func (t *Trace) Prefix(n int) *Trace {
	if n >= len(t.Events) {
		return t
	}
	n = max(n, 0)
	p := *t
	p.Events = t.Events[:n:n]
	k, _ := slices.BinarySearchFunc(t.Values, n, func(v EventValue, n int) int { return v.Event - n })
	p.Values = t.Values[:k:k]
	if len(t.replayPos) > n {
		p.replayPos = t.replayPos[:n:n]
	}
	return &p
}

// KeepPrefix cuts t in place to its first n events, the trace Prefix
// returns, for a caller that keeps no other view of t: Prefix would keep
// the whole arrays of the events, values and replay positions, where
// KeepPrefix gives the kernel back the whole pages of those it drops
// (giveBack, counted by seer's memory limit until the arrays are freed:
// memlimit.go), or, where pages cannot be given back, copies the kept
// part to arrays of its length. seer check cuts a run it converted in
// memory so (predict.EventsWithin), where seer predict reads the
// trace's file again up to the cut.
func (t *Trace) KeepPrefix(n int) {
	p := t.Prefix(n)
	if p == t {
		return
	}
	t.Events = keepHead(t.Events, len(p.Events))
	t.Values = keepHead(t.Values, len(p.Values))
	t.replayPos = keepHead(t.replayPos, len(p.replayPos))
}

// keepHead returns s's first n elements (of at most len(s)), the
// elements past them given back (giveBack) or, where they cannot be,
// the n copied to an array of their own. E must hold no pointers.
func keepHead[E any](s []E, n int) []E {
	if n >= len(s) {
		return s
	}
	if giveBack(s[n:]) {
		return s[:n:n]
	}
	return slices.Clone(s[:n])
}

// LocalAccesses returns how many local accesses conversion left out (the
// sum of Local).
func (t *Trace) LocalAccesses() int {
	n := 0
	for _, k := range t.Local {
		n += k
	}
	return n
}

// Header describes where a trace came from.
type Header struct {
	Version   int    // file format version
	GoVersion string // toolchain that built the test binary ("go1.26.8")
	GOOS      string
	GOARCH    string
	Package   string // import path of the package under test
	Binary    string // identity of the test binary (hex SHA-256 prefix)
	Args      string // the -test.* arguments it ran with
	Format    string // "seer" or "std"
	GOROOT    string // the real GOROOT of the toolchain (to tell user code from the standard library)
	// Capped is set when the recording stopped at seer's event cap (or
	// its spool filled) while the run went on unrecorded: the file is
	// complete, and holds the run's first Capped events, not all of
	// them. 0 for the whole run.
	Capped int
}

// Outcome is how the recorded test process ended.
type Outcome struct {
	Result   string // "pass", "fail", "panic", "timeout", "killed", "unknown"
	ExitCode int
	Message  string // first line of a panic or timeout message, if any
}

// A Goroutine is one goroutine of the run.
type Goroutine struct {
	ID     GoID
	Parent GoID    // 0 for the first goroutine
	Create StackID // stack of the go statement that created it
	Test   string  // top-level test it belongs to ("TestFoo"), "" for harness goroutines
	Func   string  // the function the goroutine started in, if known
}

// ObjKind says what an object is.
type ObjKind uint8

const (
	ObjUnknown ObjKind = iota
	ObjVar             // a memory location not known to belong to an allocation
	ObjHeap            // a heap allocation (Addr, Size from the allocator)
	ObjMutex
	ObjRWMutex
	ObjChan
	ObjWaitGroup
	ObjCond
	ObjOnce
	ObjAtomic
	ObjSync // other synchronisation address
	ObjLock // a lock of an STD trace
)

var objKindNames = [...]string{"unknown", "var", "heap", "mutex", "rwmutex", "chan", "waitgroup", "cond", "once", "atomic", "sync", "lock"}

func (k ObjKind) String() string {
	if int(k) < len(objKindNames) {
		return objKindNames[k]
	}
	return fmt.Sprintf("objkind(%d)", uint8(k))
}

// An Object is a variable, allocation or synchronisation object. Its name,
// if it has one, is in Trace.Names: an Object holds no pointer, so a table
// of them is memory the garbage collector never scans. A channel stress
// test names over a million objects; with a string in each, the collector
// marked that table at every cycle (without it, an experiment, the
// collector's CPU time there fell: bench/RESULTS.md).
type Object struct {
	ID    ObjID
	Kind  ObjKind
	Addr  uint64
	Size  uint64
	Alloc StackID // where a heap object was allocated, if known
}

// ObjectName returns object o's name: "V5", "L2" in STD traces, a symbol
// name for a global; "" if it has none.
func (t *Trace) ObjectName(o ObjID) string { return t.Names[o] }

// label is object o's short printed form: its name or "#id".
func (t *Trace) label(o ObjID) string {
	if name := t.Names[o]; name != "" {
		return name
	}
	return fmt.Sprintf("#%d", o)
}

// A Frame is one (possibly inlined) call frame.
type Frame struct {
	Func string // package-qualified function name, as in runtime.Frame
	File string // absolute file name; "" in STD traces
	Line int    // line number; the location number in STD traces
}

func (f Frame) String() string {
	if f.File == "" {
		return fmt.Sprintf("%s:%d", f.Func, f.Line)
	}
	return fmt.Sprintf("%s %s:%d", f.Func, f.File, f.Line)
}

// Value returns the values carried by event i (see EventValue): zero for
// events without any.
func (t *Trace) Value(i int) (value, old uint64) {
	if t.valuesParked {
		panic("trace: Value read while the trace's values are parked (Trace.ParkValues)")
	}
	k := sort.Search(len(t.Values), func(k int) bool { return t.Values[k].Event >= i })
	if k < len(t.Values) && t.Values[k].Event == i {
		return t.Values[k].Value, t.Values[k].Old
	}
	return 0, 0
}

// Goroutine returns the goroutine with id g.
func (t *Trace) Goroutine(g GoID) *Goroutine {
	if int(g) <= 0 || int(g) >= len(t.Goroutines) {
		return nil
	}
	return &t.Goroutines[g]
}

// Object returns the object with id o.
func (t *Trace) Object(o ObjID) *Object {
	if o == 0 || int(o) >= len(t.Objects) {
		return nil
	}
	return &t.Objects[o]
}

// Stack returns the frames of stack id, innermost first.
func (t *Trace) Stack(id StackID) []Frame { return t.Stacks.Frames(id) }

// Site returns the frame nearest the event that is in user code (see
// UserFrame), or its innermost frame if there is none.
func (t *Trace) Site(e *Event) Frame {
	if f, ok := t.Stacks.UserFrameOf(e.Stack, t.Header.GOROOT); ok {
		return f
	}
	f, _ := t.Stacks.Top(e.Stack) // Frame{} for the empty stack
	return f
}

// NumGoroutines returns the number of goroutines (the largest GoID).
func (t *Trace) NumGoroutines() int { return len(t.Goroutines) - 1 }
