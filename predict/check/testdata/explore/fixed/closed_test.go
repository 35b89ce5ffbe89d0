// The Close of ../bug/closed_test.go, fixed: the reader counts a miss
// under the lock, and the test reads the count under it.

package fixed

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

type conn struct {
	mu     sync.Mutex
	buf    *bytes.Buffer
	misses int
}

func (c *conn) read() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf == nil {
		c.misses++ // fixed: under the lock
		return 0
	}
	return c.buf.Len()
}

func (c *conn) Close() {
	c.mu.Lock()
	c.buf = nil
	c.mu.Unlock()
}

func TestClosed(t *testing.T) {
	c := &conn{buf: new(bytes.Buffer)}
	done := make(chan int)
	go func() { done <- c.read() }()
	time.Sleep(10 * time.Millisecond)
	c.Close()
	c.mu.Lock()
	misses := c.misses
	c.mu.Unlock()
	if misses > 1 {
		t.Error(misses)
	}
	<-done
}
