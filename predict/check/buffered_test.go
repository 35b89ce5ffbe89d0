// This file holds the end-to-end test of a deadlock on a buffered
// channel: a goroutine holds h.mu while it receives from a buffered
// channel whose sender takes h.mu before it sends. The recorded run,
// ordered by a sleep, puts the value first and nothing hangs; in another
// schedule the receiver holds h.mu on an empty buffer and the sender
// waits for h.mu. The fixed twin receives after unlocking.

package check

import (
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

const bufferedModule = `package buf

import (
	"sync"
	"testing"
	"time"
)

type queue struct {
	mu  sync.Mutex
	n   int
	out chan int
}

// take takes a value and counts it.
func (q *queue) take() int {
	TAKE
}

// put counts v and queues it.
func (q *queue) put(v int) {
	q.mu.Lock()
	q.n++
	q.mu.Unlock()
	q.out <- v
}

func TestQueue(t *testing.T) {
	q := &queue{out: make(chan int, 1)}
	done := make(chan bool)
	go func() {
		q.put(1)
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	if v := q.take(); v != 1 {
		t.Errorf("got %d", v)
	}
	<-done
}
`

func TestBufferedDeadlockPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	for _, tc := range []struct {
		name, take string
		want       bool
	}{
		{"receive under the lock", "q.mu.Lock()\n\tdefer q.mu.Unlock()\n\tq.n--\n\treturn <-q.out", true},
		{"receive after unlocking", "q.mu.Lock()\n\tq.n--\n\tq.mu.Unlock()\n\treturn <-q.out", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(bufferedModule, "TAKE", tc.take, 1)
			rep := recordModule(t, testModule(t, "example.com/buf", "buf_test.go", src))
			passed(t, rep)
			f, ok := twinFinding(t, rep, tc.want)
			if !ok {
				return
			}
			if f.Kind != "deadlock" || !f.Predicted || len(f.Witness) == 0 || report.Title(&f) != "deadlock" {
				t.Fatalf("finding %+v, want a predicted deadlock with a witness", f)
			}
			got := accessSites(&f)
			want := "buf_test.go:" + strconv.Itoa(lineOf(src, "return <-q.out")) + " recv, buf_test.go:" + strconv.Itoa(lineOf(src, "q.mu.Lock()\n\tq.n++")) + " lock"
			if strings.Join(got, ", ") != want {
				t.Errorf("blocked operations %v, want %s", got, want)
			}
		})
	}
}
