// A select whose ctx.Done() case loses, so the goroutine its branch
// starts never exists: the select strategy delays the select until the
// deadline has passed too, and Go then takes either case.

package bug

import (
	"context"
	"sync"
	"testing"
	"time"
)

type server struct {
	mu    sync.Mutex
	count int
}

func (s *server) serve(ctx context.Context, reqs <-chan int, done chan<- struct{}) {
	select {
	case r := <-reqs:
		s.mu.Lock()
		s.count += r
		s.mu.Unlock()
	case <-ctx.Done():
		go func() {
			s.count = 0 // the race: a reset without the lock
		}()
	}
	done <- struct{}{}
}

func TestCancel(t *testing.T) {
	s := &server{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	reqs := make(chan int, 1)
	done := make(chan struct{})
	reqs <- 1
	go s.serve(ctx, reqs, done)
	<-done
	s.mu.Lock()
	_ = s.count
	s.mu.Unlock()
}
