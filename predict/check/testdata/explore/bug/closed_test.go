// A Close that in the recorded run came after the reader, and in the
// other order leaves a field nil that the reader then handles without the
// lock: the findings strategy takes the reader's critical section, which
// read conn.buf before Close's stored nil to it, as a near miss, and
// delays the reader before its Lock.

package bug

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
	b := c.buf
	c.mu.Unlock()
	if b == nil {
		c.misses++ // the race: counted without the lock
		return 0
	}
	return b.Len()
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
	if c.misses > 1 {
		t.Error(c.misses)
	}
	<-done
}
