// A leak that shows only when a timeout wins: the select strategy delays
// the goroutine whose send completed the result's case (or the select),
// and the timer's case wins.

package bug

import (
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
		go func() {
			<-retry // the leak
		}()
		return -1
	}
}

func TestTimeout(t *testing.T) {
	get(20 * time.Millisecond)
}
