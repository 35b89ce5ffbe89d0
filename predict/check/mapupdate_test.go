// This file holds the end-to-end test of a map's updates as reads of the
// map (trace's mapUpdateFunc): a predicted schedule may not move a map's
// insert after a delete that an iteration then reads past.

package check

import (
	"context"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

// TestMapUpdatesKeepOrder records the shape of pond's futures (context's
// children map): the test goroutine allocates a node and inserts it in a
// map under a mutex; another goroutine, later, deletes an older node
// under the mutex and then iterates the map under it, reading each node
// it finds. The read of the new node is ordered after its allocation by
// what the iteration found, which the race runtime does not see (it sees
// the map's header alone); seer used to predict a race there, with a
// witness that ran the delete and the iteration before the insert.
func TestMapUpdatesKeepOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModuleFiles(t, "example.com/p", map[string]string{"p_test.go": `package p

import (
	"sync"
	"testing"
	"time"
)

type node struct{ v int }

func TestChildren(t *testing.T) {
	var mu sync.Mutex
	old := &node{v: 1}
	children := map[*node]bool{old: true}
	done := make(chan int)
	go func() {
		time.Sleep(50 * time.Millisecond) // no synchronisation: only the run's order
		mu.Lock()
		delete(children, old)
		mu.Unlock()
		sum := 0
		mu.Lock()
		for n := range children {
			sum += n.v
		}
		mu.Unlock()
		done <- sum
	}()
	n := &node{v: 2}
	mu.Lock()
	children[n] = true
	mu.Unlock()
	if sum := <-done; sum != 2 {
		t.Fatalf("sum %d, want 2", sum)
	}
}
`})
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	passed(t, rep)
	for _, f := range rep.Findings {
		if f.Kind == report.KindRace {
			t.Errorf("race %+v: an iteration's read of what an insert added, which no schedule that keeps the map's updates in order races", f.Accesses)
		}
	}
}
