// This file implements the tests of the event model: the size of Event and
// the table of event values (Builder.AddValue, Trace.Value).

package trace

import (
	"testing"
	"unsafe"
)

// TestEventSize keeps Event at 32 bytes: a recorded trace may hold tens of
// millions of events, all in memory at once. The events of a 10-million-event
// trace take 320 MB; they took 480 MB when Event held the values of atomics,
// which few events carry and which now live in Trace.Values. Every 8 bytes
// added cost 80 MB more.
func TestEventSize(t *testing.T) {
	if n := unsafe.Sizeof(Event{}); n != 32 {
		t.Errorf("Event takes %d bytes, want 32", n)
	}
}

func TestEventValues(t *testing.T) {
	b := NewBuilder(Header{})
	g := b.Goroutine(0, 0)
	obj := b.Object(ObjAtomic, 0x1000, 8, "")
	b.Add(Event{Op: OpRead, G: g})
	b.AddValue(Event{Op: OpAtomicLoad, G: g}, 0, 0) // no values: no entry
	b.AddValue(Event{Op: OpAtomicRMW, G: g, Obj: obj}, 5, 4)
	b.AddValue(Event{Op: OpAtomicRMW, G: g}, 0, 1<<63)
	b.AddValue(Event{Op: OpWGAdd, G: g, Obj: obj}, 2, 0)
	b.Add(Event{Op: OpWrite, G: g})
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Values) != 3 {
		t.Errorf("%d values, want 3: %+v", len(tr.Values), tr.Values)
	}
	want := [][2]uint64{{0, 0}, {0, 0}, {5, 4}, {0, 1 << 63}, {2, 0}, {0, 0}}
	for i, w := range want {
		if v, old := tr.Value(i); [2]uint64{v, old} != w {
			t.Errorf("Value(%d) = %d, %d, want %d", i, v, old, w)
		}
	}
	for _, i := range []int{-1, len(want), 1 << 40} {
		if v, old := tr.Value(i); v != 0 || old != 0 {
			t.Errorf("Value(%d) = %d, %d, want zero", i, v, old)
		}
	}
	if got := tr.ObjectLabel(2); got != "#1 4->5" {
		t.Errorf("ObjectLabel(2) = %q", got)
	}
	if got := tr.ObjectLabel(4); got != "#1 =2" {
		t.Errorf("ObjectLabel(4) = %q", got)
	}

	// Builder.Trace rejects a table that does not follow the events.
	for _, values := range [][]EventValue{
		{{Event: 1, Value: 1}, {Event: 1, Value: 2}},
		{{Event: 1, Value: 1}, {Event: 0, Value: 2}},
		{{Event: 2, Value: 1}},
		{{Event: -1, Value: 1}},
		{{Event: 0}},
	} {
		b := NewBuilder(Header{})
		g := b.Goroutine(0, 0)
		b.Add(Event{Op: OpAtomicLoad, G: g})
		b.Add(Event{Op: OpAtomicLoad, G: g})
		b.t.Values = values
		if _, err := b.Trace(); err == nil {
			t.Errorf("Trace accepts values %+v", values)
		}
	}
}
