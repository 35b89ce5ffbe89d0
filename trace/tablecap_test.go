// This file tests tableCap, how far the event table grows at a time.

package trace

import (
	"slices"
	"testing"
)

func TestTableCap(t *testing.T) {
	const limit = 14_000_000 + 1024
	for _, c := range []struct {
		name                    string
		have, held, want, wantN int
		whole                   bool
	}{
		// A loose estimate at the start of a run gets the floor, not the cap.
		{"first, loose estimate", 0, 0, 14_000_000, tableFloor, false},
		{"first, small", 0, 0, 1000, 1000, false},
		// Then doubling, whatever the estimate.
		{"estimate past double", 1 << 20, 900_000, 3_150_158, 2 << 20, false},
		{"estimate under double", 1 << 20, 1 << 20, 1<<20 + 1, 2 << 20, false},
		// Past a quarter of the cap: the whole cap at once.
		{"past a quarter of the cap", 4 << 20, 4 << 20, 5 << 20, limit, false},
		{"never past the cap", 8 << 20, 3 << 20, 9 << 20, limit, false},
		// After the run, the whole run's estimate at once, up to the cap.
		{"whole run, first", 0, 0, 3_000_000, 3_000_000, true},
		{"whole run, past double", 1 << 16, 1238, 3_150_158, 3_150_158, true},
		{"whole run, past the cap", 1 << 16, 1238, 17_321_749, limit, true},
		{"whole run, under double", 1 << 20, 1 << 20, 1<<20 + 1, 2 << 20, true},
		{"whole run, past a quarter of the cap", 4 << 20, 4 << 20, 5 << 20, limit, true},
	} {
		if got := tableCap(c.have, c.held, c.want, limit, c.whole); got != c.wantN {
			t.Errorf("%s: tableCap(%d, %d, %d, %v) = %d, want %d", c.name, c.have, c.held, c.want, c.whole, got, c.wantN)
		}
		if got := tableCap(c.have, c.held, c.want, limit, c.whole); got <= c.have {
			t.Errorf("%s: tableCap(%d, %d, %d, %v) = %d does not grow", c.name, c.have, c.held, c.want, c.whole, got)
		}
	}
}

// TestTableGrowsByTableCap holds an event table that the conversion's
// hints left full to tableCap's steps: doubling, then the cap at once
// past a quarter of it, and never append's quarter at a time.
func TestTableGrowsByTableCap(t *testing.T) {
	const limit = 1_000_000
	b := NewBuilder(Header{})
	g := b.Goroutine(0, 0)
	b.full = growFull(b, limit)
	var caps []int
	for range limit {
		b.Add(Event{G: g, Op: OpRead, Size: 1})
		if c := cap(b.t.Events); len(caps) == 0 || c != caps[len(caps)-1] {
			caps = append(caps, c)
		}
	}
	want := []int{tableFloor, 2 * tableFloor, 4 * tableFloor, limit}
	if !slices.Equal(caps, want) {
		t.Errorf("the table's capacities were %v, want %v", caps, want)
	}
}

// TestGrowValues checks that the values grow with the event table, not
// by append's quarter at a time: a table grown for a run whose events
// so far carry values one in two holds the run's values without another
// copy, and keeps them.
func TestGrowValues(t *testing.T) {
	b := NewBuilder(Header{})
	add := func(from, to int) {
		for i := from; i < to; i++ {
			if i%2 == 0 {
				b.AddValue(Event{Op: OpAtomicStore}, uint64(i)+1, 0)
			} else {
				b.Add(Event{Op: OpAtomicLoad})
			}
		}
	}
	add(0, 1000)
	b.Grow(99_000)
	if c := cap(b.t.Values); c < 50_000 {
		t.Fatalf("after growing the table to %d events, the values' room is %d, want at least 50000", cap(b.t.Events), c)
	}
	first := &b.t.Values[0]
	add(1000, 100_000)
	if &b.t.Values[0] != first {
		t.Errorf("the values were copied while the table had room for their events")
	}
	if len(b.t.Values) != 50_000 {
		t.Fatalf("%d values, want 50000", len(b.t.Values))
	}
	for k, v := range b.t.Values {
		if v.Event != 2*k || v.Value != uint64(2*k)+1 {
			t.Fatalf("value %d = %+v, want event %d value %d", k, v, 2*k, 2*k+1)
		}
	}
}
