// This file implements Writer, which streams a trace into the seer trace
// file format (see format.go) as it is produced, and WriteTrace/WriteFile,
// which write a whole Trace.

package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// A Writer writes one trace file as the trace is produced, without holding
// it in memory: each goroutine and object when first needed, the events in
// order, descriptive fields learnt later through the Update methods, and
// finally the outcome and Close.
//
// Events, goroutines and objects name stacks by ids of the StackTable given
// to NewWriter, which the caller may keep extending while writing. The
// writer emits the strings, frames and stack nodes that a record needs,
// once, just before the record.
//
// Output is buffered up to a batch of events (about 64 KiB); Flush writes
// what is pending. Methods return the first error of the underlying writer
// from then on. A Writer is not safe for concurrent use.
type Writer struct {
	w      io.Writer
	stacks *StackTable // the caller's table
	err    error       // sticky write error
	closed bool

	defs     []byte // records to write before the pending batch
	batch    []byte // pending batch payload
	nbatch   int    // events in batch
	batchMax int    // payload size that ends a batch

	// File ids of what has been written; 0 means not yet written.
	strIDs   map[string]uint64
	frameIDs []uint64 // indexed by the caller's frame index
	stackIDs []uint64 // indexed by the caller's StackID
	nstrings uint64
	nframes  uint64
	nstacks  uint64

	ngoroutines int
	nobjects    int
	events      int

	pred predictor
}

// NewWriter writes the file header for h to w and returns a writer for the
// rest. h.Version is ignored: the file gets FormatVersion. stacks is the
// table that Stack ids passed to the writer refer to; nil means only the
// empty stack is used.
func NewWriter(w io.Writer, h Header, stacks *StackTable) (*Writer, error) {
	if stacks == nil {
		stacks = NewStackTable()
	}
	tw := &Writer{
		w:        w,
		stacks:   stacks,
		batchMax: batchTarget,
		strIDs:   map[string]uint64{"": 0},
		pred:     newPredictor(),
	}
	fields := []string{h.GoVersion, h.GOOS, h.GOARCH, h.Package, h.Binary, h.Args, h.Format, h.GOROOT}
	if h.Capped != 0 {
		// A ninth field, which readers of the first eight skip.
		fields = append(fields, strconv.Itoa(h.Capped))
	}
	if err := checkStringLen(fields...); err != nil {
		return nil, err
	}
	b := append([]byte(nil), fileMagic...)
	b = binary.AppendUvarint(b, FormatVersion)
	b = binary.AppendUvarint(b, uint64(len(fields)))
	for _, s := range fields {
		b = appendInline(b, s)
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	return tw, nil
}

// Len returns the number of events written so far, which is the index the
// next event will have in the trace.
func (w *Writer) Len() int { return w.events }

// Goroutine writes goroutine g. Goroutines must be written in id order
// starting at 1, and before any event or record refers to them.
func (w *Writer) Goroutine(g Goroutine) error {
	if err := w.usable(); err != nil {
		return err
	}
	if int(g.ID) != w.ngoroutines+1 {
		return fmt.Errorf("seer trace writer: goroutine %d written out of order (next is %d)", g.ID, w.ngoroutines+1)
	}
	if err := w.goroutineRecord(tagGoroutine, g); err != nil {
		return err
	}
	w.ngoroutines++
	w.pred.addGoroutine()
	return nil
}

// UpdateGoroutine replaces the fields of goroutine g.ID, already written,
// with those of g.
func (w *Writer) UpdateGoroutine(g Goroutine) error {
	if err := w.usable(); err != nil {
		return err
	}
	if g.ID <= 0 || int(g.ID) > w.ngoroutines {
		return fmt.Errorf("seer trace writer: update of unwritten goroutine %d", g.ID)
	}
	return w.goroutineRecord(tagGoroutineUpdate, g)
}

func (w *Writer) goroutineRecord(tag fileTag, g Goroutine) error {
	if err := checkStringLen(g.Test, g.Func); err != nil {
		return err
	}
	create, err := w.stack(g.Create)
	if err != nil {
		return err
	}
	test, fn := w.str(g.Test), w.str(g.Func)
	w.defs = append(w.defs, byte(tag))
	if tag == tagGoroutineUpdate {
		w.defs = binary.AppendUvarint(w.defs, uint64(g.ID))
	}
	w.defs = binary.AppendVarint(w.defs, int64(g.Parent))
	w.defs = binary.AppendUvarint(w.defs, create)
	w.defs = binary.AppendUvarint(w.defs, test)
	w.defs = binary.AppendUvarint(w.defs, fn)
	return nil
}

// Object writes object o, named name ("" for none). Objects must be
// written in id order starting at 1, and before any event refers to them.
func (w *Writer) Object(o Object, name string) error {
	if err := w.usable(); err != nil {
		return err
	}
	if int(o.ID) != w.nobjects+1 {
		return fmt.Errorf("seer trace writer: object %d written out of order (next is %d)", o.ID, w.nobjects+1)
	}
	if err := w.objectRecord(tagObject, o, name); err != nil {
		return err
	}
	w.nobjects++
	return nil
}

// UpdateObject replaces the fields and name of object o.ID, already
// written, with those of o and name.
func (w *Writer) UpdateObject(o Object, name string) error {
	if err := w.usable(); err != nil {
		return err
	}
	if o.ID == 0 || int(o.ID) > w.nobjects {
		return fmt.Errorf("seer trace writer: update of unwritten object %d", o.ID)
	}
	return w.objectRecord(tagObjectUpdate, o, name)
}

func (w *Writer) objectRecord(tag fileTag, o Object, name string) error {
	if err := checkStringLen(name); err != nil {
		return err
	}
	alloc, err := w.stack(o.Alloc)
	if err != nil {
		return err
	}
	nameID := w.str(name)
	w.defs = append(w.defs, byte(tag))
	if tag == tagObjectUpdate {
		w.defs = binary.AppendUvarint(w.defs, uint64(o.ID))
	}
	w.defs = append(w.defs, byte(o.Kind))
	w.defs = binary.AppendUvarint(w.defs, o.Addr)
	w.defs = binary.AppendUvarint(w.defs, o.Size)
	w.defs = binary.AppendUvarint(w.defs, nameID)
	w.defs = binary.AppendUvarint(w.defs, alloc)
	return nil
}

// Outcome writes how the run ended. If it is called more than once, the
// last call wins.
func (w *Writer) Outcome(o Outcome) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := checkStringLen(o.Result, o.Message); err != nil {
		return err
	}
	w.defs = append(w.defs, byte(tagOutcome))
	w.defs = appendInline(w.defs, o.Result)
	w.defs = binary.AppendVarint(w.defs, int64(o.ExitCode))
	w.defs = appendInline(w.defs, o.Message)
	return nil
}

// Event writes e, the event with index Len(). Its goroutine (and, for
// OpGo, the child goroutine in Peer) and its object must have been written.
// An invalid event is rejected with an error and nothing is written.
func (w *Writer) Event(e Event) error { return w.EventValue(e, 0, 0) }

// EventValue writes e, which carries the given values (see EventValue), as
// Event does.
func (w *Writer) EventValue(e Event, value, old uint64) error {
	if err := w.usable(); err != nil {
		return err
	}
	switch {
	case e.G <= 0 || int(e.G) > w.ngoroutines:
		return fmt.Errorf("seer trace writer: event %d: goroutine %d not written", w.events, e.G)
	case int(e.Obj) > w.nobjects:
		return fmt.Errorf("seer trace writer: event %d: object %d not written", w.events, e.Obj)
	case e.Op == OpGo && (e.Peer <= 0 || int(e.Peer) > w.ngoroutines):
		return fmt.Errorf("seer trace writer: event %d: child goroutine %d not written", w.events, e.Peer)
	case e.Op >= numOps:
		return fmt.Errorf("seer trace writer: event %d: unknown op %d", w.events, e.Op)
	case e.Sync > SyncReleaseAcquire:
		return fmt.Errorf("seer trace writer: event %d: unknown sync kind %d", w.events, e.Sync)
	}
	stack, err := w.stack(e.Stack)
	if err != nil {
		return err
	}

	guess, guessStack := w.pred.guess(e.G, e.Op)
	var mask uint64
	if e.G != guess.G {
		mask |= maskG
	}
	if e.Addr != guess.Addr {
		mask |= maskAddr
	}
	if stack != guessStack {
		mask |= maskStack
	}
	if e.Obj != guess.Obj {
		mask |= maskObj
	}
	if e.Size != guess.Size {
		mask |= maskSize
	}
	if e.Sync != guess.Sync {
		mask |= maskSync
	}
	if e.Peer != guess.Peer {
		mask |= maskPeer
	}
	peer := int64(e.Peer)
	if e.Op == OpRecv {
		peer = int64(w.events) - peer
	}
	if value != 0 {
		mask |= maskValue
	}
	if old != 0 {
		mask |= maskOld
	}

	b := w.batch
	if e.Op < opcodeEscape {
		b = binary.AppendUvarint(b, mask<<opcodeBits|uint64(e.Op))
	} else {
		b = binary.AppendUvarint(b, mask<<opcodeBits|opcodeEscape)
		b = append(b, byte(e.Op))
	}
	if mask&maskG != 0 {
		b = binary.AppendVarint(b, int64(e.G))
	}
	if mask&maskAddr != 0 {
		b = binary.AppendUvarint(b, tfZig(e.Addr-guess.Addr))
	}
	if mask&maskStack != 0 {
		b = binary.AppendUvarint(b, tfZig(stack-guessStack))
	}
	if mask&maskObj != 0 {
		b = binary.AppendUvarint(b, tfZig(uint64(e.Obj)-uint64(guess.Obj)))
	}
	if mask&maskSize != 0 {
		b = binary.AppendUvarint(b, uint64(e.Size))
	}
	if mask&maskSync != 0 {
		b = append(b, byte(e.Sync))
	}
	if mask&maskPeer != 0 {
		b = binary.AppendVarint(b, peer)
	}
	if mask&maskValue != 0 {
		b = binary.AppendUvarint(b, value)
	}
	if mask&maskOld != 0 {
		b = binary.AppendUvarint(b, old)
	}
	w.batch = b

	w.pred.observe(&e, stack)
	w.events++
	w.nbatch++
	if len(w.batch) >= w.batchMax || len(w.defs) >= w.batchMax {
		return w.Flush()
	}
	return nil
}

// Flush writes every pending record and event to the underlying writer, so
// that the file read so far holds them all.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.endBatch()
	if len(w.defs) > 0 {
		_, w.err = w.w.Write(w.defs)
		w.defs = w.defs[:0]
	}
	return w.err
}

// endBatch moves the pending events, as a BATCH record, after the pending
// definitions.
func (w *Writer) endBatch() {
	if w.nbatch == 0 {
		return
	}
	w.defs = append(w.defs, byte(tagBatch))
	w.defs = binary.AppendUvarint(w.defs, uint64(w.nbatch))
	w.defs = binary.AppendUvarint(w.defs, uint64(len(w.batch)))
	w.defs = append(w.defs, w.batch...)
	w.batch, w.nbatch = w.batch[:0], 0
}

// Close writes the END record and flushes. It does not close the
// underlying writer. A trace that is never closed reads as truncated.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	w.endBatch()
	w.defs = append(w.defs, byte(tagEnd))
	w.defs = binary.AppendUvarint(w.defs, uint64(w.events))
	return w.Flush()
}

func (w *Writer) usable() error {
	if w.closed && w.err == nil {
		return errors.New("seer trace writer: use after Close")
	}
	return w.err
}

// str returns the file id of s, emitting its STRING record if needed.
func (w *Writer) str(s string) uint64 {
	if id, ok := w.strIDs[s]; ok {
		return id
	}
	w.nstrings++
	w.strIDs[s] = w.nstrings
	w.defs = append(w.defs, byte(tagString))
	w.defs = appendInline(w.defs, s)
	return w.nstrings
}

// stack returns the file id of the caller's stack id, emitting the STACK
// records of it and its callers, and their FRAME records, if needed.
func (w *Writer) stack(id StackID) (uint64, error) {
	if id == 0 {
		return 0, nil
	}
	if int(id) >= w.stacks.Len() {
		return 0, fmt.Errorf("seer trace writer: stack %d not in the stack table", id)
	}
	if int(id) < len(w.stackIDs) && w.stackIDs[id] != 0 {
		return w.stackIDs[id], nil
	}
	if n := w.stacks.Len(); len(w.stackIDs) < n {
		w.stackIDs = append(w.stackIDs, make([]uint64, n-len(w.stackIDs))...)
	}
	// Callers first: collect the unwritten suffix of the chain.
	var chain []StackID
	for s := id; s != 0 && w.stackIDs[s] == 0; s = w.stacks.nodes[s].parent {
		chain = append(chain, s)
	}
	for _, s := range chain {
		f := w.stacks.frames[w.stacks.nodes[s].frame]
		if err := checkStringLen(f.Func, f.File); err != nil {
			return 0, err
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		n := w.stacks.nodes[chain[i]]
		frame := w.frame(n.frame)
		w.defs = append(w.defs, byte(tagStack))
		w.defs = binary.AppendUvarint(w.defs, frame)
		w.defs = binary.AppendUvarint(w.defs, w.stackIDs[n.parent])
		w.nstacks++
		w.stackIDs[chain[i]] = w.nstacks
	}
	return w.stackIDs[id], nil
}

// frame returns the file id of the caller's frame index fi, emitting its
// FRAME record if needed.
func (w *Writer) frame(fi uint32) uint64 {
	if n := len(w.stacks.frames); len(w.frameIDs) < n {
		w.frameIDs = append(w.frameIDs, make([]uint64, n-len(w.frameIDs))...)
	}
	if id := w.frameIDs[fi]; id != 0 {
		return id
	}
	f := w.stacks.frames[fi]
	fn, file := w.str(f.Func), w.str(f.File)
	w.defs = append(w.defs, byte(tagFrame))
	w.defs = binary.AppendUvarint(w.defs, fn)
	w.defs = binary.AppendUvarint(w.defs, file)
	w.defs = binary.AppendVarint(w.defs, int64(f.Line))
	w.nframes++
	w.frameIDs[fi] = w.nframes
	return w.nframes
}

// checkStringLen reports a string too long for the format (see maxStringLen).
func checkStringLen(ss ...string) error {
	for _, s := range ss {
		if len(s) > maxStringLen {
			return fmt.Errorf("seer trace writer: string of %d bytes (%.30q...) is longer than the format allows", len(s), s)
		}
	}
	return nil
}

func appendInline(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// WriteTrace writes t to w in the seer trace file format. Goroutines and
// objects are written just before the first event that needs them. A
// Truncated trace is written without its END record, so that it reads back
// as truncated.
func WriteTrace(w io.Writer, t *Trace) error {
	return writeTrace(w, t, batchTarget)
}

func writeTrace(w io.Writer, t *Trace, batchMax int) error {
	tw, err := NewWriter(w, t.Header, t.Stacks)
	if err != nil {
		return err
	}
	tw.batchMax = batchMax
	// Tables are indexed by id, so the entry's position is its id.
	goroutinesTo := func(g GoID) error {
		for tw.ngoroutines < int(g) && tw.ngoroutines+1 < len(t.Goroutines) {
			gr := t.Goroutines[tw.ngoroutines+1]
			gr.ID = GoID(tw.ngoroutines + 1)
			if err := tw.Goroutine(gr); err != nil {
				return err
			}
		}
		return nil
	}
	objectsTo := func(o ObjID) error {
		for tw.nobjects < int(o) && tw.nobjects+1 < len(t.Objects) {
			ob := t.Objects[tw.nobjects+1]
			ob.ID = ObjID(tw.nobjects + 1)
			if err := tw.Object(ob, t.Names[ob.ID]); err != nil {
				return err
			}
		}
		return nil
	}
	values := t.Values
	for i, e := range t.Events {
		var value, old uint64
		if len(values) > 0 && values[0].Event == i {
			value, old = values[0].Value, values[0].Old
			values = values[1:]
		}
		peer := GoID(0)
		if e.Op == OpGo || e.Op == OpStart || e.Op == OpJoin {
			peer = GoID(e.Peer)
		}
		if err := goroutinesTo(max(e.G, peer)); err != nil {
			return err
		}
		if err := objectsTo(e.Obj); err != nil {
			return err
		}
		if err := tw.EventValue(e, value, old); err != nil {
			return err
		}
	}
	if err := goroutinesTo(GoID(len(t.Goroutines))); err != nil {
		return err
	}
	if err := objectsTo(ObjID(len(t.Objects))); err != nil {
		return err
	}
	if t.Outcome != (Outcome{}) {
		if err := tw.Outcome(t.Outcome); err != nil {
			return err
		}
	}
	if t.Truncated {
		return tw.Flush()
	}
	return tw.Close()
}

// WriteFile writes t to the named file in the seer trace file format. If
// writing fails, the file is removed rather than left to read as a
// truncated trace.
func WriteFile(path string, t *Trace) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = WriteTrace(f, t)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
