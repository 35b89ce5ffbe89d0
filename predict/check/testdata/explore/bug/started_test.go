// A race that needs the child to run first: PCT gives the child the
// higher priority in about half its runs, the parent waits at its load
// while the child makes progress, and then sees started.

package bug

import (
	"sync"
	"sync/atomic"
	"testing"
)

type service struct{ hits int }

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
		s.hits++ // the race, when the parent saw started
	}()
	if started.Load() {
		s.hits++
	}
	wg.Wait()
}
