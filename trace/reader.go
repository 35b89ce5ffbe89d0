// This file implements Reader, which reads a seer trace file (see format.go)
// in one streaming pass, and Read/ReadFile, which build a whole Trace.

package trace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// A Reader reads the events of a trace file one by one, keeping only the
// tables (strings, frames, stacks, goroutines, objects) and the current
// batch of events in memory.
//
// Next returns the events in order. Its errors are final (every later call
// returns the same one):
//
//   - io.EOF after the last event of a complete file (Next reads on to
//     check that nothing follows the END record);
//   - *TruncatedError when the input ends before the file's END record:
//     every event returned before is complete and correct, and the tables
//     hold every record read, so a caller may use the prefix;
//   - *CorruptError for data no writer produces, and errors of the
//     underlying reader as they are.
//
// Stack ids in returned events refer to Stacks(), the reader's own table;
// goroutine and object ids are those of the file.
type Reader struct {
	br     *bufio.Reader
	off    int64 // bytes consumed from br
	recOff int64 // offset of the current record, for errors
	header Header
	err    error // sticky: what Next returns once the events are over
	inHead bool  // reading the header, for TruncatedError

	strings    []string  // [0] = ""
	frames     []Frame   // [0] unused
	stackIDs   []StackID // file stack id -> id in stacks; [0] = 0
	stacks     *StackTable
	goroutines []Goroutine // [0] unused
	objects    []Object    // [0] unused
	names      map[ObjID]string
	outcome    Outcome

	// The current batch.
	payload []byte
	pos     int   // next event in payload
	left    int   // events not yet decoded
	short   bool  // the input ended inside the payload
	payOff  int64 // offset of payload[0]

	events     int       // events decoded
	countOnly  bool      // batches are skipped, their events counted (countEvents)
	value, old uint64    // the values of the event Next returned last
	pred       predictor // (see format.go)
}

// errShort is the internal signal for input that ends inside the file.
var errShort = errors.New("short trace")

// NewReader reads and checks the file header. It returns ErrEmpty if r
// holds no bytes at all, ErrNotTrace if it does not hold a seer trace, a
// *VersionError if it has another format version, and a *TruncatedError
// (with no events, Header set) if it ends inside the header.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{
		br:         bufio.NewReaderSize(r, 64<<10),
		strings:    []string{""},
		frames:     []Frame{{}},
		stackIDs:   []StackID{0},
		stacks:     NewStackTable(),
		goroutines: []Goroutine{{}},
		objects:    []Object{{}},
		pred:       newPredictor(),
	}
	rd.inHead = true
	if err := rd.readHeader(); err != nil {
		return nil, rd.final(err)
	}
	rd.inHead = false
	return rd, nil
}

func (r *Reader) readHeader() error {
	var magic [len(fileMagic)]byte
	n, err := io.ReadFull(r.br, magic[:])
	r.off += int64(n)
	if n == 0 && err == io.EOF {
		return ErrEmpty
	}
	if string(magic[:n]) != fileMagic[:n] {
		return ErrNotTrace
	}
	if err != nil {
		return r.eof(err)
	}
	v, err := r.uvarint()
	if err != nil {
		return err
	}
	if v != FormatVersion {
		return &VersionError{Version: int(min(v, math.MaxInt32))}
	}
	count, err := r.uvarint()
	if err != nil {
		return err
	}
	if count < headerFields || count > maxHeaderFields {
		return r.corrupt("header has %d fields", count)
	}
	h := &r.header
	h.Version = FormatVersion
	fields := []*string{&h.GoVersion, &h.GOOS, &h.GOARCH, &h.Package, &h.Binary, &h.Args, &h.Format, &h.GOROOT}
	for i := range int(count) {
		s, err := r.inline()
		if err != nil {
			return err
		}
		if i < len(fields) {
			*fields[i] = s
		} else if i == len(fields) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return r.corrupt("header's capped field %q is not a count of events", s)
			}
			h.Capped = n
		}
	}
	return nil
}

// Header returns the file's header.
func (r *Reader) Header() Header { return r.header }

// Stacks returns the table of the stacks read so far.
func (r *Reader) Stacks() *StackTable { return r.stacks }

// Goroutine returns goroutine id as read so far (updates included).
func (r *Reader) Goroutine(id GoID) (Goroutine, bool) {
	if id <= 0 || int(id) >= len(r.goroutines) {
		return Goroutine{}, false
	}
	return r.goroutines[id], true
}

// Object returns object id as read so far (updates included).
func (r *Reader) Object(id ObjID) (Object, bool) {
	if id == 0 || int(id) >= len(r.objects) {
		return Object{}, false
	}
	return r.objects[id], true
}

// ObjectName returns object id's name as read so far; "" if it has none.
func (r *Reader) ObjectName(id ObjID) string { return r.names[id] }

// NumGoroutines and NumObjects return the number of goroutines and objects
// defined so far (the largest ids).
func (r *Reader) NumGoroutines() int { return len(r.goroutines) - 1 }
func (r *Reader) NumObjects() int    { return len(r.objects) - 1 }

// Outcome returns the outcome record read last, or the zero Outcome.
func (r *Reader) Outcome() Outcome { return r.outcome }

// Next returns the next event (see Reader for its errors), and Value then
// returns the values it carries.
func (r *Reader) Next() (Event, error) {
	r.value, r.old = 0, 0
	for r.err == nil {
		if r.left > 0 {
			e, err := r.decodeEvent()
			if err == nil {
				return e, nil
			}
			r.err = r.final(err)
			break
		}
		if err := r.readRecord(); err != nil {
			r.err = r.final(err)
		}
	}
	return Event{}, r.err
}

// Value returns the values carried by the event Next returned last (see
// EventValue): zero if it carries none, or if Next returned an error.
func (r *Reader) Value() (value, old uint64) { return r.value, r.old }

// final turns the internal end-of-input signal into a *TruncatedError.
func (r *Reader) final(err error) error {
	if err == errShort {
		return &TruncatedError{Events: r.events, Offset: r.off, Header: r.inHead}
	}
	return err
}

// readRecord reads one record outside a batch.
func (r *Reader) readRecord() error {
	r.recOff = r.off
	tag, err := r.byte()
	if err != nil {
		return err
	}
	switch fileTag(tag) {
	case tagString:
		s, err := r.inline()
		if err != nil {
			return err
		}
		r.strings = append(r.strings, s)
	case tagFrame:
		fn, err := r.str()
		if err != nil {
			return err
		}
		file, err := r.str()
		if err != nil {
			return err
		}
		line, err := r.varint()
		if err != nil {
			return err
		}
		r.frames = append(r.frames, Frame{Func: fn, File: file, Line: int(line)})
	case tagStack:
		f, err := r.uvarint()
		if err != nil {
			return err
		}
		parent, err := r.stack()
		if err != nil {
			return err
		}
		if f == 0 || f >= uint64(len(r.frames)) {
			return r.corrupt("stack of undefined frame %d", f)
		}
		r.stackIDs = append(r.stackIDs, r.stacks.Push(parent, r.frames[f]))
	case tagGoroutine, tagGoroutineUpdate:
		id := GoID(len(r.goroutines))
		if fileTag(tag) == tagGoroutineUpdate {
			v, err := r.uvarint()
			if err != nil {
				return err
			}
			if v == 0 || v >= uint64(len(r.goroutines)) {
				return r.corrupt("update of undefined goroutine %d", v)
			}
			id = GoID(v)
		} else if id == math.MaxInt32 {
			return r.corrupt("too many goroutines")
		}
		g := Goroutine{ID: id}
		parent, err := r.varint()
		if err != nil {
			return err
		}
		if parent != int64(int32(parent)) {
			return r.corrupt("goroutine parent %d", parent)
		}
		g.Parent = GoID(parent)
		if g.Create, err = r.stack(); err != nil {
			return err
		}
		if g.Test, err = r.str(); err != nil {
			return err
		}
		if g.Func, err = r.str(); err != nil {
			return err
		}
		if int(id) == len(r.goroutines) {
			r.goroutines = append(r.goroutines, g)
			r.pred.addGoroutine()
		} else {
			r.goroutines[id] = g
		}
	case tagObject, tagObjectUpdate:
		id := ObjID(len(r.objects))
		if fileTag(tag) == tagObjectUpdate {
			v, err := r.uvarint()
			if err != nil {
				return err
			}
			if v == 0 || v >= uint64(len(r.objects)) {
				return r.corrupt("update of undefined object %d", v)
			}
			id = ObjID(v)
		} else if id == math.MaxUint32 {
			return r.corrupt("too many objects")
		}
		o := Object{ID: id}
		kind, err := r.byte()
		if err != nil {
			return err
		}
		o.Kind = ObjKind(kind)
		if o.Addr, err = r.uvarint(); err != nil {
			return err
		}
		if o.Size, err = r.uvarint(); err != nil {
			return err
		}
		name, err := r.str()
		if err != nil {
			return err
		}
		if name != "" {
			if r.names == nil {
				r.names = make(map[ObjID]string)
			}
			r.names[id] = name
		} else {
			delete(r.names, id) // an update may take the name away
		}
		if o.Alloc, err = r.stack(); err != nil {
			return err
		}
		if int(id) == len(r.objects) {
			r.objects = append(r.objects, o)
		} else {
			r.objects[id] = o
		}
	case tagBatch:
		return r.readBatch()
	case tagOutcome:
		var o Outcome
		if o.Result, err = r.inline(); err != nil {
			return err
		}
		code, err := r.varint()
		if err != nil {
			return err
		}
		o.ExitCode = int(code)
		if o.Message, err = r.inline(); err != nil {
			return err
		}
		r.outcome = o
	case tagEnd:
		n, err := r.uvarint()
		if err != nil {
			return err
		}
		if n != uint64(r.events) {
			return r.corrupt("end record counts %d events, the file has %d", n, r.events)
		}
		if _, err := r.br.ReadByte(); err != io.EOF {
			if err != nil {
				return err
			}
			return &CorruptError{Offset: r.off, Msg: "data after the end record"}
		}
		return io.EOF
	default:
		return r.corrupt("unknown record tag %d", tag)
	}
	return nil
}

// skipRest reads the records after the event Next returned last without
// decoding the batches' events, for the tables and the outcome the end of
// the file holds (a capped read's prefix keeps them, as Trace.Prefix
// does). An error in that rest is not the prefix's: the outcome is kept
// only if the file reads to its end record.
func (r *Reader) skipRest() {
	r.events += r.left
	r.left = 0
	r.countOnly = true
	outcome := r.outcome
	var err error
	for err == nil {
		err = r.readRecord()
	}
	if err != io.EOF {
		r.outcome = outcome
	}
}

// readBatch reads a batch's payload, or the part of it the input holds.
func (r *Reader) readBatch() error {
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	size, err := r.uvarint()
	if err != nil {
		return err
	}
	if size > maxBatchLen || n > size || (n == 0) != (size == 0) {
		return r.corrupt("batch of %d events in %d bytes", n, size)
	}
	if r.countOnly {
		k, err := r.br.Discard(int(size))
		r.off += int64(k)
		r.events += int(n)
		return r.eof(err)
	}
	r.payOff = r.off
	r.payload, err = r.bytes(r.payload[:0], int(size))
	if err != nil && err != errShort {
		return err
	}
	r.short = err == errShort
	r.pos, r.left = 0, int(n)
	return nil
}

// decodeEvent decodes the next event of the current batch.
func (r *Reader) decodeEvent() (Event, error) {
	d := batchDecoder{b: r.payload, pos: r.pos}
	start := d.pos
	head := d.uvarint()
	op := Op(head & opcodeEscape)
	if op == opcodeEscape {
		op = Op(d.byte())
	}
	mask := head >> opcodeBits
	g := r.pred.prevG
	if mask&maskG != 0 {
		v := d.varint()
		if v <= 0 || v >= int64(len(r.goroutines)) {
			d.fail("event of undefined goroutine %d", v)
		}
		g = GoID(v)
	}
	if d.err == nil && g == 0 {
		d.fail("event without a goroutine")
	}
	if d.err != nil {
		return Event{}, r.batchErr(&d, start)
	}
	e, stack := r.pred.guess(g, op)
	e.G = g
	obj := uint64(e.Obj)
	if mask&maskAddr != 0 {
		e.Addr += tfUnzig(d.uvarint())
	}
	if mask&maskStack != 0 {
		stack += tfUnzig(d.uvarint())
	}
	if mask&maskObj != 0 {
		obj += tfUnzig(d.uvarint())
	}
	if mask&maskSize != 0 {
		v := d.uvarint()
		if v > math.MaxUint32 {
			d.fail("access size %d", v)
		}
		e.Size = uint32(v)
	}
	if mask&maskSync != 0 {
		e.Sync = SyncKind(d.byte())
	}
	peer := int64(e.Peer)
	if mask&maskPeer != 0 {
		peer = d.varint()
		if op == OpRecv {
			peer = int64(r.events) - peer
		}
	}
	var value, old uint64
	if mask&maskValue != 0 {
		value = d.uvarint()
	}
	if mask&maskOld != 0 {
		old = d.uvarint()
	}
	switch {
	case d.err != nil:
	case mask >= 1<<numMaskBits:
		d.fail("event field mask %#x", mask)
	case op >= numOps:
		d.fail("unknown op %d", op)
	case stack >= uint64(len(r.stackIDs)):
		d.fail("event of undefined stack %d", stack)
	case obj >= uint64(len(r.objects)):
		d.fail("event of undefined object %d", obj)
	case e.Sync > SyncReleaseAcquire:
		d.fail("unknown sync kind %d", e.Sync)
	case peer != int64(int32(peer)):
		d.fail("event peer %d", peer)
	}
	if d.err != nil {
		return Event{}, r.batchErr(&d, start)
	}
	e.Obj, e.Peer = ObjID(obj), int32(peer)
	r.pos = d.pos
	r.left--
	if r.left == 0 && (r.pos != len(r.payload) || r.short) {
		return Event{}, &CorruptError{Offset: r.payOff, Msg: "batch length does not match its events"}
	}

	r.pred.observe(&e, stack)
	r.events++
	r.value, r.old = value, old
	e.Stack = r.stackIDs[stack]
	return e, nil
}

// batchErr turns a decoding failure of the event at start into the error
// Next returns: running out of a batch cut by the end of input is
// truncation, anything else corruption.
func (r *Reader) batchErr(d *batchDecoder, start int) error {
	if d.err == errShort && r.short {
		return errShort
	}
	if d.err == errShort {
		return &CorruptError{Offset: r.payOff + int64(start), Msg: "event runs past the end of its batch"}
	}
	return &CorruptError{Offset: r.payOff + int64(start), Msg: d.err.Error()}
}

// A batchDecoder reads varints from a batch payload. The first failure
// sticks in err (errShort when the payload ends) and later reads return 0.
type batchDecoder struct {
	b   []byte
	pos int
	err error
}

func (d *batchDecoder) uvarint() uint64 {
	if d.pos < len(d.b) && d.b[d.pos] < 0x80 {
		d.pos++
		return uint64(d.b[d.pos-1])
	}
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.pos:])
	switch {
	case n == 0:
		d.err = errShort
		return 0
	case n < 0:
		d.fail("varint overflows 64 bits")
		return 0
	}
	d.pos += n
	return v
}

func (d *batchDecoder) varint() int64 { return int64(tfUnzig(d.uvarint())) }

func (d *batchDecoder) byte() byte {
	if d.pos >= len(d.b) {
		if d.err == nil {
			d.err = errShort
		}
		return 0
	}
	d.pos++
	return d.b[d.pos-1]
}

func (d *batchDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

// Reading records outside batches.

func (r *Reader) corrupt(format string, args ...any) error {
	return &CorruptError{Offset: r.recOff, Msg: fmt.Sprintf(format, args...)}
}

// eof maps the end of input to errShort.
func (r *Reader) eof(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errShort
	}
	return err
}

func (r *Reader) byte() (byte, error) {
	b, err := r.br.ReadByte()
	if err != nil {
		return 0, r.eof(err)
	}
	r.off++
	return b, nil
}

func (r *Reader) uvarint() (uint64, error) {
	var x uint64
	for i := uint(0); ; i++ {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		if i == binary.MaxVarintLen64-1 && b > 1 {
			return 0, r.corrupt("varint overflows 64 bits")
		}
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return x, nil
		}
	}
}

func (r *Reader) varint() (int64, error) {
	u, err := r.uvarint()
	return int64(tfUnzig(u)), err
}

// bytes appends n bytes of input to dst, growing dst only as data arrives
// so that a corrupt length costs no more than the input holds.
func (r *Reader) bytes(dst []byte, n int) ([]byte, error) {
	for n > 0 {
		c := min(n, 64<<10)
		if cap(dst)-len(dst) < c {
			dst = append(dst[:cap(dst)], make([]byte, c)...)[:len(dst)]
		}
		k, err := io.ReadFull(r.br, dst[len(dst):len(dst)+c])
		r.off += int64(k)
		dst = dst[:len(dst)+k]
		if err != nil {
			return dst, r.eof(err)
		}
		n -= c
	}
	return dst, nil
}

// inline reads an inline string.
func (r *Reader) inline() (string, error) {
	n, err := r.uvarint()
	if err != nil {
		return "", err
	}
	if n > maxStringLen {
		return "", r.corrupt("string of %d bytes", n)
	}
	b, err := r.bytes(nil, int(n))
	return string(b), err
}

// str reads a string id.
func (r *Reader) str() (string, error) {
	id, err := r.uvarint()
	if err != nil {
		return "", err
	}
	if id >= uint64(len(r.strings)) {
		return "", r.corrupt("undefined string %d", id)
	}
	return r.strings[id], nil
}

// stack reads a stack id and returns the reader's id for it.
func (r *Reader) stack() (StackID, error) {
	id, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if id >= uint64(len(r.stackIDs)) {
		return 0, r.corrupt("undefined stack %d", id)
	}
	return r.stackIDs[id], nil
}

// Read reads a whole trace. A trace that ends before its END record (see
// TruncatedError) is returned with Truncated set and a nil error: it holds
// every complete event, and the caller decides whether a prefix will do.
// This includes a file cut inside its header, which reads as an empty
// truncated trace with a zero Header; but input without a single byte is
// ErrEmpty. The trace satisfies the invariants of Builder.Trace, or Read
// returns an error. (ReadFormat returns the *TruncatedError as well.)
func Read(r io.Reader) (*Trace, error) {
	t, _, _, err := read(r, 0, 0)
	return t, err
}

// countEvents returns the number of events of the trace r holds, or of
// its complete batches and the one it ends inside if it is cut short,
// reading its records but not decoding its batches (BenchmarkCountEvents:
// a 27th of the time BenchmarkFormatReadTrace takes to read the same
// 100,000 events). It returns 0 if r holds no readable trace. If enough
// is above zero, it stops once it has counted that many events at least
// (read keeps no more than its limit: the rest need not be read twice).
func countEvents(r io.Reader, enough int) int {
	rd, err := NewReader(r)
	if err != nil {
		return 0
	}
	rd.countOnly = true
	for rd.readRecord() == nil && (enough <= 0 || rd.events < enough) {
	}
	return rd.events
}

// read is Read, also returning the *TruncatedError of a trace cut short.
// If hint is above zero, the trace has about that many events
// (countEvents). If limit is above zero, read stops after that many
// events: a longer trace reads as its prefix (Trace.Prefix), with
// Header.Capped set to limit and more true, and the rest of the input is
// not decoded.
func read(r io.Reader, hint, limit int) (t *Trace, truncated *TruncatedError, more bool, err error) {
	rd, err := NewReader(r)
	if err != nil {
		if te, ok := err.(*TruncatedError); ok {
			return &Trace{Goroutines: []Goroutine{{}}, Objects: []Object{{}}, Stacks: NewStackTable(), Truncated: true}, te, false, nil
		}
		return nil, nil, false, err
	}
	// Events go into chunks, copied once into a slice of the exact size:
	// growing one slice by append would copy a large trace many times.
	// Given the number of events, the first chunk is that slice: the copy
	// holds the events twice, which at the peak of reading a large trace
	// is more than the analysis after it holds (bench/RESULTS.md).
	var chunks [][]Event
	if limit > 0 && hint > limit {
		hint = limit
	}
	chunk := make([]Event, 0, max(hint, 1024))
	var values []EventValue
	for i := 0; ; i++ {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if te, ok := err.(*TruncatedError); ok {
			truncated = te
			break
		}
		if err != nil {
			return nil, nil, false, err
		}
		if i == limit && limit > 0 {
			more = true // an event past the limit: the trace is longer
			rd.skipRest()
			break
		}
		if len(chunk) == cap(chunk) {
			chunks = append(chunks, chunk)
			chunk = make([]Event, 0, min(2*cap(chunk), 1<<16))
		}
		chunk = append(chunk, e)
		if value, old := rd.Value(); value != 0 || old != 0 {
			values = append(values, EventValue{Event: i, Value: value, Old: old})
		}
	}
	events := chunk
	if len(chunks) > 0 {
		n := len(chunk)
		for _, c := range chunks {
			n += len(c)
		}
		events = make([]Event, 0, n)
		for _, c := range append(chunks, chunk) {
			events = append(events, c...)
		}
	}
	b := &Builder{t: &Trace{
		Header:     rd.header,
		Events:     events,
		Values:     values,
		Goroutines: rd.goroutines,
		Objects:    rd.objects,
		Names:      rd.names,
		Stacks:     rd.stacks,
		Outcome:    rd.outcome,
		Truncated:  truncated != nil,
	}}
	if more && (b.t.Header.Capped == 0 || b.t.Header.Capped > limit) {
		b.t.Header.Capped = limit
	}
	if t, err = b.Trace(); err != nil {
		return nil, nil, false, fmt.Errorf("invalid seer trace: %w", err)
	}
	return t, truncated, more, nil
}

// ReadFile reads the named trace file (see Read).
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadFormat reads a trace in the named format: "seer" (as Read) or "std"
// (as ReadSTD), or, if format is "", the one DetectFormat finds in the
// input's first bytes. It is what a tool calls on a file a user names:
//
//   - input without a single byte is ErrEmpty, whatever the format;
//   - binary input that is no seer trace is a *FormatError naming the first
//     byte that is not text and the formats seer reads;
//   - a seer trace cut short gives both the trace of its complete events
//     (Truncated set) and a *TruncatedError saying where the input ends and
//     how many events are complete, so that a caller can report the
//     truncation and still use the prefix;
//   - every other error comes with a nil trace.
func ReadFormat(r io.Reader, format string) (*Trace, error) {
	t, _, err := readFormat(r, format, 0, 0)
	return t, err
}

// readFormat is ReadFormat, with the number of events if known and the
// most to keep (see read); more reports that the input held more.
func readFormat(r io.Reader, format string, hint, limit int) (t *Trace, more bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10) // NewReader uses it as it is
	head, err := br.Peek(sniffLen)
	if len(head) == 0 {
		if err == io.EOF {
			return nil, false, ErrEmpty
		}
		return nil, false, err
	}
	if format == "" {
		if format, err = DetectFormat(head); err != nil {
			return nil, false, err
		}
	}
	switch format {
	case "seer":
		t, te, more, err := read(br, hint, limit)
		if err != nil {
			return nil, false, err
		}
		if te != nil {
			return t, false, te
		}
		return t, more, nil
	case "std":
		t, err := ReadSTD(br)
		if err == nil && limit > 0 && len(t.Events) > limit {
			t = t.Prefix(limit)
			t.Header.Capped = limit
			more = true
		}
		return t, more, err
	}
	return nil, false, fmt.Errorf("unknown trace format %s (want seer or std)", quote(format))
}

// ReadFileFormat reads the named file as ReadFormat does; its errors start
// with the file name.
func ReadFileFormat(path, format string) (*Trace, error) {
	t, _, err := ReadFileFormatMax(path, format, 0)
	return t, err
}

// ReadFileFormatMax is ReadFileFormat keeping at most maxEvents events
// (all if 0): a longer trace reads as its first maxEvents events, the
// prefix Trace.Prefix gives, with Header.Capped set to maxEvents (as a
// recording stopped at seer's event cap), and more is true; a seer
// trace's events past them are not decoded, so that the memory reading
// takes follows maxEvents, not the file.
func ReadFileFormatMax(path, format string, maxEvents int) (t *Trace, more bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	hint := 0
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && format != "std" {
		// A file can be read twice: counting its events first lets
		// reading put them straight into a slice of their number. A
		// batch may claim an event a byte: the hint is held to one a
		// quarter byte, so that a damaged file's claims allocate at most
		// eight times its size (real traces take 8 to 11 bytes an
		// event; a denser one is read in chunks, as a stream is).
		hint = min(countEvents(f, maxEvents), int(st.Size()/4))
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, false, err
		}
	}
	t, more, err = readFormat(f, format, hint, maxEvents)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return t, more, err
}
