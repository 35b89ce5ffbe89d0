// This file holds the end-to-end test of a lock-order deadlock through
// five goroutines and five locks, longer than the lock-order layer's
// cycles (maxCycle, four locks), which SPDOffline (predict's
// deadlock_spd.go) proves: philosopher i takes fork i, then fork i+1 mod
// 5. The recorded run, ordered by sleeps, seats them one after another
// and nothing hangs; in another schedule each holds its first fork and
// waits for the next one's. The fixed twin's last philosopher takes its
// forks in the other order, as every other does (the lower first).

package check

import (
	"strconv"
	"strings"
	"testing"
)

const cycle5Module = `package dine

import (
	"sync"
	"testing"
	"time"
)

var forks [5]sync.Mutex

var meals [5]int

// eat takes fork a, then fork b.
func eat(i, a, b int) {
	forks[a].Lock()
	forks[b].Lock()
	meals[i]++
	forks[b].Unlock()
	forks[a].Unlock()
}

func TestDine(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 20 * time.Millisecond)
			a, b := i, (i+1)%5
			ORDER
			eat(i, a, b)
		}(i)
	}
	wg.Wait()
}
`

func TestDeadlockFivePhilosophers(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	for _, tc := range []struct {
		name, order string
		want        bool
	}{
		{"each takes its left fork first", "_ = 0", true},
		{"the lower fork first", "if a > b {\n\t\t\t\ta, b = b, a\n\t\t\t}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(cycle5Module, "ORDER", tc.order, 1)
			rep := recordModule(t, testModule(t, "example.com/dine", "dine_test.go", src))
			passed(t, rep)
			f, ok := twinFinding(t, rep, tc.want)
			if !ok {
				return
			}
			if f.Kind != "deadlock" || !f.Predicted || len(f.Witness) == 0 {
				t.Fatalf("finding %+v, want a predicted deadlock with a witness", f)
			}
			got := accessSites(&f)
			lock := "dine_test.go:" + strconv.Itoa(lineOf(src, "forks[b].Lock()")) + " lock"
			if len(got) < 5 {
				t.Fatalf("blocked operations %v, want five", got)
			}
			for _, s := range got[:5] {
				if s != lock {
					t.Errorf("blocked operations %v, want five of %s", got, lock)
					break
				}
			}
		})
	}
}
