// The service of ../bug/started_test.go, fixed: hits is counted under a
// lock.

package fixed

import (
	"sync"
	"sync/atomic"
	"testing"
)

type service struct {
	mu   sync.Mutex
	hits int
}

// warm is the child's work before it says it has started.
func warm(n int) []int {
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, i*i)
	}
	return out
}

func TestStarted(t *testing.T) {
	var started atomic.Bool
	s := &service{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = warm(20000)
		started.Store(true)
		s.mu.Lock()
		s.hits++ // fixed: under the lock
		s.mu.Unlock()
	}()
	if started.Load() {
		s.mu.Lock()
		s.hits++
		s.mu.Unlock()
	}
	wg.Wait()
}
