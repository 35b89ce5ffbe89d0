package bank

import (
	"sync"
	"testing"
)

func use(int) {}

func run(fs ...func()) {
	for _, f := range fs {
		go f()
	}
}

// The required pair. Here the read of c in c++ only feeds the write of c.
func TestCounter(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	c, x := 0, 0
	wg.Add(2)
	go func() {
		defer wg.Done()
		mu.Lock()
		c++ //@read("c (captured by the closures at lines 22 and 29)", "c") write("c (captured by the closures at lines 22 and 29)", "c") irrelevant
		mu.Unlock()
		use(x) //@read("x (captured by the closures at lines 22 and 29)", "x") relevant
	}()
	go func() {
		defer wg.Done()
		mu.Lock()
		c++ //@read("c (captured by the closures at lines 22 and 29)", "c") irrelevant
		mu.Unlock()
		x = 1 //@write("x (captured by the closures at lines 22 and 29)", "x") noread
	}()
	wg.Wait()
}

// The same shape, but the read guards the access.
func TestGuard(t *testing.T) {
	var mu sync.Mutex
	c, x := 0, 0
	done := make(chan bool)
	go func() {
		mu.Lock()
		ok := c > 0 //@read("c (captured by the closures at lines 44 and 53)", "c") relevant
		mu.Unlock()
		if ok {
			use(x)
		}
		done <- true
	}()
	go func() {
		mu.Lock()
		c = 1 //@write("c (captured by the closures at lines 44 and 53)", "c") noread
		mu.Unlock()
		done <- true
	}()
	<-done
	<-done
}

func TestCaptures(t *testing.T) {
	acct := &Account{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		acct.balance++ //@read("acct.balance") write("acct.balance") irrelevant
	}()
	total := 0
	go func() { total += acct.balance }() //@read("total (captured by the closure at line 72) or acct.balance", ambiguous) write("total (captured by the closure at line 72)", "total") irrelevant
	total++                               //@read("total (captured by the closure at line 72)", "total") write("total (captured by the closure at line 72)", "total") relevant
	var cfg struct{ n, m int }
	cfg.n = 3
	go func() { use(cfg.n) }() //@noread
	big := [20]int{}
	go func() { use(big[3]) }() //@read("big[3] (big captured by the closure at line 78)", "big[3]") relevant
	wg.Wait()
	for i := 0; i < 2; i++ { //@noread
		go func() { use(i) }() //@noread
	}
	for _, v := range []int{1, 2} { //@read("elements of []int{…}", "[]int{1, 2}") write("[]int{…}[0] or []int{…}[1]", ambiguous)
		go func() { use(v) }() //@noread
	}
}

// Two closures on one line: the frame's line has code in both.
func TestSameLine(t *testing.T) {
	run(func() { hits++ }, func() { x++ }) //@read("hits or x", ambiguous) write("hits or x", ambiguous) irrelevant
}
