// The worker pool of ../bug/pool_test.go, fixed: last is written under
// the lock.

package fixed

import (
	"sync"
	"testing"
	"time"
)

// tally is shared by the workers; last is written without the lock.
type tally struct {
	mu   sync.Mutex
	done int
	last int
}

func work(id int, jobs <-chan int, st *tally, wg *sync.WaitGroup) {
	defer wg.Done()
	if id > 0 {
		time.Sleep(10 * time.Millisecond) // warming up
	}
	for j := range jobs {
		st.mu.Lock()
		st.done++
		st.last = j // fixed: under the lock
		st.mu.Unlock()
	}
}

func TestPool(t *testing.T) {
	jobs := make(chan int, 3)
	for j := 1; j <= 3; j++ {
		jobs <- j
	}
	close(jobs)
	st := &tally{}
	var wg sync.WaitGroup
	for id := 0; id < 2; id++ {
		wg.Add(1)
		go work(id, jobs, st, &wg)
	}
	wg.Wait()
	if st.done != 3 {
		t.Fatal(st.done)
	}
}
