// This file holds the end-to-end test of a blocking cycle longer than a
// pattern key's sites (predict/deadlock_cycles.go, longKey; issue 32
// item 4): a ring of five pipelines, ten goroutines, each sender holding
// its lock across an unbuffered send whose receiver takes the next
// pipeline's lock before it receives. The recorded run lets every
// receiver take and let go of its lock first (the senders sleep) and
// nothing hangs; in another schedule every sender holds its lock and
// waits for its receiver, every receiver waits for the next sender's
// lock. The fixed twin sends after unlocking.

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

const cycleRingModule = `package cyc

import (
	"sync"
	"testing"
	"time"
)

const n = 5

type stage struct {
	mu   sync.Mutex
	seen int
	out  chan int
}

// send hands v to the stage's receiver.
func (s *stage) send(v int) {
SEND
}

// recv notes the next stage, then takes a value.
func (s *stage) recv(next *stage) int {
	next.mu.Lock()
	next.seen++
	next.mu.Unlock()
	return <-s.out
}

func TestRing(t *testing.T) {
	var stages [n]stage
	for i := range stages {
		stages[i].out = make(chan int)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if stages[i].recv(&stages[(i+1)%n]) != i {
				t.Error("wrong value")
			}
		}()
		go func() {
			defer wg.Done()
			time.Sleep(20 * time.Millisecond)
			stages[i].send(i)
		}()
	}
	wg.Wait()
}
`

func TestBlockingCycleLong(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	for _, tc := range []struct {
		name, send string
		want       bool
	}{
		{"every sender holds its lock", "\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\ts.out <- v", true},
		{"senders unlock first", "\ts.mu.Lock()\n\ts.seen++\n\ts.mu.Unlock()\n\ts.out <- v", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(cycleRingModule, "SEND", tc.send, 1)
			f, ok := deadlockTwin(t, "example.com/cyc", "cyc_test.go", src, tc.want)
			if !ok {
				return
			}
			send := "cyc_test.go:" + strconv.Itoa(lineOf(src, "s.out <- v")) + " send"
			lock := "cyc_test.go:" + strconv.Itoa(lineOf(src, "next.mu.Lock()")) + " lock"
			got := accessSites(&f)
			sends, locks := 0, 0
			for _, a := range got {
				switch a {
				case send:
					sends++
				case lock:
					locks++
				}
			}
			if sends != 5 || locks != 5 {
				t.Errorf("blocked operations %v, want five sends at %s and five locks at %s", got, send, lock)
			}
			if s := report.CycleSentence(&f, filepath.Base); !strings.HasSuffix(s, "a cycle of 10 goroutines") {
				t.Errorf("cycle sentence %q, want one round 10 goroutines", s)
			}
		})
	}
}
