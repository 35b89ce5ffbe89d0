// Package names is test data for seer's resolution of trace frames: each
// call of here records the runtime's frame of its caller, and the test
// checks that Program.Access's resolver finds the function around it.
package names

import (
	"iter"
	"runtime"
	"sync"
)

// Frames are the recorded frames, as "func\tfile\tline".
var (
	mu     sync.Mutex
	Frames []string
)

func here() {
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:])
	f, _ := runtime.CallersFrames(pcs[:]).Next()
	mu.Lock()
	Frames = append(Frames, f.Function+"\t"+f.File+"\t"+itoa(f.Line))
	mu.Unlock()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

type T struct{ n int }

func (t *T) M() {
	here()
	func() {
		here()
		func() { here() }()
		func() {
			here()
		}()
	}()
}

func (t T) V() { here() }

type G[E any] struct{ e E }

func (g *G[E]) Push(e E) {
	here()
	func() { here() }()
}

func F[E any](e E) E {
	here()
	func() {
		here()
	}()
	return e
}

var glob = func() int {
	here()
	return 1
}()

func init() {
	here()
	func() { here() }()
}

func init() { here() }

func Seq() iter.Seq[int] {
	return func(yield func(int) bool) {
		here()
		_ = yield(1) && yield(2)
	}
}

func R() {
	for x := range Seq() {
		here()
		_ = x
		func() { here() }()
	}
}

func W(x int) { here() }

func Go() {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		here()
	}()
	go func() { defer wg.Done(); W(1) }()
	wg.Wait()
	defer func() { here() }()
	both(func() { here() }, func() { here() })
}

func both(f, g func()) { f(); g() }

func Run() {
	(&T{}).M()
	T{}.V()
	(&G[int]{}).Push(1)
	(&G[string]{}).Push("")
	F(1)
	F("")
	R()
	Go()
}

// Atomic is marked, in a package whose path needs escaping.
//
//seer:atomic
func Atomic() {}
