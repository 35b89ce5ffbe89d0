// This file holds the end-to-end test of a read/write cycle through two
// RWMutexes (predict/deadlock_cycles.go, issue 32 item 2): a reader
// holds a.RLock while it read-locks b; another goroutine holds b.RLock
// while it locks a; a third locks b. In the schedule where the writer
// of b comes between, the first reader's RLock of b waits behind it
// (sync.RWMutex prefers writers), the writer waits for the second
// reader, and that one for a, which the first reader holds. The recorded
// run, ordered by sleeps, takes the second reader's sections first, then
// the writer's, and nothing hangs. The fixed twin lets a go before it
// read-locks b. (The sleeps leave room for a loaded machine: with 20 ms,
// CI under load once ran the writer before move, and both's count came
// out 2, which fails the recorded test.)

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

const rwCycleModule = `package rwc

import (
	"sync"
	"testing"
	"time"
)

type index struct {
	a, b   sync.RWMutex
	na, nb int
}

// both reads a's count, then b's.
func (x *index) both() int {
BOTH
}

// move reads b's count into a's.
func (x *index) move() {
	x.b.RLock()
	defer x.b.RUnlock()
	x.a.Lock()
	x.na = x.nb
	x.a.Unlock()
}

// bump writes b's count.
func (x *index) bump() {
	x.b.Lock()
	x.nb++
	x.b.Unlock()
}

func TestRWCycle(t *testing.T) {
	x := &index{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		time.Sleep(100 * time.Millisecond)
		x.bump()
	}()
	go func() {
		defer wg.Done()
		time.Sleep(250 * time.Millisecond)
		if x.both() != 1 {
			t.Error("count")
		}
	}()
	x.move()
	wg.Wait()
}
`

func TestRWMutexCyclePredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	for _, tc := range []struct {
		name, both string
		want       bool
	}{
		{"b read-locked under a", "\tx.a.RLock()\n\tdefer x.a.RUnlock()\n\tx.b.RLock()\n\tdefer x.b.RUnlock()\n\treturn x.na + x.nb", true},
		{"a let go first", "\tx.a.RLock()\n\tn := x.na\n\tx.a.RUnlock()\n\tx.b.RLock()\n\tdefer x.b.RUnlock()\n\treturn n + x.nb", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(rwCycleModule, "BOTH", tc.both, 1)
			f, ok := deadlockTwin(t, "example.com/rwc", "rwc_test.go", src, tc.want)
			if !ok {
				return
			}
			line := func(text string) string { return "rwc_test.go:" + strconv.Itoa(lineOf(src, text)) }
			want := []string{
				line("x.b.RLock()\n\tdefer x.b.RUnlock()\n\treturn") + " rlock", // behind the writer
				line("x.b.Lock()") + " lock",                                    // for move's read of b
				line("x.a.Lock()") + " lock",                                    // for both's read of a
			}
			got := accessSites(&f)
			if len(got) < len(want) || !sameSet(got[:len(want)], want) {
				t.Errorf("blocked operations %v, want %v first", got, want)
			}
			if s := report.CycleSentence(&f, filepath.Base); !strings.Contains(s, "behind goroutine") || !strings.HasSuffix(s, "a cycle of 3 goroutines") {
				t.Errorf("cycle sentence %q, want a read behind a writer in a cycle of 3", s)
			}
		})
	}
}
