package check

import (
	"context"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

const relevanceModule = `package rel

import (
	"sync"
	"testing"
	"time"
)

var (
	mu   sync.Mutex
	c    int
	x    int
	sink int
)

// The goroutine writes x, then counts; the test, later, counts, then
// reads x. The critical sections order the two in the recorded run, but
// the test's section only increments c: its read of c cannot change what
// the test does, so the sections can run in the other order, and x races.
func TestHidden(t *testing.T) {
	done := make(chan bool)
	go func() {
		x = 1
		mu.Lock()
		c++
		mu.Unlock()
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	c++
	mu.Unlock()
	sink = x
	<-done
}

// The same shape, but the read of c decides whether x is read: the other
// order would not read x at all. No race.
func TestGuarded(t *testing.T) {
	done := make(chan bool)
	go func() {
		x = 1
		mu.Lock()
		c++
		mu.Unlock()
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	ok := c > 0
	mu.Unlock()
	if ok {
		sink = x
	}
	<-done
}
`

// TestControlRelevanceEndToEnd records both tests and checks that static's
// control relevance, closed over read-from by predict, finds the race
// hidden behind the increment and stays silent on the guarded twin.
func TestControlRelevanceEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModule(t, "example.com/rel", "rel_test.go", relevanceModule)
	rep, err := Run(context.Background(), Options{Dir: dir, PerTest: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	byTest := map[string][]report.Finding{}
	for _, f := range rep.Findings {
		byTest[f.Test] = append(byTest[f.Test], f)
	}
	hidden := byTest["TestHidden"]
	if len(hidden) != 1 || hidden[0].Kind != "race" || !hidden[0].Predicted || hidden[0].Variable != "x" {
		t.Errorf("TestHidden: findings %+v, want one predicted race on x", hidden)
	}
	if g := byTest["TestGuarded"]; len(g) != 0 {
		t.Errorf("TestGuarded: findings %+v, want none", g)
	}
}
