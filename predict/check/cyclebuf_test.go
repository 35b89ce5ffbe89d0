// This file holds the end-to-end test of a blocking cycle through a
// buffered channel (predict/deadlock_cycles.go, witness/bufchan.go;
// issue 32 item 4): a goroutine holds f.mu while it sends twice on a
// channel of capacity 1 whose only receiver takes f.mu before it
// receives. The recorded run, ordered by a sleep, lets the receiver
// take and let go of f.mu first and nothing hangs; in another schedule
// the sender fills the buffer holding f.mu and waits at its second send,
// the receiver waits for f.mu. The run's sends wrap round the buffer's
// one slot, which shows the capacity. The channel's elements are plain
// (its buffer in the channel's own allocation) or pointers (a buffer of
// its own); the fixed twin sends after unlocking.

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

const cycleBufModule = `package cyc

import (
	"sync"
	"testing"
	"time"
)

type feed struct {
	mu  sync.Mutex
	n   int
	out chan ELEM
}

// push counts and queues two values.
func (f *feed) push(a, b ELEM) {
PUSH
}

// pull counts and takes two values.
func (f *feed) pull() (ELEM, ELEM) {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
	a := <-f.out
	return a, <-f.out
}

func TestFeed(t *testing.T) {
	f := &feed{out: make(chan ELEM, 1)}
	var one, two ELEM
	done := make(chan bool)
	go func() {
		time.Sleep(20 * time.Millisecond)
		f.push(one, two)
		done <- true
	}()
	if a, b := f.pull(); a != one || b != two {
		t.Error("out of order")
	}
	<-done
}
`

func TestBlockingCycleBuffered(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	const (
		held   = "\tf.mu.Lock()\n\tdefer f.mu.Unlock()\n\tf.n++\n\tf.out <- a\n\tf.out <- b"
		unheld = "\tf.mu.Lock()\n\tf.n++\n\tf.mu.Unlock()\n\tf.out <- a\n\tf.out <- b"
	)
	src := func(elem, push string) string {
		return strings.NewReplacer("ELEM", elem, "PUSH", push).Replace(cycleBufModule)
	}
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"send on a full buffer under the lock", src("int", held), true},
		{"pointer elements", src("*int", held), true},
		{"send after unlocking", src("int", unheld), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := deadlockTwin(t, "example.com/cyc", "cyc_test.go", tc.src, tc.want)
			if !ok {
				return
			}
			want := []string{
				"cyc_test.go:" + strconv.Itoa(lineOf(tc.src, "f.out <- b")) + " send",
				"cyc_test.go:" + strconv.Itoa(lineOf(tc.src, "f.mu.Lock()\n\tf.n++\n\tf.mu.Unlock()\n\ta :=")) + " lock",
			}
			if got := accessSites(&f); len(got) < 2 || !sameSet(got[:2], want) {
				t.Errorf("blocked operations %v, want %v first", got, want)
			}
			if s := report.CycleSentence(&f, filepath.Base); !strings.HasSuffix(s, "a cycle of 2 goroutines") {
				t.Errorf("cycle sentence %q, want one round 2 goroutines", s)
			}
		})
	}
}
