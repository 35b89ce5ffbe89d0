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
	select { // cases:yes (its one caller's channels, made in closedLater)
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

// A worker on channels passed in: every caller's are known.
func pool() {
	jobs := make(chan int)
	quit := make(chan struct{})
	go loop(jobs, quit)
	go loop(jobs, quit)
	jobs <- 1
	close(quit)
}

func loop(jobs <-chan int, quit <-chan struct{}) {
	for {
		select { // cases:yes (both calls pass pool's channels)
		case j := <-jobs:
			_ = j
		case <-quit:
			return
		}
	}
}

// A closure on captured channels.
func captured() {
	jobs := make(chan int)
	quit := make(chan struct{})
	go func() {
		select { // cases:yes (closure: captures jobs and quit)
		case <-jobs:
		case <-quit:
		}
	}()
	jobs <- 1
}

// One caller passes a channel of unknown origin.
func mixed() {
	go sink(make(chan int))
	go sink(global)
}

func sink(ch chan int) {
	done := make(chan int)
	select { // cases:no (global's uses are not all known)
	case <-ch:
	case <-done:
	}
}

// Exported: a package not loaded may call it.
func Exported(ch chan int) {
	done := make(chan int)
	select { // cases:no
	case <-ch:
	case <-done:
	}
}

// Its value escapes: it may be called from anywhere.
var hook = valued

func callsValued() {
	go valued(make(chan int))
}

func valued(ch chan int) {
	done := make(chan int)
	select { // cases:no
	case <-ch:
	case <-done:
	}
}
