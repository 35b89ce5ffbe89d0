// This file tests runtimegs.go: finalizers and timer functions are ordered
// as the race detector orders them and belong to the test that set them.

package trace_test

import (
	"path/filepath"
	"testing"

	. "github.com/seer-tools/seer/trace"
)

func TestRecordRuntimeGoroutines(t *testing.T) {
	skipIfCannotRecord(t)
	tr := recordTxtar(t, "testdata/record/runtime.txtar").Trace
	writer := func(name string) (int, *Goroutine) {
		for i := range tr.Events {
			e := &tr.Events[i]
			if e.Op == OpWrite && tr.ObjectName(e.Obj) == name {
				return i, tr.Goroutine(e.G)
			}
		}
		t.Fatalf("no write of %s", name)
		return 0, nil
	}

	// The finalizer: its goroutine belongs to TestFinalizer and acquires
	// what every goroutine did before, here what the test's goroutine
	// released (it was running) and the end of the goroutine that set the
	// finalizer (it had ended).
	fin, fg := writer("example.com/rec.fin")
	if fg.Test != "TestFinalizer" {
		t.Errorf("the finalizer's goroutine belongs to test %q, want TestFinalizer", fg.Test)
	}
	var tester, setter GoID
	for i := range tr.Events {
		e := &tr.Events[i]
		if g := tr.Goroutine(e.G); g.Test == "TestFinalizer" && e.Op == OpGo && tester == 0 {
			tester, setter = e.G, GoID(e.Peer)
		}
	}
	acquired := map[ObjID]bool{}
	joined := map[GoID]bool{}
	for i := 0; i < fin; i++ {
		e := &tr.Events[i]
		switch {
		case e.G == fg.ID && e.Op == OpAcquire:
			acquired[e.Obj] = true
		case e.G == fg.ID && e.Op == OpJoin:
			joined[GoID(e.Peer)] = true
		}
	}
	released := false
	for i := 0; i < fin; i++ {
		if e := &tr.Events[i]; e.G == tester && e.Op == OpReleaseMerge && acquired[e.Obj] {
			released = true
		}
	}
	if !released {
		t.Errorf("the finalizer acquires nothing that test goroutine g%d released", tester)
	}
	if !joined[setter] {
		t.Errorf("the finalizer does not join g%d, which set it and ended", setter)
	}

	// The timer's function: it belongs to TestAfterFunc and was created
	// where time.AfterFunc was called.
	_, tg := writer("example.com/rec.timer")
	if tg.Test != "TestAfterFunc" {
		t.Errorf("the timer function's goroutine belongs to test %q, want TestAfterFunc", tg.Test)
	}
	site, ok := UserFrame(tr.Stack(tg.Create), tr.Header.GOROOT)
	if !ok || filepath.Base(site.File) != "rec_test.go" || site.Line != 26 {
		t.Errorf("the timer function's goroutine was created at %v, want rec_test.go:26", tr.Stack(tg.Create))
	}
}
