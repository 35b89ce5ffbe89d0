// Package nilderef holds the stores of nil and the reads whose values are
// dereferenced that TestNilDeref judges: a line marked "store:yes" or
// "store:no" is a write, "deref:yes" or "deref:no" a read, and the number
// after is the access's size.
package nilderef

import (
	"io"
	"sync"
)

type conn struct{ n int }

type watcher struct {
	mu   sync.Mutex
	c    *conn
	r    io.Reader
	n    int
	done bool
}

func (w *watcher) close() {
	w.mu.Lock()
	w.c = nil // store:yes:8
	w.r = nil // store:yes:16
	w.n = 0   // store:no:8
	w.mu.Unlock()
}

func (w *watcher) replace(c *conn) {
	w.mu.Lock()
	w.c = c // store:no:8
	w.mu.Unlock()
}

func (w *watcher) watch() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c.n // deref:yes:8
}

func (w *watcher) read(b []byte) {
	w.mu.Lock()
	w.r.Read(b) // deref:yes:16
	w.mu.Unlock()
}

func (w *watcher) checked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.c // deref:no:8
	if c == nil {
		return 0
	}
	return c.n
}

func (w *watcher) passed() *conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c // deref:no:8
}

func (w *watcher) called() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.c // deref:no:8
	helper()
	return c.n
}

func (w *watcher) recovered() int {
	defer func() { recover() }()
	return w.c.n // deref:no:8
}

func (w *watcher) counted() int {
	return w.n // deref:no:8
}

func helper() {}

// guarded recovers what watch panics with.
func guarded(w *watcher) int {
	defer func() { recover() }()
	return w.watch() // guarded
}
