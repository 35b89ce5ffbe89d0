// Package leak holds selects for SelectLeak: a comment "leak:yes" on a
// select's line says that SelectLeak holds there, "leak:no" that it
// does not.
package leak

import (
	"context"
	"time"
)

func work() int { return 1 }

func fetch(d time.Duration) int {
	ch := make(chan int)
	go func() { ch <- work() }()
	select { // leak:yes
	case v := <-ch:
		return v
	case <-time.After(d):
		return 0
	}
}

func poll() int {
	ch := make(chan int, 0)
	go send(ch)
	select { // leak:yes
	case v := <-ch:
		return v
	default:
		return 0
	}
}

func pollClosure() int {
	ch := make(chan int)
	go func() { ch <- work() }()
	select {
	case v := <-ch: // leak:yes (the compiler's line for selectnbrecv)
		return v
	default:
		return 0
	}
}

func send(out chan<- int) { out <- work() }

func buffered(d time.Duration) int {
	ch := make(chan int, 1)
	go func() { ch <- work() }()
	select { // leak:no
	case v := <-ch:
		return v
	case <-time.After(d):
		return 0
	}
}

func drained(d time.Duration) int {
	ch := make(chan int)
	go func() { ch <- work() }()
	select { // leak:no
	case v := <-ch:
		return v
	case <-time.After(d):
		go func() { <-ch }()
		return 0
	}
}

func looped(d time.Duration) int {
	ch := make(chan int)
	go func() { ch <- work() }()
	for {
		select { // leak:no
		case v := <-ch:
			return v
		case <-time.After(d):
		}
	}
}

func withContext(ctx context.Context) int {
	ch := make(chan int)
	go func() { ch <- work() }()
	select { // leak:no
	case v := <-ch:
		return v
	case <-ctx.Done():
		return 0
	}
}

func closed(d time.Duration) int {
	ch := make(chan int)
	go func() { ch <- work(); close(ch) }()
	select { // leak:no
	case v := <-ch:
		return v
	case <-time.After(d):
		return 0
	}
}

func stored(d time.Duration) (int, chan int) {
	ch := make(chan int)
	go func() { ch <- work() }()
	select { // leak:no
	case v := <-ch:
		return v, ch
	case <-time.After(d):
		return 0, ch
	}
}

func withTimeout(parent context.Context, d time.Duration) int {
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	ch := make(chan int)
	go func() { ch <- work() }()
	select { // leak:yes
	case v := <-ch:
		return v
	case <-ctx.Done():
		return 0
	}
}

func withCancel(parent context.Context) int {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	ch := make(chan int)
	go func() { ch <- work() }()
	select { // leak:no
	case v := <-ch:
		return v
	case <-ctx.Done():
		return 0
	}
}

func reassigned(parent context.Context, d time.Duration) int {
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	ch := make(chan int)
	go func() { ch <- work() }()
	func() { ctx = parent }()
	select { // leak:no
	case v := <-ch:
		return v
	case <-ctx.Done():
		return 0
	}
}

func collect(n int, d time.Duration) int {
	results := make(chan int)
	for i := 0; i < n; i++ {
		go func() { results <- work() }()
	}
	sum := 0
	for i := 0; i < n; i++ {
		select { // leak:yes
		case v := <-results:
			sum += v
		case <-time.After(d):
			return sum
		}
	}
	return sum
}

func collectOn(n int, d time.Duration) int {
	results := make(chan int)
	for i := 0; i < n; i++ {
		go func() { results <- work() }()
	}
	sum := 0
	for i := 0; i < n; i++ {
		select { // leak:no
		case v := <-results:
			sum += v
		case <-time.After(d):
			sum--
		}
	}
	return sum
}
