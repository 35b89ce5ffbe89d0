// Package recvvalue holds receives for RecvValueFree: a comment
// "free:yes" on a receive's line says that RecvValueFree holds there,
// "free:no" that it does not.
package recvvalue

func discarded(ch chan int) {
	<-ch // free:yes
}

func empty(ch chan struct{}) int {
	v := <-ch // free:yes
	_ = v
	return 1
}

func rangeNoVar(ch chan int) int {
	n := 0
	for range ch { // free:yes
		n++
	}
	return n
}

func used(ch chan int) int {
	v := <-ch // free:no
	return v
}

func branch(ch chan bool) int {
	if <-ch { // free:no
		return 1
	}
	return 0
}

func rangeVar(ch chan int) int {
	n := 0
	for v := range ch { // free:no
		n += v
	}
	return n
}

func commaOk(ch chan int) bool {
	_, ok := <-ch // free:yes
	return ok
}

func commaOkValue(ch chan int) int {
	v, ok := <-ch // free:no
	if ok {
		return v
	}
	return 0
}

func twoOnALine(a, b chan int) int {
	return <-a + <-b // free:no
}

func inSelect(ch, other chan int) {
	select {
	case <-ch: // free:no
	case <-other:
	}
}
