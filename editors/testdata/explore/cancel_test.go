// The editors' explore test's kernel: a copy of
// predict/check/testdata/explore/bug/cancel_test.go whose request is sent
// by a goroutine of its own, and which gives the reset time to run before
// it ends (a race, not a leak). Its first run takes the request's case of
// the select, so only a steered run shows the race: the select strategy
// delays either the sender (the deadline then wins) or the select (Go
// then takes either case), in turns. The editors' tests click
// TestCancel's "seer: explore" lens here (editors/vscode/e2e/e2e.mjs,
// editors/nvim/test/run.lua).

package explore

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
	go func() { reqs <- 1 }() // the partner that completes the request's case
	go s.serve(ctx, reqs, done)
	<-done
	s.mu.Lock()
	_ = s.count
	s.mu.Unlock()
	time.Sleep(10 * time.Millisecond) // the reset, if any, runs before the test ends: a race, not a leak
}
