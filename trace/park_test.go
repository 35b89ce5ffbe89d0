// This file tests Trace.Park: a parked trace is its prefix, the memory
// of its tail is given back, and Restore makes it whole again; and
// Trace.ParkValues, the same for the values alone.

package trace

import (
	"slices"
	"testing"
)

func TestPark(t *testing.T) {
	const n = 5000
	mk := func(replay bool) *Trace {
		tr := &Trace{}
		for i := 0; i < n; i++ {
			tr.Events = append(tr.Events, Event{Addr: uint64(i) * 8, G: GoID(1 + i%7), Peer: int32(i), Obj: ObjID(i % 13), Stack: StackID(i % 5), Size: 8, Op: OpWrite})
			if i%3 == 0 {
				tr.Values = append(tr.Values, EventValue{Event: i, Value: uint64(i) + 1, Old: uint64(i)})
			}
			if replay {
				tr.replayPos = append(tr.replayPos, uint32(i)*3+1)
			}
		}
		return tr
	}
	for _, tc := range []struct {
		name   string
		at     int
		replay bool
		parked bool
	}{
		{"middle", 1234, false, true},
		{"middle, replay positions", 1234, true, true},
		{"first event", 0, true, true},
		{"last event", n - 1, false, true},
		{"past the end", n, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mk(tc.replay)
			want := mk(tc.replay)
			pre := want.Prefix(tc.at)
			full := tr.Events[:n]
			p, err := tr.Park(tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if (p != nil) != (tc.parked && discards) {
				t.Fatalf("parked %v, want %v", p != nil, tc.parked && discards)
			}
			if !slices.Equal(tr.Events, pre.Events) || !slices.Equal(tr.Values, pre.Values) || !slices.Equal(tr.replayPos, pre.replayPos) {
				t.Fatalf("parked at %d: %d events, %d values, %d replay positions; the prefix has %d, %d, %d",
					tc.at, len(tr.Events), len(tr.Values), len(tr.replayPos), len(pre.Events), len(pre.Values), len(pre.replayPos))
			}
			if p != nil && tc.at < n-1000 {
				// The tail's whole pages were given back: they read as zeros.
				zero := 0
				for _, e := range full[tc.at:] {
					if e == (Event{}) {
						zero++
					}
				}
				if zero < (n-tc.at)/2 {
					t.Fatalf("%d of the %d parked events read as zeros: their pages were not given back", zero, n-tc.at)
				}
			}
			if err := p.Restore(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tr.Events, want.Events) || !slices.Equal(tr.Values, want.Values) || !slices.Equal(tr.replayPos, want.replayPos) {
				t.Fatalf("restored: %d events, %d values, %d replay positions, not the trace's %d, %d, %d (or other contents)",
					len(tr.Events), len(tr.Values), len(tr.replayPos), len(want.Events), len(want.Values), len(want.replayPos))
			}
			if err := p.Restore(); err != nil {
				t.Fatalf("a second Restore: %v", err)
			}
		})
	}
}

func TestParkValues(t *testing.T) {
	const n = 20000
	mk := func() *Trace {
		tr := &Trace{}
		for i := 0; i < n; i++ {
			tr.Events = append(tr.Events, Event{Addr: uint64(i) * 8, G: GoID(1 + i%7), Obj: ObjID(i % 13), Size: 8, Op: OpWrite})
			tr.replayPos = append(tr.replayPos, uint32(i)*3+1)
			if i%2 == 0 {
				tr.Values = append(tr.Values, EventValue{Event: i, Value: uint64(i) + 1, Old: uint64(i)})
			}
		}
		return tr
	}
	tr, want := mk(), mk()
	vals := tr.Values
	p, err := tr.ParkValues()
	if err != nil {
		t.Fatal(err)
	}
	if (p != nil) != discards {
		t.Fatalf("parked %v, want %v", p != nil, discards)
	}
	if p != nil {
		if len(tr.Values) != 0 {
			t.Fatalf("parked: %d values left", len(tr.Values))
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("parked: Value answered instead of panicking")
				}
			}()
			tr.Value(10)
		}()
		zero := 0
		for _, v := range vals {
			if v == (EventValue{}) {
				zero++
			}
		}
		if zero < len(vals)/2 {
			t.Fatalf("%d of the %d parked values read as zeros: their pages were not given back", zero, len(vals))
		}
	}
	if !slices.Equal(tr.Events, want.Events) || !slices.Equal(tr.replayPos, want.replayPos) {
		t.Fatalf("parking the values changed the events or replay positions")
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.Events, want.Events) || !slices.Equal(tr.Values, want.Values) || !slices.Equal(tr.replayPos, want.replayPos) {
		t.Fatalf("restored: %d events, %d values, %d replay positions, not the trace's %d, %d, %d (or other contents)",
			len(tr.Events), len(tr.Values), len(tr.replayPos), len(want.Events), len(want.Values), len(want.replayPos))
	}
	if v, old := tr.Value(10); v != 11 || old != 10 {
		t.Fatalf("restored: event 10's value %d, old %d; want 11, 10", v, old)
	}
	empty := &Trace{Events: want.Events}
	if p, err := empty.ParkValues(); p != nil || err != nil {
		t.Fatalf("a trace without values: parked %v, %v", p != nil, err)
	}
}
