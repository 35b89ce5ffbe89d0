// Package selectcases holds selects for SelectCases: a comment
// "cases:yes" on a select's line says that SelectCases knows every case's
// partners there, "cases:no" that it does not.
package selectcases

import "time"

func takenPartner() {
	ch := make(chan int)
	quit := make(chan struct{})
	go func() { <-ch }()
	go func() { ch <- 2 }()
	select { // cases:yes
	case ch <- 1:
	case <-quit:
	}
	<-ch
}

func closedLater(n int) {
	ch := make(chan int)
	quit := make(chan struct{})
	go worker(ch, quit)
	select { // cases:yes
	case v := <-ch:
		_ = v
	case <-quit:
	}
	stop(quit)
}

func worker(ch chan<- int, quit <-chan struct{}) {
	select { // cases:no (the channels are not made here)
	case ch <- 1:
	case <-quit:
	}
}

func stop(quit chan struct{}) { close(quit) }

var global chan int

func stored() {
	ch := make(chan int)
	global = ch
	select { // cases:no
	case <-ch:
	}
}

func timer() {
	ch := make(chan int)
	select { // cases:no
	case <-ch:
	case <-time.After(time.Second):
	}
}

func withDefault() {
	ch := make(chan int)
	select { // cases:no
	case <-ch:
	default:
	}
}

func asValue() {
	ch := make(chan int)
	chs := make(chan chan int, 1)
	chs <- ch
	select { // cases:no
	case <-ch:
	}
}

func iface() {
	ch := make(chan int)
	var x any = ch
	_ = x
	select { // cases:no
	case <-ch:
	}
}
