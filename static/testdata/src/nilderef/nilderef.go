// Package nilderef holds the stores of nil and the reads whose values are
// dereferenced that TestNilDeref judges: a line marked "store:yes" or
// "store:no" is a write, "deref:yes" or "deref:no" a read.
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
	w.c = nil         // store:yes
	w.r = nil         // store:yes
	w.n = 0           // store:no
	w.c, w.n = nil, 0 // store:no
	w.mu.Unlock()
}

func (w *watcher) replace(c *conn) {
	w.mu.Lock()
	w.c = c // store:no
	w.mu.Unlock()
}

func (w *watcher) watch() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c.n // deref:yes
}

func (w *watcher) read(b []byte) {
	w.mu.Lock()
	w.r.Read(b) // deref:yes
	w.mu.Unlock()
}

func (w *watcher) checked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.c // deref:no
	if c == nil {
		return 0
	}
	return c.n
}

func (w *watcher) passed() *conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c // deref:no
}

func (w *watcher) called() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.c // deref:no
	helper()
	return c.n
}

func (w *watcher) recovered() int {
	defer func() { recover() }()
	return w.c.n // deref:no
}

func (w *watcher) counted() int {
	return w.n // deref:no
}

func helper() {}

// guarded recovers what watch panics with.
func guarded(w *watcher) int {
	defer func() { recover() }()
	return w.watch() // guarded
}
