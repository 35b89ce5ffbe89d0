// This file holds the end-to-end test of a blocking cycle through a
// select (predict/deadlock_cycles.go, selectKnown; issue 32 item 4): the
// test holds mu in a select that sends to a consumer or gives up on a
// quit channel, and the consumer takes mu before it receives. The
// recorded run, ordered by a sleep, lets the consumer take and let go of
// mu first and nothing hangs; in another schedule the test holds mu in
// the select, the consumer waits for mu, and no case can proceed: the
// send's partner waits, and nothing in the program sends on or closes
// quit (static analysis lists the select's cases, package static's
// SelectCases). Twins: the select after unlocking, and a quit that a
// goroutine closes (the select's other case then proceeds).

package check

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

const cycleSelModule = `package cyc

import (
	"sync"
	"testing"
	"time"
)

func TestHandoff(t *testing.T) {
	var mu sync.Mutex
	n := 0
	out := make(chan int)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // consumer
		defer wg.Done()
		mu.Lock()
		n++
		mu.Unlock()
		<-out
	}()
QUIT
	time.Sleep(20 * time.Millisecond)
SELECT
	wg.Wait()
}
`

func TestBlockingCycleSelect(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	const (
		held     = "\tmu.Lock()\n\tselect {\n\tcase out <- 1:\n\tcase <-quit:\n\t}\n\tn--\n\tmu.Unlock()"
		unlocked = "\tmu.Lock()\n\tn--\n\tmu.Unlock()\n\tselect {\n\tcase out <- 1:\n\tcase <-quit:\n\t}"
		closer   = "\tgo func() {\n\t\ttime.Sleep(60 * time.Millisecond)\n\t\tclose(quit)\n\t}()"
	)
	src := func(quit, sel string) string {
		return strings.NewReplacer("QUIT", quit, "SELECT", sel).Replace(cycleSelModule)
	}
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"select under the consumer's lock", src("", held), true},
		{"select after unlocking", src("", unlocked), false},
		{"quit closed by another goroutine", src(closer, held), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := deadlockTwin(t, "example.com/cyc", "cyc_test.go", tc.src, tc.want)
			if !ok {
				return
			}
			want := []string{
				"cyc_test.go:" + strconv.Itoa(lineOf(tc.src, "select {")) + " send",
				"cyc_test.go:" + strconv.Itoa(lineOf(tc.src, "mu.Lock()\n\t\tn++")) + " lock",
			}
			if got := accessSites(&f); len(got) < 2 || !sameSet(got[:2], want) {
				t.Errorf("blocked operations %v, want %v first", got, want)
			}
			if s := report.CycleSentence(&f, filepath.Base); !strings.HasSuffix(s, "a cycle of 2 goroutines") {
				t.Errorf("cycle sentence %q, want one round 2 goroutines", s)
			}
			if got := report.StuckSentences(&f, filepath.Base); len(got) != 1 || !strings.Contains(got[0], "receive from quit can never complete") {
				t.Errorf("the finding does not say why the select cannot proceed: %q", got)
			}
		})
	}
}
