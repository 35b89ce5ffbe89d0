// This file implements parking the tail of a trace (Trace.Park): while an
// analysis reads only a trace's first n events (predict's analysis of a
// prefix, when its clock history outgrew its budget), the whole pages of
// the events after them, of their values and of their replay positions,
// are written to a temporary file, unlinked as soon as it is made, by
// direct I/O where the system has it (park_linux.go), and given back to
// the kernel (discard); Parked.Restore reads them back into the same
// memory. The bytes around them, less than a page at each end, stay.
// On a trace cut early (issue 31's pond) the events after the cut were a
// large part of the analysis's peak (bench/RESULTS.md). Trace.ParkValues parks the values alone, the same
// way, while passes that read none of them replay the whole trace
// (predict's SHB and must-happen-before passes).

package trace

import (
	"errors"
	"io"
	"os"
	"slices"
	"unsafe"
)

// Parked is the parked tail of a trace (Trace.Park), or its parked values
// (Trace.ParkValues).
type Parked struct {
	t         *Trace
	f         *os.File
	events    []Event      // the whole table, its tail in the file
	values    []EventValue // the same
	replayPos []uint32     // the same
	n, k      int          // events and values kept
	values0   bool         // made by ParkValues (the trace's Value panics until Restore)
}

// Park makes t the trace of its first n events, as Prefix(n) would be,
// and gives back the memory of the rest, which it writes to a temporary
// file, until Restore: the tables keep their arrays, so that no copy holds
// the first events twice. It returns nil (and leaves t whole) when there
// is nothing after event n or the system cannot give pages back
// (discard). Nothing may read t's tables past their lengths while they
// are parked: the pages read as zeros.
func (t *Trace) Park(n int) (*Parked, error) {
	if n < 0 || n >= len(t.Events) {
		return nil, nil
	}
	k, _ := slices.BinarySearchFunc(t.Values, n, func(v EventValue, n int) int { return v.Event - n })
	return t.park(n, k)
}

// ParkValues gives back the memory of t's values, which it writes to a
// temporary file, until Restore: t.Values is empty meanwhile, and
// t.Value panics, so that a reader the caller overlooked fails rather
// than read zeros. The events stay. It returns nil (and leaves t
// whole) when t has no values or the system cannot give pages back.
func (t *Trace) ParkValues() (*Parked, error) {
	if len(t.Values) == 0 {
		return nil, nil
	}
	p, err := t.park(len(t.Events), 0)
	if p != nil {
		t.valuesParked, p.values0 = true, true
	}
	return p, err
}

// park parks the events from n on and the values from k on.
func (t *Trace) park(n, k int) (*Parked, error) {
	if !discards {
		return nil, nil
	}
	p := &Parked{t: t, events: t.Events, values: t.Values, replayPos: t.replayPos, n: n, k: k}
	f, err := os.CreateTemp("", "seer-park-*")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	f = openParkFile(f) // park_linux.go
	if err := os.Remove(name); err != nil {
		f.Close()
		return nil, err
	}
	p.f = f
	var off int64
	for _, b := range p.tails() {
		_, err := f.WriteAt(b, off)
		if err != nil && buffered(f, err) {
			_, err = f.WriteAt(b, off)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		off += int64(len(b))
	}
	for _, b := range p.tails() {
		discard(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
	}
	if n < len(t.Events) {
		t.Events = t.Events[:n:n]
	}
	t.Values = t.Values[:k:k]
	if len(t.replayPos) > n {
		t.replayPos = t.replayPos[:n:n]
	}
	return p, nil
}

// tails returns the whole pages of the parked parts of the tables, in the
// file's order: what discard gives back, and what direct I/O can move
// (its memory, lengths and file offsets aligned to pages).
func (p *Parked) tails() [][]byte {
	ev := p.events[p.n:]
	vs := p.values[p.k:]
	out := [][]byte{
		unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ev))), uintptr(len(ev))*unsafe.Sizeof(Event{})),
		unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vs))), uintptr(len(vs))*unsafe.Sizeof(EventValue{})),
	}
	if len(p.replayPos) > p.n {
		rp := p.replayPos[p.n:]
		out = append(out, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(rp))), uintptr(len(rp))*4))
	}
	for i, b := range out {
		lo, hi := wholePages(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
		a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if hi <= lo { // none, as for an empty b
			out[i] = nil
			continue
		}
		out[i] = b[lo-a : hi-a]
	}
	return out
}

// Restore reads the parked tail back and makes the trace whole again. A
// nil Parked (nothing parked) restores nothing. After an error the trace
// holds only its first events.
func (p *Parked) Restore() error {
	if p == nil || p.f == nil {
		return nil
	}
	defer func() {
		p.f.Close()
		p.f = nil
	}()
	var off int64
	for _, b := range p.tails() {
		_, err := p.f.ReadAt(b, off)
		if err != nil && buffered(p.f, err) {
			_, err = p.f.ReadAt(b, off)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		off += int64(len(b))
	}
	p.t.Events, p.t.Values, p.t.replayPos = p.events, p.values, p.replayPos
	if p.values0 {
		p.t.valuesParked = false
	}
	return nil
}
