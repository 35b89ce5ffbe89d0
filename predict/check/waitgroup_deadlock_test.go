// This file holds the end-to-end test of issue 32's WaitGroup deadlock:
// a WaitGroup.Wait made while holding a mutex that the goroutine doing
// the Done takes first is predicted from a run that does not hang, with
// a witness the checker replayed; its fixed twin gives no finding.

package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

// waitUnderLockSrc is a store whose Flush waits for the pending writes
// while holding the store's mutex, which each write takes before its
// Done. The test sleeps before Flush, so that in the recorded run the
// write finished first and nothing hung; the sleep orders nothing.
// FLUSH is replaced by Flush's body.
const waitUnderLockSrc = `package p

import (
	"sync"
	"testing"
	"time"
)

type store struct {
	mu      sync.Mutex
	pending sync.WaitGroup
	n       int
}

func (s *store) write() {
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		s.mu.Lock() // blocked
		s.n++
		s.mu.Unlock()
	}()
}

func (s *store) Flush() int {
FLUSH
}

func TestFlush(t *testing.T) {
	s := &store{}
	s.write()
	time.Sleep(100 * time.Millisecond)
	if s.Flush() != 1 {
		t.Error("lost write")
	}
}
`

const (
	waitUnderLockBug = `	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending.Wait() // wait
	return s.n`
	waitUnderLockFix = `	s.pending.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n`
)

// TestWaitGroupDeadlockPredicted: the Wait under the mutex is a predicted
// deadlock naming the Wait and the write's Lock, in SARIF too; with Wait
// before Lock there is no finding of any kind.
func TestWaitGroupDeadlockPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	t.Run("bug", func(t *testing.T) {
		src := strings.Replace(waitUnderLockSrc, "FLUSH", waitUnderLockBug, 1)
		rep, dir := recordOne(t, src)
		onePredictedDeadlock(t, rep, src, [2]string{"wait", "lock"}, [2]string{"// wait", "// blocked"})
		var b bytes.Buffer
		if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: dir}); err != nil {
			t.Fatal(err)
		}
		sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
		if !strings.Contains(b.String(), `"ruleId": "deadlock"`) {
			t.Error("SARIF has no deadlock result")
		}
	})
	t.Run("fixed", func(t *testing.T) {
		noFinding(t, strings.Replace(waitUnderLockSrc, "FLUSH", waitUnderLockFix, 1))
	})
}
