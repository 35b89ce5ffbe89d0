package cost

import (
	"sync"
	"testing"
)

// TestLocks is two goroutines taking one mutex 150,000 times each: about
// 1.9M events.
func TestLocks(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 150000 {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if n != 300000 {
		t.Fatalf("n = %d, want 300000", n)
	}
}
