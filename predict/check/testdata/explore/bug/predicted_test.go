// A race the first run predicts and does not show: the child's critical
// section came first, and ordered the writes. The findings strategy
// replays its witness, and that run shows it.

package bug

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
		x = 1 // the race
		mu.Lock()
		mu.Unlock()
		close(done)
	}()
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	mu.Unlock()
	x = 2
	<-done
	if x != 2 {
		t.Fatal(x)
	}
}
