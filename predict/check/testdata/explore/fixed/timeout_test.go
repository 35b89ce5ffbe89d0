// The fetch of ../bug/timeout_test.go, fixed: the retry is told to stop.

package fixed

import (
	"sync"
	"testing"
	"time"
)

func compute() int { return 42 }

// get waits for the result, or gives up after d and retries in the
// background: the retry waits for a signal nobody sends.
func get(d time.Duration) int {
	ch := make(chan int, 1)
	go func() { ch <- compute() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		retry := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-retry
		}()
		close(retry) // fixed: the retry is told
		wg.Wait()
		return -1
	}
}

func TestTimeout(t *testing.T) {
	get(20 * time.Millisecond)
}
