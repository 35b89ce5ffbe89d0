// This file tests the recorder's timer contexts (recorder.c,
// __tsan_go_start and timer_context): a timer that a goroutine runs itself
// on the system stack (a receive from a Ticker's channel whose time has
// come) makes its P's timer context with that goroutine as racegostart's
// parent, and the context must still be the runtime's, not the goroutine's.

package record

import (
	"context"
	"strings"
	"testing"
	"time"
)

// tickerTests' goroutine spins past its ticker's first tick before it
// selects on the channel, so the receive runs the timer itself
// (maybeRunChan): with no earlier timer run, that makes the P's timer
// context. The recorder took it for a goroutine's and called back into
// Go from g0, after which the test process crashed (a SIGSEGV at a stack
// address, or a nil dereference in chansend) in every run.
const tickerTests = `package tick

import (
	"sync"
	"testing"
	"time"
)

func TestTickerRun(t *testing.T) {
	for i := 0; i < 20; i++ {
		done, stopped := make(chan struct{}), make(chan struct{})
		var mu sync.Mutex
		n := 0
		go func() {
			defer close(stopped)
			tk := time.NewTicker(time.Millisecond)
			defer tk.Stop()
			for start := time.Now(); time.Since(start) < 2*time.Millisecond; {
			}
			for {
				select {
				case <-done:
					return
				case <-tk.C:
					mu.Lock()
					n++
					mu.Unlock()
				}
			}
		}()
		time.Sleep(5 * time.Millisecond)
		close(done)
		<-stopped
	}
}
`

// TestTimerRunByGoroutine: the test passes under the recorder, and its
// goroutines are its go statement's twenty, each a child of the test's
// goroutine: no timer context among them.
func TestTimerRunByGoroutine(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := testModule(t, "example.com/tick", map[string]string{"tick_test.go": tickerTests})
	b, err := Build(context.Background(), RecordOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const test = "TestTickerRun"
	for run := 0; run < 2; run++ {
		var out strings.Builder
		res, err := b.Run(context.Background(), RecordOptions{Run: "^" + test + "$", Timeout: time.Minute, NoFile: true, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome.Result != "pass" {
			t.Fatalf("run %d: outcome %+v, want pass; output:\n%s", run, res.Outcome, out.String())
		}
		var own []int // the test's goroutine (tRunner's, started in testing.(*T).Run.gowrap1)
		var tickers []int
		gs := res.Trace.Goroutines
		for i, g := range gs {
			switch {
			case g.Test != test:
			case g.Func == "example.com/tick."+test+".func1":
				tickers = append(tickers, i)
			default:
				own = append(own, i)
			}
		}
		if len(own) != 1 || len(tickers) != 20 {
			t.Fatalf("run %d: the test has goroutines %v besides its 20 go statements' %v, want one", run, own, tickers)
		}
		for _, i := range tickers {
			if p := gs[i].Parent; p != gs[own[0]].ID {
				t.Errorf("run %d: goroutine %d started by %d, want the test's %d", run, gs[i].ID, p, gs[own[0]].ID)
			}
		}
	}
}
