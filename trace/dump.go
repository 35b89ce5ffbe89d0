// This file implements Dump, the one-line-per-event text form of a trace
// that `seer trace dump` prints.

package trace

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
)

// DumpOptions control Dump.
type DumpOptions struct {
	FullPaths bool // print absolute file names instead of base names
	All       bool // include events whose stack has no user-code frame
}

// Dump writes one line per event: sequence number, goroutine, operation in
// Go words, the object, and file:line of the user-code frame nearest the
// event. Without opts.All, events made entirely outside user code (the
// testing harness, the runtime, the standard library) are left out.
func Dump(w io.Writer, t *Trace, opts DumpOptions) error {
	bw := bufio.NewWriter(w)
	for i := range t.Events {
		e := &t.Events[i]
		frames := t.Stack(e.Stack)
		f, user := UserFrame(frames, t.Header.GOROOT)
		if !user && !opts.All && !lifecycle(e.Op) {
			continue
		}
		if !user && len(frames) > 0 {
			f = frames[0]
		}
		pos := "-"
		if f.Line > 0 {
			file := f.File
			if !opts.FullPaths {
				file = filepath.Base(file)
			}
			if file == "" || file == "." {
				pos = fmt.Sprintf("%d", f.Line)
			} else {
				pos = fmt.Sprintf("%s:%d", file, f.Line)
			}
		}
		fmt.Fprintf(bw, "%d\tg%d\t%s\t%s\t%s\n", i, e.G, e.Op, t.ObjectLabel(i), pos)
	}
	return bw.Flush()
}

func lifecycle(op Op) bool { return op == OpGo || op == OpStart || op == OpEnd || op == OpJoin }

// ObjectLabel describes what event i acts on: "#3+8" (object 3, offset 8),
// a global's name, "mutex#4", "g5" for goroutine operations, and atomic
// values ("atomic-rmw #2 1->2").
func (t *Trace) ObjectLabel(i int) string {
	e := &t.Events[i]
	switch e.Op {
	case OpGo, OpStart, OpJoin:
		return fmt.Sprintf("g%d", e.Peer)
	case OpEnd, OpTxBegin, OpTxEnd:
		return "-"
	}
	o := t.Object(e.Obj)
	if o == nil {
		return fmt.Sprintf("0x%x", e.Addr)
	}
	label := t.label(e.Obj)
	switch o.Kind {
	case ObjMutex, ObjRWMutex, ObjChan, ObjWaitGroup, ObjCond, ObjOnce, ObjSync:
		label = o.Kind.String() + label
	case ObjHeap:
		if off := heapOffset(e.Addr); off != 0 {
			label = fmt.Sprintf("%s+%d", label, off)
		}
	case ObjVar:
		if e.Addr > o.Addr && e.Addr-o.Addr < o.Size {
			label = fmt.Sprintf("%s+%d", label, e.Addr-o.Addr)
		}
	}
	switch {
	case e.Op == OpAtomicRMW:
		value, old := t.Value(i)
		label += fmt.Sprintf(" %d->%d", old, value)
	case e.Op.IsAtomic() || e.Op == OpWGAdd:
		value, _ := t.Value(i)
		label += fmt.Sprintf(" =%d", value)
	case e.Op == OpRecv && e.Peer >= 0 && e.Sync.Acquires():
		label += fmt.Sprintf(" from %d", e.Peer)
	}
	return label
}

// heapOffset returns the offset of a trace address within its heap life.
func heapOffset(addr uint64) uint64 {
	if addr < lifeBase {
		return 0
	}
	return addr & (1<<lifeShift - 1)
}
