// This file tests Trace.Prefix: the events, values and replay positions it
// keeps, and that it never writes into the trace it shares storage with.

package trace

import (
	"slices"
	"testing"
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
