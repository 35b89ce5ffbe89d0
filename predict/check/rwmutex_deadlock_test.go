// This file holds the end-to-end test of issue 32's RWMutex deadlock: a
// recursive RLock with a writer that can wait in between is predicted
// from a run that does not hang, with a witness the checker replayed;
// its fixed twin (the inner call takes no lock) gives no finding.

package check

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// recursiveRLockSrc is a registry whose total read-locks it and calls
// get, which read-locks it again. The test sleeps before total, so that in the recorded run the writer's section
// came first and nothing hung; the sleep orders nothing. GET is replaced
// by the inner call.
const recursiveRLockSrc = `package p

import (
	"sync"
	"testing"
	"time"
)

type registry struct {
	mu    sync.RWMutex
	names map[string]int
}

func (r *registry) get(name string) int {
	r.mu.RLock() // inner
	defer r.mu.RUnlock()
	return r.names[name]
}

func (r *registry) total(names ...string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n := 0
	for _, name := range names {
		n += GET
	}
	return n
}

func (r *registry) set(name string, v int) {
	r.mu.Lock() // writer
	defer r.mu.Unlock()
	r.names[name] = v
}

func TestRegistry(t *testing.T) {
	r := &registry{names: map[string]int{}}
	done := make(chan bool)
	go func() {
		r.set("a", 1)
		done <- true
	}()
	time.Sleep(100 * time.Millisecond)
	if r.total("a", "b") != 1 {
		t.Error("lost set")
	}
	<-done
}
`

// TestRecursiveRLockPredicted: the recursive RLock is a predicted
// deadlock naming the inner RLock and the writer's Lock; with the inner
// call reading the map under the outer lock, there is no finding of any
// kind.
func TestRecursiveRLockPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	t.Run("bug", func(t *testing.T) {
		src := strings.Replace(recursiveRLockSrc, "GET", "r.get(name)", 1)
		rep, _ := recordOne(t, src)
		f := onePredictedDeadlock(t, rep, src, [2]string{"rlock", "lock"}, [2]string{"// inner", "// writer"})
		if got := report.Title(&f); got != "deadlock" {
			t.Errorf("title %q, want deadlock (no lock-order cycle)", got)
		}
	})
	t.Run("fixed", func(t *testing.T) {
		noFinding(t, strings.Replace(recursiveRLockSrc, "GET", "r.names[name]", 1))
	})
}
