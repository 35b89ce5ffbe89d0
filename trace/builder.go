// This file implements Builder, which assembles a Trace event by event. The
// recorder's converter, the STD importer and tests all build traces with it,
// so every Trace satisfies the same invariants (see Builder.Trace).

package trace

import (
	"fmt"

	"github.com/seer-tools/seer/internal/bigslice"
)

// A Builder assembles a Trace. The zero value is not usable; call NewBuilder.
type Builder struct {
	t      *Trace
	objKey map[objKey]ObjID
	lives  lifeTable // the heap objects named lifeObj|i, made by compactObjects
	// full, if set, is called when the event table is full, to grow it
	// (conversion's tableCap) before append would, by a quarter at a
	// time and with a copy each time.
	full func()
	// copyEvents, if set, copies the events to a grown table in Grow
	// (conversion's, on two cores after the run: prefault.go).
	copyEvents func(dst, src []Event)
}

// heapLife is a heap object not made yet (see Builder.lives).
type heapLife struct{ addr, size uint64 }

// A lifeTable holds heap lives in blocks of fixed size. A trace names
// millions of them (Go's race suite does), and a slice that size grows by
// a quarter at a time: the copies and the fresh pages they touch cost the
// conversion a measurable share there (bench/RESULTS.md, "Figures once in
// comments").
type lifeTable struct{ blocks [][]heapLife }

const lifeBlockBits = 15

func (l *lifeTable) add(h heapLife) {
	if n := len(l.blocks); n == 0 || len(l.blocks[n-1]) == cap(l.blocks[n-1]) {
		l.blocks = append(l.blocks, make([]heapLife, 0, 1<<lifeBlockBits))
	}
	last := &l.blocks[len(l.blocks)-1]
	*last = append(*last, h)
}

func (l *lifeTable) len() int {
	if len(l.blocks) == 0 {
		return 0
	}
	return (len(l.blocks)-1)<<lifeBlockBits + len(l.blocks[len(l.blocks)-1])
}

func (l *lifeTable) at(i int) heapLife {
	return l.blocks[i>>lifeBlockBits][i&(1<<lifeBlockBits-1)]
}

// lifeObj marks an event's Obj as an index in Builder.lives.
const lifeObj = ObjID(1) << 31

type objKey struct {
	addr uint64
	name string
}

// NewBuilder returns a builder for a trace with header h.
func NewBuilder(h Header) *Builder {
	return &Builder{
		t: &Trace{
			Header:     h,
			Goroutines: []Goroutine{{}},
			Objects:    []Object{{}},
			Stacks:     NewStackTable(),
		},
		objKey: make(map[objKey]ObjID),
	}
}

// Stacks returns the builder's stack table, for interning stacks directly.
func (b *Builder) Stacks() *StackTable { return b.t.Stacks }

// Goroutine adds a goroutine and returns its id. The first goroutine added
// has id 1.
func (b *Builder) Goroutine(parent GoID, create StackID) GoID {
	id := GoID(len(b.t.Goroutines))
	b.t.Goroutines = append(b.t.Goroutines, Goroutine{ID: id, Parent: parent, Create: create})
	return id
}

// SetGoroutine updates goroutine g's descriptive fields (Test, Func).
func (b *Builder) SetGoroutine(g GoID, test, fn string) {
	gr := &b.t.Goroutines[g]
	if test != "" {
		gr.Test = test
	}
	if fn != "" {
		gr.Func = fn
	}
}

// NumGoroutines returns the number of goroutines added so far.
func (b *Builder) NumGoroutines() int { return len(b.t.Goroutines) - 1 }

// Object returns the id of the object identified by (addr, name), adding it
// with the given kind and size on first use. A later, more specific kind
// (anything but ObjVar/ObjUnknown/ObjSync) replaces an earlier generic one.
func (b *Builder) Object(kind ObjKind, addr, size uint64, name string) ObjID {
	k := objKey{addr, name}
	if id, ok := b.objKey[k]; ok {
		o := &b.t.Objects[id]
		if generic(o.Kind) && !generic(kind) {
			o.Kind = kind
		}
		if size > o.Size {
			o.Size = size
		}
		return id
	}
	id := ObjID(len(b.t.Objects))
	b.t.Objects = append(b.t.Objects, Object{ID: id, Kind: kind, Addr: addr, Size: size})
	b.setName(id, name)
	b.objKey[k] = id
	return id
}

func generic(k ObjKind) bool { return k == ObjUnknown || k == ObjVar || k == ObjSync }

// SetObject updates the descriptive fields of object id.
func (b *Builder) SetObject(id ObjID, name string, alloc StackID) {
	b.setName(id, name)
	if alloc != 0 {
		b.t.Objects[id].Alloc = alloc
	}
}

// setName names object id, unless name is "".
func (b *Builder) setName(id ObjID, name string) {
	if name == "" {
		return
	}
	if b.t.Names == nil {
		b.t.Names = make(map[ObjID]string)
	}
	b.t.Names[id] = name
}

// Add appends e and returns its index.
func (b *Builder) Add(e Event) int { return b.addValue(&e, 0, 0) }

// AddValue appends e, which carries the given values (see EventValue), and
// returns its index.
func (b *Builder) AddValue(e Event, value, old uint64) int { return b.addValue(&e, value, old) }

// addValue is AddValue of *e: the converter's events are in memory already,
// and copying the Event into each call's arguments was a measured part of
// its cost per event (bench/RESULTS.md, branch conv8).
func (b *Builder) addValue(e *Event, value, old uint64) int {
	if b.full != nil && len(b.t.Events) == cap(b.t.Events) {
		b.full()
	}
	b.t.Events = append(b.t.Events, *e)
	i := len(b.t.Events) - 1
	if value != 0 || old != 0 {
		if len(b.t.Values) == cap(b.t.Values) {
			b.t.Values = bigslice.Grow(b.t.Values, 1) // a copy the collector can stop
		}
		b.t.Values = append(b.t.Values, EventValue{Event: i, Value: value, Old: old})
	}
	return i
}

// roomFor reports whether the table has room for one more event without
// growing (put's condition).
func (b *Builder) roomFor() bool { return len(b.t.Events) < cap(b.t.Events) }

// put appends e, which carries no values, to a table with room for it
// (roomFor): addValue's common case, small enough for Go to inline into
// the converter's addValue, where a call of addValue was part of the cost
// of each event.
func (b *Builder) put(e *Event) int {
	i := len(b.t.Events)
	b.t.Events = b.t.Events[:i+1]
	b.t.Events[i] = *e
	return i
}

// Len returns the number of events added so far.
func (b *Builder) Len() int { return len(b.t.Events) }

// Event returns a pointer to event i, for fixing up links (Peer) later.
func (b *Builder) Event(i int) *Event { return &b.t.Events[i] }

// SetOutcome records how the run ended.
func (b *Builder) SetOutcome(o Outcome) { b.t.Outcome = o }

// SetTruncated marks the trace as cut short.
func (b *Builder) SetTruncated() { b.t.Truncated = true }

// Trace validates and returns the trace. The builder must not be used after.
// Invariants: every event's goroutine and object exist; a goroutine's events
// after an OpEnd do not exist; OpGo's Peer is a goroutine whose parent is the
// event's goroutine; Values has at most one entry per event, in event order,
// none of them zero.
func (b *Builder) Trace() (*Trace, error) {
	t := b.t
	for k, v := range t.Values {
		if v.Event < 0 || v.Event >= len(t.Events) || k > 0 && v.Event <= t.Values[k-1].Event || v.Value == 0 && v.Old == 0 {
			return nil, fmt.Errorf("value %d (of event %d): not in event order or zero", k, v.Event)
		}
	}
	ended := make([]bool, len(t.Goroutines))
	for i := range t.Events {
		e := &t.Events[i]
		if int(e.G) <= 0 || int(e.G) >= len(t.Goroutines) {
			return nil, fmt.Errorf("event %d: unknown goroutine %d", i, e.G)
		}
		if int(e.Obj) >= len(t.Objects) {
			return nil, fmt.Errorf("event %d: unknown object %d", i, e.Obj)
		}
		if ended[e.G] {
			return nil, fmt.Errorf("event %d: goroutine %d acts after its end", i, e.G)
		}
		switch e.Op {
		case OpEnd:
			ended[e.G] = true
		case OpGo:
			if int(e.Peer) <= 0 || int(e.Peer) >= len(t.Goroutines) || t.Goroutines[e.Peer].Parent != e.G {
				return nil, fmt.Errorf("event %d: go of goroutine %d that is not a child of %d", i, e.Peer, e.G)
			}
		}
	}
	b.t = nil
	return t, nil
}

// AddObject adds o, named name, as a new object (never interned) and
// returns its id.
func (b *Builder) AddObject(o Object, name string) ObjID {
	o.ID = ObjID(len(b.t.Objects))
	b.t.Objects = append(b.t.Objects, o)
	b.setName(o.ID, name)
	return o.ID
}

// Grow reserves room for n more events.
func (b *Builder) Grow(n int) {
	if n > 0 && cap(b.t.Events)-len(b.t.Events) < n {
		ev := make([]Event, len(b.t.Events), len(b.t.Events)+n)
		if b.copyEvents == nil {
			bigslice.Copy(ev, b.t.Events) // a copy the collector can stop
		} else {
			b.copyEvents(ev, b.t.Events)
		}
		b.t.Events = ev
		b.growValues()
	}
}

// growValues gives the values room in proportion to the event table's:
// the share of the events so far that carry values, over the table's
// capacity. Grown by append alone, a quarter at a time past a few hundred,
// the values of a run of atomics (pond's) were copied tens of times
// while the table grew at most twice as a whole (bench/RESULTS.md).
func (b *Builder) growValues() {
	n, v := len(b.t.Events), len(b.t.Values)
	if n == 0 || v == 0 {
		return
	}
	if want := int(int64(v) * int64(cap(b.t.Events)) / int64(n)); want > cap(b.t.Values) {
		b.t.Values = bigslice.Grow(b.t.Values, want-v)
	}
}
