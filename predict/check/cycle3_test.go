// This file holds the end-to-end test of a channel deadlock through
// three goroutines: a publisher holds h.mu while it sends, the receiver
// takes h.audit before it receives, and an auditor holds h.audit while
// it takes h.mu. The recorded run, ordered by sleeps, takes the
// receiver's audit section, then the auditor's, then publishes, and
// nothing hangs; in another schedule each waits for the next. The fixed
// twin sends after unlocking.

package check

import (
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

const cycle3Module = `package cycle

import (
	"sync"
	"testing"
	"time"
)

type hub struct {
	mu, audit sync.Mutex
	n         int
	out       chan int
}

// publish counts v and hands it on.
func (h *hub) publish(v int) {
	h.mu.Lock()
	h.n++
	SEND
}

// check reads the count under both locks, audit first.
func (h *hub) check() int {
	h.audit.Lock()
	defer h.audit.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// receive audits, then takes a value.
func (h *hub) receive() int {
	h.audit.Lock()
	h.audit.Unlock()
	return <-h.out
}

func TestThree(t *testing.T) {
	h := &hub{out: make(chan int)}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		h.check()
	}()
	go func() {
		defer wg.Done()
		time.Sleep(40 * time.Millisecond)
		h.publish(1)
	}()
	if v := h.receive(); v != 1 {
		t.Errorf("got %d", v)
	}
	wg.Wait()
}
`

func TestChannelDeadlockThreeGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	for _, tc := range []struct {
		name, send string
		want       bool
	}{
		{"send under the lock", "h.out <- v\n\th.mu.Unlock()", true},
		{"send after unlocking", "h.mu.Unlock()\n\th.out <- v", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(cycle3Module, "SEND", tc.send, 1)
			rep := recordModule(t, testModule(t, "example.com/cycle", "cycle_test.go", src))
			passed(t, rep)
			f, ok := twinFinding(t, rep, tc.want)
			if !ok {
				return
			}
			if f.Kind != "deadlock" || !f.Predicted || len(f.Witness) == 0 || report.Title(&f) != "deadlock" {
				t.Fatalf("finding %+v, want a predicted deadlock with a witness", f)
			}
			got := accessSites(&f)
			// The publisher's send, the receiver's lock of h.audit, the
			// auditor's lock of h.mu; then the test's wg.Wait.
			want := []string{
				"cycle_test.go:" + strconv.Itoa(lineOf(src, "h.out <- v")) + " send",
				"cycle_test.go:" + strconv.Itoa(lineOf(src, "h.audit.Lock()\n\th.audit.Unlock()")) + " lock",
				"cycle_test.go:" + strconv.Itoa(lineOf(src, "h.mu.Lock()\n\tdefer h.mu.Unlock()")) + " lock",
			}
			if len(got) < 3 || strings.Join(got[:3], ", ") != strings.Join(want, ", ") {
				t.Errorf("blocked operations %v, want %v first", got, want)
			}
		})
	}
}
