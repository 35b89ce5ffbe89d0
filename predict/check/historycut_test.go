// This file tests a run whose clock history outgrows Options.HistoryBudget
// end to end: the note lands on the test during which it did, once, and a
// race that SHB proves after that point is still reported.

package check

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

const meshModule = `package mesh

import (
	"sync"
	"testing"
)

func TestFirst(t *testing.T) {}

var racy int

// TestMesh: 24 goroutines hand messages to each other round a ring of
// channels, so that every clock learns of every goroutine; then a race
// that the run itself shows.
func TestMesh(t *testing.T) {
	const n = 24
	chans := make([]chan *[2]int, n)
	for i := range chans {
		chans[i] = make(chan *[2]int, 4)
	}
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				m := &[2]int{g, k}
				chans[(g+k)%n] <- m
				m = <-chans[(g+k)%n]
				m[1]++
			}
		}()
	}
	wg.Wait()
	done := make(chan bool)
	go func() {
		racy = 1 // RACE
		done <- true
	}()
	racy = 2 // RACE
	<-done
}

func TestLast(t *testing.T) {}
`

func TestHistoryCutNote(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModule(t, "example.com/mesh", "mesh_test.go", meshModule)
	raceLines := []int{lineOf(meshModule, "racy = 1"), lineOf(meshModule, "racy = 2")}
	for _, budget := range []int64{0, 4 << 10} {
		rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, HistoryBudget: budget})
		if err != nil {
			t.Fatal(err)
		}
		var noted []string
		for _, tt := range rep.Tests {
			for _, e := range tt.Errors {
				if strings.Contains(e, "clock history outgrew") {
					noted = append(noted, tt.Name)
				}
			}
		}
		var want []string
		if budget > 0 {
			want = []string{"TestMesh"}
		}
		if !slices.Equal(noted, want) {
			t.Errorf("budget %d: the history's note is on %v, want %v", budget, noted, want)
		}
		found := false
		for _, f := range rep.Findings {
			if f.Kind == "race" && len(f.Accesses) == 2 {
				a, b := f.Accesses[0].Line, f.Accesses[1].Line
				found = found || (a == raceLines[0] && b == raceLines[1]) || (a == raceLines[1] && b == raceLines[0])
			}
		}
		if !found {
			t.Errorf("budget %d: the race on racy (lines %v) is not reported: %+v", budget, raceLines, rep.Findings)
		}
	}
}
