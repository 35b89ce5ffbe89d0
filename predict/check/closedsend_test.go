// This file holds the end-to-end tests of issue 32's predicted send on a
// closed channel from another order of critical sections (predict's
// misuse_reorder.go): a Close that closes a channel under the mutex a
// sender takes before it sends, with no check of a closed flag inside
// the section. In the recorded runs the sender goes first (Close waits
// on a sleep, which orders nothing), so nothing panics; seer predicts
// the panic of the other order. Each has a fixed twin, which checks the
// flag inside the section, on which seer says nothing.

package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// closedSendCases are the buggy programs and their fixed twins: CHECK is
// replaced by nothing in the buggy one and by fix in the fixed one.
var closedSendCases = []struct {
	test, src, fix string
	close, send    string // the lines' texts
}{
	{
		// The shape: a buffered send under the mutex that Close
		// takes to close the channel and set the flag.
		test: "TestSink",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

type sink struct {
	mu     sync.Mutex
	ch     chan int
	closed bool
}

// Send queues v.
func (s *sink) Send(v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	CHECK
	s.ch <- v // send
}

// Close stops the sink.
func (s *sink) Close() {
	s.mu.Lock()
	close(s.ch) // close
	s.closed = true
	s.mu.Unlock()
}

func TestSink(t *testing.T) {
	s := &sink{ch: make(chan int, 1)}
	done := make(chan bool)
	go func() { s.Send(1); done <- true }()
	time.Sleep(100 * time.Millisecond)
	s.Close()
	<-done
}
`,
		fix:   "if s.closed {\n\t\treturn\n\t}",
		close: "close(s.ch) // close", send: "s.ch <- v // send",
	},
	{
		// A non-blocking send in a select, whose flag is an atomic read
		// before the section: the check and the send are not atomic.
		// Fixed by checking it inside the section.
		test: "TestQueue",
		src: `package p

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type queue struct {
	mu     sync.Mutex
	items  chan int
	closed atomic.Bool
}

// Offer queues v unless the queue is full or closed.
func (q *queue) Offer(v int) bool {
	OUTSIDE
	q.mu.Lock()
	defer q.mu.Unlock()
	CHECK
	select {
	case q.items <- v: // send
		return true
	default:
		return false
	}
}

// Close stops the queue.
func (q *queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed.Store(true)
	close(q.items) // close
}

func TestQueue(t *testing.T) {
	q := &queue{items: make(chan int, 4)}
	done := make(chan bool)
	go func() { q.Offer(1); done <- true }()
	time.Sleep(100 * time.Millisecond)
	q.Close()
	<-done
}
`,
		fix:   "if q.closed.Load() {\n\t\treturn false\n\t}",
		close: "close(q.items) // close", send: "case q.items <- v: // send",
	},
}

func TestClosedSendPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	buggy := map[string]string{}
	fixed := map[string]string{}
	for _, tc := range closedSendCases {
		name := strings.ToLower(tc.test) + "_test.go"
		buggy[name] = strings.NewReplacer("\tOUTSIDE", "\t"+tc.fix, "\tCHECK\n", "").Replace(tc.src)
		fixed[name] = strings.NewReplacer("\tOUTSIDE\n", "", "CHECK", tc.fix).Replace(tc.src)
	}
	t.Run("buggy", func(t *testing.T) {
		rep, got := recordPassing(t, buggy)
		for _, tc := range closedSendCases {
			src := buggy[strings.ToLower(tc.test)+"_test.go"]
			fs := got[tc.test]
			if len(fs) != 1 {
				t.Errorf("%s: findings %+v, want one predicted send on a closed channel", tc.test, fs)
				continue
			}
			f := fs[0]
			if f.Kind != report.KindSendOnClosed || !f.Predicted || len(f.Witness) == 0 || len(f.Accesses) != 2 {
				t.Errorf("%s: finding %+v, want a predicted send-on-closed with a witness", tc.test, f)
				continue
			}
			cl, s := f.Accesses[0], f.Accesses[1]
			if cl.Line != lineOf(src, tc.close) || s.Line != lineOf(src, tc.send) {
				t.Errorf("%s: accesses %v, want the close at %d and the send at %d", tc.test, accessSites(&f), lineOf(src, tc.close), lineOf(src, tc.send))
			}
			if len(report.ReorderedSentences(&f, filepath.Base)) == 0 {
				t.Errorf("%s: no sentence names the reordered critical sections: %+v", tc.test, f.Reordered)
			}
		}
		sarifHolds(t, rep, `"ruleId": "send-on-closed"`, "In the recorded run goroutine")
	})
	t.Run("fixed", func(t *testing.T) { fixedClean(t, fixed, len(closedSendCases)) })
}
