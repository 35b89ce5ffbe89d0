// Package capture is test data for seer's reimplementation of the
// compiler's rule for capturing variables by value or by reference: the
// test compares it with the compiler's own decisions (-gcflags=-m=2).
package capture

import (
	"errors"
	"sync"
)

var sink []int

func use(...any) {}

type counter struct{ n int }

func (c *counter) inc()    { c.n++ }
func (c counter) get() int { return c.n }

func Loops(s []int) {
	var wg sync.WaitGroup
	for i := 0; i < len(s); i++ {
		wg.Add(1)
		go func() { s[i] = 1; wg.Done() }()
	}
	for i := 0; i < 3; i++ {
		i += 1
		go func() { use(i) }()
	}
	for i := 0; i < 3; i++ {
		go func() { use(i) }()
		i += 1
	}
	for k, v := range s {
		go func() { use(k, v) }()
	}
	var k2, v2 int
	for k2, v2 = range s {
		go func() { use(k2, v2) }()
	}
	w := 0
	for j := 0; j < 3; j++ {
		w = j
		go func() { use(w) }()
	}
	wg.Wait()
}

func Assignments() {
	x := 1
	x = 2
	go func() { use(x) }()
	y := 1
	go func() { use(y) }()
	y = 3
	var z int
	z = 5
	go func() { use(z) }()
	c := 0
	go func() { c++ }()
	a, b := 1, 2
	a, err := 3, errors.New("e")
	go func() { use(a, b, err) }()
	var st struct{ f, g int }
	go func() { use(st.f) }()
	st.g = 1
	var arr [3]int
	go func() { use(arr[0]) }()
	arr[1] = 2
	n := 0
	func() {
		go func() { use(n) }()
	}()
	n2 := 0
	func() {
		func() { n2 = 1 }()
	}()
	use(n2)
}

func Addresses() {
	var cnt counter
	go func() { use(cnt.get()) }()
	cnt.inc()
	var c2 counter
	go func() { use(c2.get()) }()
	var a [4]int
	s := a[:]
	go func() { use(a[0], s) }()
	p := 0
	q := &p
	go func() { use(p, q) }()
	big := [20]int{}
	go func() { use(big[1]) }()
	small := [16]int{}
	go func() { use(small[1]) }()
}

func Results() (err error) {
	defer func() {
		if err != nil {
			use(err)
		}
	}()
	return errors.New("e")
}

func Params(a int, b *int, c []int) func() int {
	go func() { use(a, b, c) }()
	return func() int { a++; return a }
}

func Switches(v any, ch chan int) {
	switch t := v.(type) {
	case int:
		go func() { use(t) }()
	case string:
		t = "x"
		go func() { use(t) }()
	}
	select {
	case r := <-ch:
		go func() { use(r) }()
	case ch <- 1:
	}
}

func Goto() {
	i := 0
loop:
	go func() { use(i) }()
	if i < 3 {
		goto loop
	}
	j := 0
again:
	j++
	go func() { use(j) }()
	if j < 3 {
		goto again
	}
}

func Generic[T any](v T) {
	go func() { use(v) }()
	w := v
	go func() { use(w) }()
	var u T
	u = v
	go func() { use(u) }()
}

var Init = func() int {
	h := 1
	go func() { use(h) }()
	h2 := 1
	go func() { h2++ }()
	return h + h2
}()
