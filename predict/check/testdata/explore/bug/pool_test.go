// A worker pool where one worker takes every piece, so the other never
// runs the racy code: the partner strategy delays the worker that won the
// jobs channel, and the other gets a job.

package bug

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
		st.mu.Unlock()
		st.last = j // the race
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
