// This file tests the recorder's stop at the event cap (recorder.c,
// "Stopping at the event cap"): the recorder cuts the run once the records
// it has numbered surely make RecordOptions.MaxEvents events, and the
// converted trace is then the one the converter's own stop at the cap
// gives without it.

package trace_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

// evcapTest makes every kind of record the recorder's count weighs: plain
// accesses (heap and global), Mutex and RWMutex (whose Lock makes two
// acquires and one event), a buffered channel of 4-byte elements (its
// slots 4 bytes apart, as RWMutex's semaphores are), atomics (counted as
// none: sync.Map's make no events, a user's do), go statements and
// goroutine ends, and allocations. It runs with
// GOMAXPROCS=1, no GC and no asynchronous preemption, so that two runs
// record the same records; its checks fail if an atomic the recorder only
// performs past the cut (past_cut) is performed wrong.
const evcapTest = `package evcap

import (
	"sync"
	"sync/atomic"
	"testing"
)

var (
	mu    sync.Mutex
	rw    sync.RWMutex
	total int64
	sink  []int
	m     sync.Map
)

func TestMany(t *testing.T) {
	ch := make(chan int32, 8)
	var n, x atomic.Int64
	var c atomic.Int32
	x.Store(-1)
	var wg sync.WaitGroup
	for i := 0; i < 20000; i++ {
		rw.Lock()
		total++
		rw.Unlock()
		rw.RLock()
		_ = total
		rw.RUnlock()
		mu.Lock()
		total--
		mu.Unlock()
		ch <- int32(i)
		<-ch
		if !c.CompareAndSwap(int32(i), int32(i+1)) || x.Swap(int64(i)) != int64(i-1) || x.Load() != int64(i) {
			t.Fatalf("atomics wrong at %d", i)
		}
		m.Store(i%16, i)
		m.Load(i % 8)
		s := make([]int, 4)
		s[i%4] = i
		sink = s
		if i%500 == 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n.Add(1)
				rw.Lock()
				total++
				rw.Unlock()
			}()
			wg.Wait()
		}
	}
	if v, ok := m.Load(3); total != 40 || n.Load() != 40 || c.Load() != 20000 || !ok || v.(int) != 19987 {
		t.Fatalf("total %d, %d goroutines, c %d, m[3] %v", total, n.Load(), c.Load(), v)
	}
}
`

// TestRecordStopsAtEventCap records one test past a small cap with the
// recorder's stop at the cap, and converts its spool again after the run,
// when the converter sees the recorder's cut from the start and stops
// there if it comes before the cap: the conversion must still reach the
// cap, and give the live conversion's trace byte for byte. A recorder that
// stops too early fails that (checked with a cap below MaxEvents). The
// test is recorded again without the recorder's stop (SEER_EVENT_CAP=0):
// cut at the same count, the recorder writing far more chunks, and the
// test's own events the same up to where the shorter run has them (the
// runtime's start-up varies from run to run, even on one thread, and
// with it how many of the cap's events come before the test). The local
// accesses are kept, so that the trace's tail does not depend on where
// the cap falls (each goroutine's last one is kept at its place).
func TestRecordStopsAtEventCap(t *testing.T) {
	skipIfCannotRecord(t)
	dir := testModule(t, "evcap", evcapTest)
	const max = 30_000
	type recorded struct {
		res   *RecordResult
		spool SpoolCounters
		again *Trace // the spool converted again after the run
		ops   []string
	}
	run := func(capEnv string) recorded {
		t.Helper()
		opts := RecordOptions{Dir: dir, NoFile: true, KeepLocal: true, MaxEvents: max, Env: deterministicEnv}
		if capEnv != "" {
			opts.Env = append(slices.Clone(deterministicEnv), EventCapEnv+"="+capEnv)
		}
		b, res, spool := recordKeepingSpool(t, opts)
		c, err := ReadSpoolCounters(spool)
		if err != nil {
			t.Fatal(err)
		}
		again, _, err := ConvertAgain(spool, b.Path, b.Shadow(), res.Trace.Header, nil, max, ConvertOptions{KeepLocal: true})
		if err != nil {
			t.Fatal(err)
		}
		again.Outcome = res.Trace.Outcome
		return recorded{res, c, again, userOps(res.Trace, "TestMany")}
	}
	// check says whether r's trace holds the run's first max events,
	// converted live and again after the run.
	check := func(name string, r recorded) error {
		res, again := r.res, r.again
		if res.Outcome.Result != "pass" {
			return fmt.Errorf("%s: the test's outcome %+v: want it to pass, its atomics performed past the cut as before", name, res.Outcome)
		}
		if capped := res.Trace.Header.Capped; !res.Cut || res.Trace.Truncated || capped < max || capped > max+8 || res.Events != capped {
			return fmt.Errorf("%s: cut %v, truncated %v, capped at %d, %d events; want the first %d events, cut and not truncated (spool: %+v)",
				name, res.Cut, res.Trace.Truncated, capped, res.Events, max, r.spool)
		}
		if again.Header.Capped != res.Trace.Header.Capped || again.Truncated {
			return fmt.Errorf("%s: converted again after the run, capped at %d (truncated %v); live, at %d (spool: %+v)",
				name, again.Header.Capped, again.Truncated, res.Trace.Header.Capped, r.spool)
		}
		var live, after bytes.Buffer
		if err := WriteTrace(&live, res.Trace); err != nil {
			return err
		}
		if err := WriteTrace(&after, again); err != nil {
			return err
		}
		if !bytes.Equal(live.Bytes(), after.Bytes()) {
			return fmt.Errorf("%s: the trace converted live and again after the run differ", name)
		}
		return nil
	}

	on := run("")
	if err := check("the recorder's stop at the cap", on); err != nil {
		t.Error(err)
	}
	if on.spool.Cut == 0 || on.spool.Overflow != 0 {
		t.Errorf("the recorder did not cut the run at the cap itself: %+v", on.spool)
	}
	off := run("0")
	if err := check("without the recorder's stop", off); err != nil {
		t.Error(err)
	}
	if off.spool.Cut != 0 {
		t.Errorf("SEER_EVENT_CAP=0: the recorder cut the run: %+v", off.spool)
	}
	if on.res.Trace.Header.Capped != off.res.Trace.Header.Capped {
		t.Errorf("capped at %d with the recorder's stop, %d without", on.res.Trace.Header.Capped, off.res.Trace.Header.Capped)
	}
	n := min(len(on.ops), len(off.ops))
	if n < max/2 || !slices.Equal(on.ops[:n], off.ops[:n]) {
		i := 0
		for i < n && on.ops[i] == off.ops[i] {
			i++
		}
		t.Errorf("the test's events differ with the recorder's stop and without (%d and %d of them), from the %d-th: %q and %q", len(on.ops), len(off.ops), i, on.ops[i:min(i+5, n)], off.ops[i:min(i+5, n)])
	}
	if on.spool.NextChunk*2 > off.spool.NextChunk {
		t.Errorf("the recorder wrote %d chunks with its stop at the cap, %d without: want under half", on.spool.NextChunk, off.spool.NextChunk)
	}
	t.Logf("chunks written: %d with the recorder's stop at the cap, %d without", on.spool.NextChunk, off.spool.NextChunk)

	// A recorder that stops too early: the check above fails.
	if err := check("a cap below MaxEvents", run(fmt.Sprint(max/2))); err == nil {
		t.Errorf("a recorder stopped at %d events passes the check for %d", max/2, max)
	} else {
		t.Logf("as it should: %v", err)
	}
}

// deterministicEnv runs a recorded test on one thread, with no GC and no
// asynchronous preemption, so that two runs record the same records.
var deterministicEnv = []string{"GOMAXPROCS=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1"}

// testModule writes a module example.com/name holding src as name_test.go
// and returns its directory.
func testModule(t *testing.T, name, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/"+name+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+"_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// userOps lists the events of test's goroutines at the user's own lines,
// an op and a file:line each: sync.Map's own events, which its random
// hash seed varies from run to run, are left out.
func userOps(tr *Trace, test string) []string {
	var ops []string
	for i := range tr.Events {
		e := &tr.Events[i]
		if tr.Goroutine(e.G).Test != test {
			continue
		}
		if f, user := UserFrame(tr.Stack(e.Stack), tr.Header.GOROOT); user {
			ops = append(ops, fmt.Sprintf("%v %s:%d", e.Op, filepath.Base(f.File), f.Line))
		}
	}
	return ops
}
