// This file tests local.go: CompactLocal leaves out exactly accesses whose
// bytes no other goroutine touched, keeps each goroutine's last events,
// and keeps every index pointing at the same event.

package trace_test

import (
	"slices"
	"testing"

	. "github.com/seer-tools/seer/trace"
)

func TestCompactLocal(t *testing.T) {
	skipIfCannotRecord(t)
	for _, name := range []string{"parallel", "chan", "mutex", "waitgroup", "runtime", "atomic"} {
		t.Run(name, func(t *testing.T) {
			full := recordTxtar(t, "testdata/record/"+name+".txtar").Trace
			if full.Local != nil {
				t.Fatalf("KeepLocal: Local = %v, want nil", full.Local)
			}
			tr := *full
			tr.Events = slices.Clone(full.Events)
			tr.Values = slices.Clone(full.Values)
			tr.Objects = slices.Clone(full.Objects)
			left := CompactLocal(&tr)
			if left == 0 || len(tr.Events)+left != len(full.Events) || tr.LocalAccesses() != left {
				t.Fatalf("left out %d of %d events (kept %d, Local sums to %d)", left, len(full.Events), len(tr.Events), tr.LocalAccesses())
			}
			checkCompaction(t, full, &tr)
		})
	}
}

// checkCompaction checks compact against full by brute force: which
// goroutines touched each byte, then event by event. A byte several
// goroutines touched may be left out only where go statements and
// program order order each of its accesses with every other goroutine's
// (a life handed over, local_handoff.go).
func checkCompaction(t *testing.T, full, compact *Trace) {
	t.Helper()
	touched := map[uint64]map[GoID]bool{} // byte -> goroutines (0: synchronisation)
	byteEvents := map[uint64][]int{}      // byte -> the events that touched it
	before := ForkOrder(full)
	// ordered reports whether access i is ordered by go statements with
	// every event of another goroutine on byte b, none of them a
	// synchronisation.
	ordered := func(i int, b uint64) bool {
		if touched[b][0] {
			return false
		}
		for _, j := range byteEvents[b] {
			if full.Events[j].G != full.Events[i].G && !before(i, j) && !before(j, i) {
				return false
			}
		}
		return true
	}
	for i := range full.Events {
		e := &full.Events[i]
		if e.Addr == 0 && !e.Op.IsAccess() {
			continue
		}
		g := e.G
		if !e.Op.IsAccess() {
			g = 0
		}
		for b := e.Addr; b < e.Addr+uint64(max(e.Size, 1)); b++ {
			if touched[b] == nil {
				touched[b] = map[GoID]bool{}
			}
			touched[b][g] = true
			byteEvents[b] = append(byteEvents[b], i)
		}
	}
	last, lastUser := map[GoID]int{}, map[GoID]int{}
	for i := range full.Events {
		e := &full.Events[i]
		last[e.G] = i
		if _, user := UserFrame(full.Stack(e.Stack), full.Header.GOROOT); user {
			lastUser[e.G] = i
		}
	}
	k := 0
	newIndex := make([]int, len(full.Events))
	for i := range full.Events {
		e := &full.Events[i]
		if k < len(compact.Events) && sameEvent(full, e, compact, &compact.Events[k]) {
			newIndex[i] = k
			k++
			continue
		}
		newIndex[i] = -1
		if !e.Op.IsAccess() {
			t.Fatalf("event %d (%v by g%d) left out: not a plain access", i, e.Op, e.G)
		}
		if last[e.G] == i {
			t.Errorf("event %d: goroutine %d's last event left out", i, e.G)
		}
		if j, ok := lastUser[e.G]; ok && j == i {
			t.Errorf("event %d: goroutine %d's last event in user code left out", i, e.G)
		}
		for b := e.Addr; b < e.Addr+uint64(max(e.Size, 1)); b++ {
			if len(touched[b]) != 1 && !ordered(i, b) {
				t.Fatalf("event %d (%v by g%d at %#x) left out, but byte %#x was touched by %v", i, e.Op, e.G, e.Addr, b, touched[b])
			}
		}
	}
	if k != len(compact.Events) {
		t.Fatalf("the compacted trace is not the full one less some events: %d of its %d events matched", k, len(compact.Events))
	}
	for i := range full.Events {
		if e := &full.Events[i]; e.Op == OpRecv && e.Peer >= 0 {
			if got, want := compact.Events[newIndex[i]].Peer, newIndex[e.Peer]; int(got) != want {
				t.Errorf("receive %d (%d before) linked to %d, want %d", newIndex[i], i, got, want)
			}
		}
	}
	var vals []EventValue
	for _, v := range full.Values {
		if j := newIndex[v.Event]; j >= 0 {
			vals = append(vals, EventValue{Event: j, Value: v.Value, Old: v.Old})
		}
	}
	if !slices.Equal(vals, compact.Values) {
		t.Errorf("values: %v, want %v", compact.Values, vals)
	}
	// Some plain access that two goroutines made unordered survives in a
	// trace with any sharing at all.
	for i := range full.Events {
		if e := &full.Events[i]; e.Op.IsAccess() && len(touched[e.Addr]) > 1 && newIndex[i] < 0 && !ordered(i, e.Addr) {
			t.Errorf("event %d: shared access left out", i)
		}
	}
}

// sameEvent reports whether e of a and f of b are the same event, objects
// compared by what they are, not by id.
func sameEvent(a *Trace, e *Event, b *Trace, f *Event) bool {
	if e.Op != f.Op || e.G != f.G || e.Addr != f.Addr || e.Size != f.Size || e.Stack != f.Stack || e.Sync != f.Sync {
		return false
	}
	if e.Op != OpRecv && e.Peer != f.Peer {
		return false
	}
	oa, ob := a.Object(e.Obj), b.Object(f.Obj)
	return (oa == nil) == (ob == nil) && (oa == nil || oa.Kind == ob.Kind && oa.Addr == ob.Addr && oa.Size == ob.Size && a.ObjectName(e.Obj) == b.ObjectName(f.Obj))
}

func TestShrinkEvents(t *testing.T) {
	for _, tc := range []struct {
		touched, kept int
		copied        bool // where discard cannot give pages back
	}{
		{1 << 16, 1 << 16, false},
		{1 << 16, 1<<16 - 1<<12, false}, // less than an eighth left out
		{1 << 16, 1<<16 - 1<<13, true},
		{1 << 16, 10, true},
	} {
		all := make([]Event, tc.touched)
		for i := range all {
			all[i].Addr = uint64(i) + 1
		}
		tr := &Trace{Events: all[:tc.kept]}
		rp := ShrinkEvents(tr, make([]uint32, tc.kept, tc.touched), tc.touched)
		if len(tr.Events) != tc.kept || len(rp) != tc.kept || tr.Events[tc.kept-1].Addr != uint64(tc.kept) {
			t.Fatalf("%d of %d events kept: %d events, %d positions after shrinking", tc.kept, tc.touched, len(tr.Events), len(rp))
		}
		switch {
		case &tr.Events[0] != &all[0]:
			if !tc.copied {
				t.Errorf("%d of %d events kept: copied", tc.kept, tc.touched)
			}
		case cap(tr.Events) == tc.kept:
			// Given back: the last touched page reads as zeros.
			if tc.kept < tc.touched && all[tc.touched-1].Addr != 0 {
				t.Errorf("%d of %d events kept: the tail was not given back", tc.kept, tc.touched)
			}
		case tc.copied && tc.kept < tc.touched:
			t.Errorf("%d of %d events kept: neither given back nor copied", tc.kept, tc.touched)
		}
	}
}
