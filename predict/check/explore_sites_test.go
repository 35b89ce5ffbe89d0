// This file tests siteMemo and the coverage it names.

package check

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

// lockTrace is a test goroutine that takes mutex a at line 10 and, n
// times, mutex b at line 20 inside it, then a lock from a stack with no
// user frame.
func lockTrace(t *testing.T, n int) *trace.Trace {
	const goroot = "/goroot"
	b := trace.NewBuilder(trace.Header{GOROOT: goroot})
	st := b.Stacks()
	tRunner := b.Goroutine(0, st.Intern([]trace.Frame{{Func: "testing.(*T).Run", File: goroot + "/src/testing/testing.go", Line: 1997}}))
	b.SetGoroutine(tRunner, "TestLocks", "")
	a := b.AddObject(trace.Object{Kind: trace.ObjMutex}, "a")
	m := b.AddObject(trace.Object{Kind: trace.ObjMutex}, "b")
	at := func(line int) trace.StackID {
		return st.Intern([]trace.Frame{{Func: "example.com/l.TestLocks", File: "/m/l_test.go", Line: line}})
	}
	b.Add(trace.Event{G: tRunner, Op: trace.OpLock, Obj: a, Stack: at(10)})
	for range n {
		b.Add(trace.Event{G: tRunner, Op: trace.OpLock, Obj: m, Stack: at(20)})
		b.Add(trace.Event{G: tRunner, Op: trace.OpUnlock, Obj: m, Stack: at(21)})
	}
	b.Add(trace.Event{G: tRunner, Op: trace.OpUnlock, Obj: a, Stack: at(11)})
	b.Add(trace.Event{G: tRunner, Op: trace.OpLock, Obj: a, Stack: st.Intern([]trace.Frame{{Func: "sync.(*Mutex).Lock", File: goroot + "/src/sync/mutex.go", Line: 5}})})
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestSiteMemo(t *testing.T) {
	tr := lockTrace(t, 100)
	m := newSiteMemo(tr)
	for i := range tr.Events {
		if got, want := m.at(i), runSite(tr, i); got != want {
			t.Errorf("event %d: at = %q, runSite = %q", i, got, want)
		}
	}
	// One name per stack, however many events share it.
	if len(m.sites) != 5 {
		t.Errorf("named %d stacks, want 5", len(m.sites))
	}
}

func TestCoverageLockOrder(t *testing.T) {
	ex := newExplorer(Options{}, "", "")
	if n := ex.coverage(lockTrace(t, 100)); n != 1 {
		t.Errorf("coverage added %d, want 1 (%v)", n, ex.cov)
	}
	if want := "lock /m/l_test.go:10 > /m/l_test.go:20"; !ex.cov[want] {
		t.Errorf("coverage %v, want %q", ex.cov, want)
	}
	if n := ex.coverage(lockTrace(t, 3)); n != 0 {
		t.Errorf("the same orders again added %d, want 0", n)
	}
}
