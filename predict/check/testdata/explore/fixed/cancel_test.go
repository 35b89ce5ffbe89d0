// The server of ../bug/cancel_test.go, fixed: the reset takes the lock.

package fixed

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
		s.mu.Lock()
		s.count = 0 // fixed: under the lock
		s.mu.Unlock()
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
