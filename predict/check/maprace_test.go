// This file holds an end-to-end regression test for issue 12's first
// shape: a race the recorded run itself shows must be reported in every
// recording, whatever a later stage of the engine thinks of it.

package check

import (
	"context"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

// Goroutines write a cache's map under its lock; the test ranges over it
// without the lock while they run. The range and the writes are unordered
// by the run's own happens-before, and some are adjacent in the trace.
// Before the SHB layer, seer took a few sampled pairs per pair of sites to
// the UCG and the solver, and reported this race as predicted (a pair the
// run had ordered) in 4 of 6 recordings, or not at all.
const mapRaceModule = `package maprace

import (
	"sync"
	"testing"
	"time"
)

type cache struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *cache) put(k string, v int) {
	c.mu.Lock()
	c.m[k] = v
	c.mu.Unlock()
}

func (c *cache) get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *cache) sum() int {
	n := 0
	for _, v := range c.m {
		n += v
	}
	return n
}

func TestMapRange(t *testing.T) {
	c := &cache{m: map[string]int{}}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 2000; j++ {
				c.put("k", j)
				c.get("k")
			}
		}()
	}
	time.Sleep(5 * time.Millisecond)
	for k := 0; k < 3; k++ { _ = c.sum(); time.Sleep(time.Millisecond) }
	_ = c.get("k")
	wg.Wait()
}
`

func TestObservedMapRaceEveryRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModule(t, "example.com/maprace", "map_test.go", mapRaceModule)
	for run := 0; run < 3; run++ {
		rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		var races []report.Finding
		for _, f := range rep.Findings {
			if f.Kind == "race" {
				races = append(races, f)
			}
		}
		if len(races) != 1 || races[0].Predicted {
			t.Fatalf("recording %d: race findings %+v, want the observed race on the map", run, races)
		}
	}
}

// testModule writes a module of one test file into a temporary directory
// and returns the directory.
func testModule(t *testing.T, path, file, src string) string {
	t.Helper()
	return testModuleFiles(t, path, map[string]string{file: src})
}
