// This file tests the recorder's leaving out of the atomics the converter
// ignores (recorder.c, "atomics the converter drops"; classify.go,
// recorderDrops) on a real recording.

package trace_test

import (
	"slices"
	"testing"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

// atomdropTest uses every primitive whose atomics the converter reads by
// their frames: sync.Map (left out by the recorder), Cond (its
// copyChecker's, left out), Mutex (kept: they become reads), RWMutex and
// WaitGroup (kept: their race annotations take their stack), Once (kept:
// Once's events) and a user's atomics (kept), some at a sync.Map's
// address, and a goroutine whose only atomics are sync.Map's. It runs on
// one thread, and its checks fail if an atomic the recorder only performs
// is performed wrong. Its events at its own lines come in one order in
// every schedule (the goroutine's all come before main's receive), so
// that two recordings can be compared event by event.
const atomdropTest = `package atomdrop

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

var global sync.Map

func TestPrimitives(t *testing.T) {
	var m sync.Map
	var mu sync.Mutex
	var rw sync.RWMutex
	var once sync.Once
	var wg sync.WaitGroup
	var n atomic.Int32
	cond := sync.NewCond(&mu)
	total := 0
	for i := 0; i < 200; i++ {
		m.Store(i, i)
		if v, ok := m.Load(i); !ok || v.(int) != i {
			t.Fatalf("Load(%d) = %v, %v", i, v, ok)
		}
		rw.RLock()
		_ = total
		rw.RUnlock()
		mu.Lock()
		total++
		cond.Signal()
		mu.Unlock()
		once.Do(func() { n.Add(100) })
		n.Add(1)
		if !m.CompareAndSwap(i, i, i+1) {
			t.Fatalf("CompareAndSwap(%d)", i)
		}
		if v, loaded := m.LoadOrStore(i+1000, i); loaded || v.(int) != i {
			t.Fatalf("LoadOrStore(%d) = %v, %v", i+1000, v, loaded)
		}
		m.Delete(i + 1000)
		global.Store(i%7, i)
		// A user's atomic at an address inside sync.Map's own memory.
		p := (*int32)(unsafe.Pointer(&m))
		atomic.AddInt32(p, 0)
	}
	seen := 0
	m.Range(func(k, v any) bool { seen++; return true })
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		var local sync.Map
		local.Store(1, 1)
		local.Load(1)
		global.Load(3)
		wg.Done() // before close: main's receive, then, orders every event after it
		close(done)
	}()
	<-done
	wg.Wait()
	mu.Lock()
	cond.Broadcast()
	mu.Unlock()
	if seen != 200 || n.Load() != 300 || total != 200 {
		t.Fatalf("seen %d, n %d, total %d", seen, n.Load(), total)
	}
}
`

// TestRecordAtomicDrop records atomdropTest with the recorder's leaving
// out on (Record's default) and off (AtomicDropEnv=0): the spool without
// them holds no atomic the converter ignores as the recorder's (it would
// count them, ConvertOptions.RecDropped), the one with them some, and the
// test's events at its own lines (the user's atomics, Once's, the
// Mutex's reads, the locks, the WaitGroup's) are the same in both
// (sync.Map's own vary with its random hash seed). A recorder that left
// out a user's atomic, Once's or Mutex's fails that; one that kept
// sync.Map's fails the first.
func TestRecordAtomicDrop(t *testing.T) {
	skipIfCannotRecord(t)
	dir := testModule(t, "atomdrop", atomdropTest)
	run := func(env ...string) (ops []string, dropped int, chunks uint64) {
		t.Helper()
		opts := RecordOptions{Dir: dir, NoFile: true, Env: append(slices.Clone(deterministicEnv), env...)}
		b, res, spool := recordKeepingSpool(t, opts)
		if res.Outcome.Result != "pass" {
			t.Fatalf("%v: the test's outcome %+v", env, res.Outcome)
		}
		c, err := ReadSpoolCounters(spool)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ConvertAgain(spool, b.Path, b.Shadow(), res.Trace.Header, nil, 0, ConvertOptions{RecDropped: &dropped}); err != nil {
			t.Fatal(err)
		}
		return userOps(res.Trace, "TestPrimitives"), dropped, c.NextChunk
	}
	on, droppedOn, chunksOn := run()
	off, droppedOff, chunksOff := run(AtomicDropEnv + "=0")
	if droppedOn != 0 {
		t.Errorf("the recorder wrote %d atomics the converter ignores as the recorder's (recorderDrops)", droppedOn)
	}
	if droppedOff < 200*5 {
		t.Errorf("with %s=0 the recorder wrote %d atomics the converter ignores: want sync.Map's and Cond's, over 1000", AtomicDropEnv, droppedOff)
	}
	if len(on) < 200*5 || !slices.Equal(on, off) {
		i := 0
		for i < min(len(on), len(off)) && on[i] == off[i] {
			i++
		}
		t.Errorf("the test's events differ with the recorder's leaving out and without (%d and %d of them), from the %d-th: %q and %q",
			len(on), len(off), i, on[i:min(i+5, len(on))], off[i:min(i+5, len(off))])
	}
	t.Logf("%d atomics left out; chunks written: %d, and %d without; %d events at the test's lines", droppedOff, chunksOn, chunksOff, len(on))
}
