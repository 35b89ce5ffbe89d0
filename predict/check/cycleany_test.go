// This file holds the end-to-end tests of blocking cycles of any length
// (predict/deadlock_cycles.go, issue 32 item 4), each a shape that none
// of the fixed two- and three-goroutine shapes covers, predicted from a
// run that does not hang, with a fixed twin that gives no finding:
//
//   - a sender that holds no lock, whose receiver takes a lock before it
//     receives, and a third goroutine that waits on a WaitGroup under
//     that lock for the sender's Done (channel → lock → WaitGroup);
//   - four goroutines, two locks and two channels, each sender holding
//     the lock the other receiver takes before it receives (channel →
//     lock → channel → lock).
//
// The recorded runs are ordered by sleeps so that every lock section
// that would close the cycle ran first.

package check

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// cycleWaitModule: publish sends, then says it is done; consume audits
// (locks h.mu) before it receives; drain holds h.mu while it waits for
// the publisher. WAIT is drain's body.
const cycleWaitModule = `package cyc

import (
	"sync"
	"testing"
	"time"
)

type hub struct {
	mu   sync.Mutex
	sent sync.WaitGroup
	out  chan int
	n    int
}

func (h *hub) publish(v int) {
	h.out <- v
	h.sent.Done()
}

func (h *hub) consume() int {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
	return <-h.out
}

func (h *hub) drain() {
WAIT
}

func TestCycleWait(t *testing.T) {
	h := &hub{out: make(chan int)}
	h.sent.Add(1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		h.drain()
	}()
	go func() {
		defer wg.Done()
		time.Sleep(40 * time.Millisecond)
		h.publish(1)
	}()
	if v := h.consume(); v != 1 {
		t.Errorf("got %d", v)
	}
	wg.Wait()
}
`

// cycleFourModule: two pipelines, each sender holding the lock that the
// other pipeline's receiver takes before it receives. SENDA and SENDB
// are the senders' bodies.
const cycleFourModule = `package cyc

import (
	"sync"
	"testing"
	"time"
)

type pipes struct {
	a, b   sync.Mutex
	na, nb int
	ca, cb chan int
}

func (p *pipes) sendA(v int) {
SENDA
}

func (p *pipes) sendB(v int) {
SENDB
}

func (p *pipes) recvA() int {
	p.b.Lock()
	p.nb++
	p.b.Unlock()
	return <-p.ca
}

func (p *pipes) recvB() int {
	p.a.Lock()
	p.na++
	p.a.Unlock()
	return <-p.cb
}

func TestCycleFour(t *testing.T) {
	p := &pipes{ca: make(chan int), cb: make(chan int)}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		if p.recvB() != 2 {
			t.Error("b")
		}
	}()
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		p.sendA(1)
	}()
	go func() {
		defer wg.Done()
		time.Sleep(40 * time.Millisecond)
		p.sendB(2)
	}()
	if p.recvA() != 1 {
		t.Error("a")
	}
	wg.Wait()
}
`

func TestBlockingCycleAnyLength(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	const (
		sendA = "p.a.Lock()\n\tp.na++\n\tp.ca <- v\n\tp.a.Unlock()"
		sendB = "p.b.Lock()\n\tp.nb++\n\tp.cb <- v\n\tp.b.Unlock()"
	)
	cycleWaitSrc := func(body string) string { return strings.Replace(cycleWaitModule, "WAIT", body, 1) }
	cycleFourSrc := func(a, b string) string {
		return strings.NewReplacer("SENDA", a, "SENDB", b).Replace(cycleFourModule)
	}
	for _, tc := range []struct {
		name, src string
		want      []string // the cycle's blocked operations, first in the finding: text before which each is, and its op
	}{
		{"wait under the receiver's lock", cycleWaitSrc("\th.mu.Lock()\n\tdefer h.mu.Unlock()\n\th.sent.Wait()"),
			[]string{"h.out <- v send", "h.mu.Lock()\n\th.n++ lock", "h.sent.Wait() wait"}},
		{"wait after unlocking", cycleWaitSrc("\th.mu.Lock()\n\th.n--\n\th.mu.Unlock()\n\th.sent.Wait()"), nil},
		{"four goroutines", cycleFourSrc(sendA, sendB),
			[]string{"p.ca <- v send", "p.b.Lock()\n\tp.nb++\n\tp.b.Unlock()\n\treturn lock", "p.cb <- v send", "p.a.Lock()\n\tp.na++\n\tp.a.Unlock()\n\treturn lock"}},
		{"four goroutines, one sends after unlocking", cycleFourSrc(sendA, "p.b.Lock()\n\tp.nb++\n\tp.b.Unlock()\n\tp.cb <- v"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := deadlockTwin(t, "example.com/cyc", "cyc_test.go", tc.src, tc.want != nil)
			if !ok {
				return
			}
			if report.Title(&f) != "deadlock" {
				t.Errorf("title %q, want a deadlock on a channel or a WaitGroup", report.Title(&f))
			}
			var want []string
			for _, w := range tc.want {
				k := strings.LastIndex(w, " ")
				want = append(want, "cyc_test.go:"+strconv.Itoa(lineOf(tc.src, w[:k]))+" "+w[k+1:])
			}
			got := accessSites(&f)
			if len(got) < len(want) || !sameSet(got[:len(want)], want) {
				t.Errorf("blocked operations %v, want %v first", got, want)
			}
			// The report goes round the cycle.
			if s := report.CycleSentence(&f, filepath.Base); !strings.HasSuffix(s, "a cycle of "+strconv.Itoa(len(want))+" goroutines") {
				t.Errorf("cycle sentence %q, want one round %d goroutines", s, len(want))
			}
		})
	}
}

// deadlockTwin records one side of a paired deadlock test, the module of
// path holding file with src, whose run must pass: the buggy side (want)
// has exactly one finding, a predicted deadlock with a witness, which it
// returns with true; the fixed twin has none, and false tells the caller
// to stop there.
func deadlockTwin(t *testing.T, path, file, src string, want bool) (report.Finding, bool) {
	t.Helper()
	rep := recordModule(t, testModule(t, path, file, src))
	passed(t, rep)
	f, ok := twinFinding(t, rep, want)
	if ok && (f.Kind != "deadlock" || !f.Predicted || len(f.Witness) == 0) {
		t.Fatalf("finding %+v, want a predicted deadlock with a witness", f)
	}
	return f, ok
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
