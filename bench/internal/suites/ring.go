// This file implements the ring stress test of issue 31's cases: a ring of
// goroutines passing tokens over buffered channels, each hop starting a
// short-lived goroutine that closes a done channel, so the run has tens of
// thousands of goroutines, most of them ended long before the last event.

package suites

// RingParams sizes the ring stress test: Goroutines ring members, each
// holding one token, pass the tokens on for Rounds rounds; every member
// starts one short-lived goroutine a round, so the run has
// Goroutines*(Rounds+1) goroutines besides the test's own.
type RingParams struct {
	Goroutines int
	Rounds     int
}

// RingTest returns the source of the ring stress test. The short-lived
// goroutine writes its member's slot and closes done; the member reads the
// slot after receiving from done: race-free only through the close, so
// neither tool should report anything.
func RingTest(p RingParams) string {
	return generated(ringTest, "GOROUTINES", max(p.Goroutines, 2), "ROUNDS", max(p.Rounds, 1))
}

const ringTest = `import (
	"sync"
	"testing"
)

const (
	members = GOROUTINES
	rounds  = ROUNDS
)

func TestRing(t *testing.T) {
	ring := make([]chan int, members)
	for i := range ring {
		ring[i] = make(chan int, 1)
		ring[i] <- i
	}
	slots := make([]int, members)
	var wg sync.WaitGroup
	for i := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, out := ring[i], ring[(i+1)%members]
			for range rounds {
				tok := <-in
				done := make(chan struct{})
				go func() {
					slots[i] = tok + 1
					close(done)
				}()
				<-done
				out <- slots[i]
			}
		}()
	}
	wg.Wait()
	got := 0
	for _, ch := range ring {
		got += <-ch
	}
	if want := members*(members-1)/2 + members*rounds; got != want {
		t.Fatalf("sum %d, want %d", got, want)
	}
}
`
