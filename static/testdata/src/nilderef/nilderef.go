// Package nilderef holds the stores of nil and the reads whose values are
// dereferenced, indexed or assigned an entry that TestNilUse judges: a
// line marked "store:yes" or "store:no" is a write, "use:deref",
// "use:index", "use:mapwrite" or "use:no" a read.
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
	buf  []byte
	m    map[int]int
}

func (w *watcher) close() {
	w.mu.Lock()
	w.c = nil         // store:yes
	w.r = nil         // store:yes
	w.n = 0           // store:no
	w.c, w.n = nil, 0 // store:no
	w.buf = nil       // store:yes
	w.m = nil         // store:yes
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
	return w.c.n // use:deref
}

func (w *watcher) read(b []byte) {
	w.mu.Lock()
	w.r.Read(b) // use:deref
	w.mu.Unlock()
}

func (w *watcher) checked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.c // use:no
	if c == nil {
		return 0
	}
	return c.n
}

func (w *watcher) passed() *conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c // use:no
}

func (w *watcher) called() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.c // use:no
	helper()
	return c.n
}

func (w *watcher) recovered() int {
	defer func() { recover() }()
	return w.c.n // use:no
}

func (w *watcher) counted() int {
	return w.n // use:no
}

func helper() {}

// guarded recovers what watch panics with.
func guarded(w *watcher) int {
	defer func() { recover() }()
	return w.watch() // guarded
}

func (w *watcher) first() byte {
	return w.buf[0] // use:index
}

func (w *watcher) checkedFirst() byte {
	if b := w.buf; len(b) > 0 { // use:no
		return b[0]
	}
	return 0
}

func (w *watcher) both() (byte, int) {
	return w.buf[0], w.c.n // use:no
}

func (w *watcher) put(k, v int) {
	w.m[k] = v // use:mapwrite
}

func (w *watcher) get(k int) int {
	return w.m[k] // use:no
}

func (w *watcher) drop(k int) {
	delete(w.m, k) // use:no
}

func (w *watcher) checkedPut(k, v int) {
	if m := w.m; m != nil { // use:no
		m[k] = v
	}
}
