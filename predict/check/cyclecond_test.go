// This file holds the end-to-end test of a blocking cycle through a
// Cond.Wait (predict/deadlock_cycles.go, reqCond; issue 32 item 4): a
// goroutine waits on g.cond, in a loop over its condition, while it
// holds g.outer, and the goroutine that signals takes g.outer before it
// does. The recorded run, ordered by sleeps, lets the signaller take and
// let go of g.outer first, then the waiter waits and is signalled, and
// nothing hangs (the signaller's sleep is long enough for the waiter
// to reach its Wait first on a loaded machine: with 60 ms, a CI run
// beside four others once signalled before the waiter waited, and the
// run had no Wait to predict from); in another schedule the waiter holds g.outer while it
// waits and the signaller waits for g.outer, so the signal never comes.
// The fixed twin lets g.outer go before it waits.

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

const cycleCondModule = `package cyc

import (
	"sync"
	"testing"
	"time"
)

type gate struct {
	outer  sync.Mutex
	mu     sync.Mutex
	cond   *sync.Cond
	ready  bool
	audits int
}

// await waits for the gate to open.
func (g *gate) await() {
AWAIT
}

// open audits, then opens the gate.
func (g *gate) open() {
	g.outer.Lock()
	g.audits++
	g.outer.Unlock()
	time.Sleep(250 * time.Millisecond)
	g.mu.Lock()
	g.ready = true
	g.cond.Signal()
	g.mu.Unlock()
}

func TestGate(t *testing.T) {
	g := &gate{}
	g.cond = sync.NewCond(&g.mu)
	done := make(chan bool)
	go func() {
		g.open()
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	g.await()
	<-done
}
`

func TestBlockingCycleCond(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	const wait = "\tg.mu.Lock()\n\tfor !g.ready {\n\t\tg.cond.Wait()\n\t}\n\tg.mu.Unlock()"
	for _, tc := range []struct {
		name, await string
		want        bool
	}{
		{"waits holding outer", "\tg.outer.Lock()\n\tdefer g.outer.Unlock()\n\tg.audits++\n" + wait, true},
		{"lets outer go first", "\tg.outer.Lock()\n\tg.audits++\n\tg.outer.Unlock()\n" + wait, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(cycleCondModule, "AWAIT", tc.await, 1)
			f, ok := deadlockTwin(t, "example.com/cyc", "cyc_test.go", src, tc.want)
			if !ok {
				return
			}
			want := []string{
				"cyc_test.go:" + strconv.Itoa(lineOf(src, "g.cond.Wait()")) + " cond-wait",
				"cyc_test.go:" + strconv.Itoa(lineOf(src, "g.outer.Lock()\n\tg.audits++\n\tg.outer.Unlock()\n\ttime")) + " lock",
			}
			if got := accessSites(&f); len(got) < 2 || !sameSet(got[:2], want) {
				t.Errorf("blocked operations %v, want %v first", got, want)
			}
			s := report.CycleSentence(&f, filepath.Base)
			if !strings.Contains(s, "waits to be woken on g.cond") || !strings.HasSuffix(s, "a cycle of 2 goroutines") {
				t.Errorf("cycle sentence %q, want the Wait and one round 2 goroutines", s)
			}
		})
	}
}
