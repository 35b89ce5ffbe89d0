// The writes of ../bug/predicted_test.go, fixed: both under the lock.

package fixed

import (
	"sync"
	"testing"
	"time"
)

func TestPredicted(t *testing.T) {
	var mu sync.Mutex
	x := 0
	done := make(chan bool)
	go func() {
		mu.Lock()
		x = 1 // fixed: under the lock
		mu.Unlock()
		close(done)
	}()
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	x = 2
	mu.Unlock()
	<-done
	if x != 2 {
		t.Fatal(x)
	}
}
