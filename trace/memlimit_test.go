// This file tests SetMemoryLimit (memlimit.go): the Go memory limit grows
// by the room past a compacted table's events until the table is
// collected, and not by a parked tail.

package trace

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// limitGiven returns the runtime's memory limit less base.
func limitGiven(base int64) int64 { return debug.SetMemoryLimit(-1) - base }

func TestMemoryLimitGivenBack(t *testing.T) {
	if !discards {
		t.Skip("nothing is given back where discard gives no pages back")
	}
	old := debug.SetMemoryLimit(-1)
	defer func() {
		SetMemoryLimit(0)
		debug.SetMemoryLimit(old)
	}()
	// Tables that tests before converted and dropped: collected, and
	// their cleanups run, before the count is read.
	settled := func() int64 {
		prev := int64(-1)
		for i := 0; i < 100; i++ {
			runtime.GC()
			time.Sleep(2 * time.Millisecond)
			memLimit.mu.Lock()
			g := memLimit.given
			memLimit.mu.Unlock()
			if g == prev {
				return g
			}
			prev = g
		}
		return prev
	}
	g0 := settled()
	const base0 = 1 << 40
	SetMemoryLimit(base0)
	base := int64(base0) + g0 // what tables still held give back
	if g := limitGiven(base0); g != g0 {
		t.Fatalf("the limit is %d over the one set, not the %d given back", g, g0)
	}
	const n = 100_000 // 3.2 MB of events
	tr := &Trace{Events: make([]Event, n)}
	p, err := tr.Park(n / 4)
	if err != nil || p == nil {
		t.Fatalf("Park: %v, %v", p, err)
	}
	if g := limitGiven(base); g != 0 {
		t.Fatalf("a parked tail is counted as held, yet the limit grew by %d", g)
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}

	// Compaction's room: given back while the table is held, and no more
	// once it is collected.
	func() {
		tr := &Trace{Events: make([]Event, n/2, n)}
		shrinkEvents(tr, nil, n/2)
		if cap(tr.Events) != n/2 {
			t.Fatalf("shrinkEvents left a capacity of %d, not %d", cap(tr.Events), n/2)
		}
		room := int64(n/2) * int64(unsafe.Sizeof(Event{}))
		if g := limitGiven(base); g <= room-2*int64(syscall.Getpagesize()) || g > room {
			t.Fatalf("%d bytes of room past the events: the limit grew by %d", room, g)
		}
		runtime.KeepAlive(tr.Events)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for limitGiven(base) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the table is garbage, yet the limit is still %d over the one set", limitGiven(base))
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
