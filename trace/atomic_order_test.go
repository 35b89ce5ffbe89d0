// This file tests that the recorder orders the atomics on one address as
// they happened (recorder.c's "atomics"): loads that spin on an address
// while other goroutines add to it, swap it and compare-and-swap it, each
// recorded with the value it read, must read, in the trace's order, the
// value the last change before them left.

package trace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

const atomicOrderTest = `package order

import (
	"sync"
	"sync/atomic"
	"testing"
)

var x int64

func TestOrder(t *testing.T) {
	var done atomic.Bool
	var started atomic.Int32
	var wg sync.WaitGroup
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() { // readers: spin on x, as a sync.Map's readers do on its root
			defer wg.Done()
			started.Add(1)
			for !done.Load() {
				atomic.LoadInt64(&x)
			}
		}()
	}
	var writers sync.WaitGroup
	for w := 0; w < 2; w++ {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for started.Load() < 3 {
			}
			for i := 0; i < 3000; i++ {
				switch i % 3 {
				case 0:
					atomic.AddInt64(&x, 1)
				case 1:
					atomic.SwapInt64(&x, atomic.LoadInt64(&x)+2)
				default:
					v := atomic.LoadInt64(&x)
					atomic.CompareAndSwapInt64(&x, v, v+3)
				}
			}
		}()
	}
	writers.Wait()
	done.Store(true)
	wg.Wait()
}
`

// TestRecordAtomicOrder: every recorded atomic on the contended address
// reads the value that the change before it in the trace left (a load's
// value; a read-modify-write's old value; a failed compare-and-swap is a
// load). A load numbered out of its real order with a change reads a
// value from the wrong side of it.
func TestRecordAtomicOrder(t *testing.T) {
	skipIfCannotRecord(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/order\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "order_test.go"), []byte(atomicOrderTest), 0o644)
	opts := RecordOptions{Dir: dir, NoFile: true, KeepLocal: true, Timeout: time.Minute, MaxEvents: -1}
	res, err := Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	// The contended address: the one with the most changes (not the most
	// atomics: the writers' spin on started until the readers run can
	// load started more often than anything touches x).
	count := map[uint64]int{}
	for _, e := range tr.Events {
		if e.Op == OpAtomicStore || e.Op == OpAtomicRMW {
			count[e.Addr]++
		}
	}
	var x uint64
	for a, n := range count {
		if n > count[x] {
			x = a
		}
	}
	var cur uint64
	known := false
	loads, changes, bad := 0, 0, 0
	for i, e := range tr.Events {
		if e.Addr != x {
			continue
		}
		value, old := tr.Value(i)
		switch e.Op {
		case OpAtomicLoad:
			loads++
			if known && value != cur {
				bad++
				if bad <= 5 {
					t.Errorf("event %d (goroutine %d) loads %d where the last change left %d", i, e.G, value, cur)
				}
			}
			cur, known = value, true
		case OpAtomicStore, OpAtomicRMW:
			changes++
			if e.Op == OpAtomicRMW && known && old != cur {
				bad++
				if bad <= 5 {
					t.Errorf("event %d (goroutine %d) changes %d to %d where the last change left %d", i, e.G, old, value, cur)
				}
			}
			cur, known = value, true
		}
	}
	// 6,000 changes (a few compare-and-swaps may fail and are loads),
	// and the readers' loads while the writers run.
	if changes < 5000 || loads < 1000 {
		t.Errorf("%d changes and %d loads recorded on the contended address; want about 6,000 and many more", changes, loads)
	}
	if bad > 0 {
		t.Errorf("%d of %d atomics out of order", bad, loads+changes)
	}
	t.Logf("%d changes, %d loads", changes, loads)
}
