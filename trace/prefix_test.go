// This file tests Trace.Prefix: the events, values and replay positions it
// keeps, and that it never writes into the trace it shares storage with;
// and Trace.KeepPrefix: the same cut made in place, the pages of what it
// drops given back.

package trace

import (
	"slices"
	"syscall"
	"testing"
	"unsafe"
)

func TestPrefix(t *testing.T) {
	tr := &Trace{Goroutines: make([]Goroutine, 2)}
	for i := range 10 {
		tr.Events = append(tr.Events, Event{G: 1, Op: OpWrite, Addr: uint64(8 * i), Size: 8})
	}
	tr.Values = []EventValue{{Event: 2, Value: 7}, {Event: 5, Value: 8}, {Event: 9, Old: 1}}
	tr.replayPos = make([]uint32, 10)
	for _, tc := range []struct {
		n, events int
		values    []int // events whose values are kept
	}{
		{0, 0, nil},
		{-1, 0, nil},
		{3, 3, []int{2}},
		{5, 5, []int{2}},
		{6, 6, []int{2, 5}},
		{10, 10, []int{2, 5, 9}},
		{20, 10, []int{2, 5, 9}},
	} {
		p := tr.Prefix(tc.n)
		var values []int
		for _, v := range p.Values {
			values = append(values, v.Event)
		}
		if len(p.Events) != tc.events || !slices.Equal(values, tc.values) {
			t.Errorf("Prefix(%d): %d events, values of %v; want %d, %v", tc.n, len(p.Events), values, tc.events, tc.values)
		}
		if _, _, ok := p.ReplayPos(tc.events); ok {
			t.Errorf("Prefix(%d) has a replay position for event %d", tc.n, tc.events)
		}
		// The prefix shares t's storage but cannot grow into it.
		_ = append(p.Events, Event{G: 1, Op: OpRead})
		_ = append(p.Values, EventValue{Event: tc.events, Value: 99})
		if len(tr.Events) != 10 || tr.Events[min(tc.events, 9)].Op != OpWrite || tr.Values[len(tr.Values)-1].Value != 0 || len(tr.Values) != 3 {
			t.Fatalf("Prefix(%d): appending to the prefix changed the trace", tc.n)
		}
	}
}

func TestKeepPrefix(t *testing.T) {
	page := syscall.Getpagesize()
	perPage := page / int(unsafe.Sizeof(Event{}))
	const n = 64 // pages of events
	for _, tc := range []struct {
		name   string
		keep   int
		replay bool
	}{
		{"none", 0, true},
		{"within the first page", perPage / 2, true},
		{"half", n * perPage / 2, true},
		{"all but one", n*perPage - 1, false},
		{"all", n * perPage, true},
		{"more than all", n*perPage + 5, false},
	} {
		tr := &Trace{Goroutines: make([]Goroutine, 2)}
		for i := range n * perPage {
			tr.Events = append(tr.Events, Event{G: 1, Op: OpWrite, Addr: uint64(8*i + 8), Size: 8})
			if i%3 == 0 {
				tr.Values = append(tr.Values, EventValue{Event: i, Value: uint64(i) + 1})
			}
		}
		if tc.replay {
			tr.replayPos = make([]uint32, len(tr.Events))
			for i := range tr.replayPos {
				tr.replayPos[i] = uint32(i) + 1
			}
		}
		want := tr.Prefix(tc.keep)
		wantEvents, wantValues, wantPos := slices.Clone(want.Events), slices.Clone(want.Values), slices.Clone(want.replayPos)
		whole := tr.Events[:len(tr.Events):len(tr.Events)]
		tr.KeepPrefix(tc.keep)
		if !slices.Equal(tr.Events, wantEvents) || !slices.Equal(tr.Values, wantValues) || !slices.Equal(tr.replayPos, wantPos) {
			t.Errorf("%s: KeepPrefix(%d) kept %d events, %d values, %d positions; Prefix: %d, %d, %d", tc.name, tc.keep,
				len(tr.Events), len(tr.Values), len(tr.replayPos), len(wantEvents), len(wantValues), len(wantPos))
		}
		if cut := len(wantEvents) < len(whole); cut && cap(tr.Events) != len(tr.Events) {
			t.Errorf("%s: the kept events can grow into the dropped ones (capacity %d of %d)", tc.name, cap(tr.Events), len(tr.Events))
		}
		if !discards {
			continue
		}
		// The dropped events' whole pages were given back: they read as
		// zeros now.
		from := (len(wantEvents) + perPage - 1) / perPage * perPage
		if from < len(whole) && unsafe.SliceData(tr.Events) == unsafe.SliceData(whole) {
			for i := from; i < len(whole); i += perPage {
				if whole[i] != (Event{}) {
					t.Errorf("%s: dropped event %d still holds %+v", tc.name, i, whole[i])
					break
				}
			}
		}
	}
}
