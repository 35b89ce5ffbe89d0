// This file tests the event table's prefaulter (prefault.go): a table
// grown with its pages faulted in ahead and its events copied on two
// cores holds the events a plain table does, and populate faults pages in
// without changing what they hold.

package trace

import "testing"

// TestPrefaultGrow adds events, each of its own, to a table grown as the
// conversion grows it after the run (growFull, each new array faulted in
// ahead and copied by prefaulter.copyEvents, two halves at once past
// minSplitCopy), and checks every event against what was added.
func TestPrefaultGrow(t *testing.T) {
	const n = 3*minSplitCopy + 12345
	b := NewBuilder(Header{})
	g := b.Goroutine(0, 0)
	pf := newPrefaulter(func() bool { return true })
	defer pf.stop()
	if pf == nil {
		t.Skip("no prefaulter here")
	}
	b.copyEvents = pf.copyEvents
	full := growFull(b, n)
	grows := 0
	b.full = func() {
		full()
		grows++
		pf.ask(b.t.Events, b.Len(), true)
	}
	for i := range n {
		j := b.Add(Event{G: g, Op: OpWrite, Addr: uint64(i)*8 + 1, Size: uint32(i%8 + 1), Stack: StackID(i % 1000)})
		pf.ask(b.t.Events, j+1, false) // as the converter's addEvent
	}
	if grows < 3 || cap(b.t.Events) != n {
		t.Errorf("the table grew %d times to %d events: the test wants copies past minSplitCopy", grows, cap(b.t.Events))
	}
	for i := range b.t.Events {
		want := Event{G: g, Op: OpWrite, Addr: uint64(i)*8 + 1, Size: uint32(i%8 + 1), Stack: StackID(i % 1000)}
		if b.t.Events[i] != want {
			t.Fatalf("event %d is %+v, want %+v", i, b.t.Events[i], want)
		}
	}
	if r := pf.reach(b.t.Events, b.Len()); r < b.Len() || r > cap(b.t.Events) {
		t.Errorf("reach %d outside [%d, %d]", r, b.Len(), cap(b.t.Events))
	}
}
