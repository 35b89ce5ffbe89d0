// This file holds the end-to-end tests of issue 15's channel deadlocks:
// a mutex held across an unbuffered send whose receiver takes the same
// mutex first is predicted from a run that does not hang, with a witness
// the checker replayed; its fixed twin is not reported.

package check

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

// lockSendModule publishes values through a hub that counts them under
// its mutex. The publisher sleeps first, so that in the recorded run the
// test's count() takes the mutex before publish() does and nothing
// hangs; the sleep orders nothing, and in another schedule publish()
// holds the mutex while it waits for the test's receive, and the test
// waits for the mutex in count(). SEND is replaced by the end of
// publish().
const lockSendModule = `package locksend

import (
	"sync"
	"testing"
	"time"
)

type hub struct {
	mu  sync.Mutex
	n   int
	out chan int
}

// publish counts v and hands it on.
func (h *hub) publish(v int) {
	h.mu.Lock()
	h.n++
	SEND
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

func TestPublish(t *testing.T) {
	h := &hub{out: make(chan int)}
	done := make(chan bool)
	go func() {
		time.Sleep(20 * time.Millisecond)
		h.publish(1)
		done <- true
	}()
	if n := h.count(); n != 0 {
		t.Errorf("counted %d before publishing", n)
	}
	if v := <-h.out; v != 1 {
		t.Errorf("got %d", v)
	}
	<-done
}

// TestPublishGroup is TestPublish with the count and the receive in a
// goroutine of their own and the test waiting for both on a WaitGroup.
func TestPublishGroup(t *testing.T) {
	h := &hub{out: make(chan int)}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		h.publish(1)
	}()
	go func() {
		defer wg.Done()
		if n := h.count(); n != 0 {
			t.Errorf("counted %d before publishing", n)
		}
		<-h.out
	}()
	wg.Wait()
}
`

func TestChannelDeadlockPredicted(t *testing.T) {
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
			src := strings.Replace(lockSendModule, "SEND", tc.send, 1)
			dir := testModule(t, "example.com/locksend", "send_test.go", src)
			rep := recordModule(t, dir)
			passed(t, rep)
			f, ok := twinFinding(t, rep, tc.want)
			if !ok {
				return
			}
			// One finding for both tests: they deadlock at the same
			// sites. Alone, TestPublishGroup's test goroutine waits on
			// the WaitGroup, whose counter the two stuck goroutines hold
			// up.
			group, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Run: "^TestPublishGroup$"})
			if err != nil {
				t.Fatal(err)
			}
			if len(group.Findings) != 1 {
				t.Fatalf("TestPublishGroup alone: findings %+v, want one deadlock", group.Findings)
			}
			ops := accessSites(&group.Findings[0])
			wait := "send_test.go:" + strconv.Itoa(lineOf(src, "wg.Wait()")) + " wait"
			if strings.Join(ops, ", ") != "send_test.go:19 send, send_test.go:24 lock, "+wait {
				t.Errorf("TestPublishGroup: blocked operations %v, want publish's send, count's lock, the test's %s", ops, wait)
			}
			if f.Kind != "deadlock" || !f.Predicted || f.Test != "TestPublish" || len(f.Witness) == 0 || report.Title(&f) != "deadlock" {
				t.Fatalf("finding %+v, want a predicted deadlock in TestPublish with a witness", f)
			}
			got := accessSites(&f)
			if strings.Join(got, ", ") != "send_test.go:19 send, send_test.go:24 lock" {
				t.Errorf("blocked operations %v, want publish's send and count's lock", got)
			}
			if h := f.Accesses[0].Holds; len(h) != 1 || h[0].Line != 17 || h[0].Lock != "h.mu" {
				t.Errorf("the sender holds %+v, want h.mu locked at line 17", h)
			}
			rel := func(s string) string { return filepath.Base(s) }
			if s := strings.Join(report.HoldSentences(&f, rel), "; "); s != "goroutine "+strconv.Itoa(f.Accesses[0].Goroutine)+" holds h.mu, locked at send_test.go:17, while it waits to send on h.out at :19" {
				t.Errorf("hold sentences %q", s)
			}
			var b bytes.Buffer
			if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: dir}); err != nil {
				t.Fatal(err)
			}
			sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
		})
	}
}

// poolModule sums the squares of its inputs with a worker each and
// returns at the first error. With unbuffered channels (CAP empty) the
// workers that finish after the error wait for ever to send their
// result: the run shows the leak. The fixed twin buffers the channels
// for every worker. The test waits for the workers' sleep to pass, so
// that in the fixed twin they have ended before the process exits.
const poolModule = `package pool

import (
	"errors"
	"testing"
	"time"
)

func work(i int) (int, error) {
	if i == 0 {
		return 0, errors.New("bad input")
	}
	time.Sleep(10 * time.Millisecond)
	return i * i, nil
}

func sumAll(in []int) (int, error) {
	results := make(chan int CAP)
	errs := make(chan error CAP)
	for _, v := range in {
		go func() {
			r, err := work(v)
			if err != nil {
				errs <- err
				return
			}
			results <- r
		}()
	}
	sum := 0
	for range in {
		select {
		case r := <-results:
			sum += r
		case err := <-errs:
			return 0, err
		}
	}
	return sum, nil
}

func TestSumAll(t *testing.T) {
	if _, err := sumAll([]int{0, 1, 2, 3}); err == nil {
		t.Fatal("no error")
	}
	time.Sleep(100 * time.Millisecond)
}

func TestLast(t *testing.T) {}
`

// hangModule really deadlocks: the test holds mu while it receives from
// ch, and the goroutine that would send takes mu first.
const hangModule = `package hang

import (
	"sync"
	"testing"
)

func TestHang(t *testing.T) {
	var mu sync.Mutex
	ch := make(chan int)
	mu.Lock()
	go func() {
		mu.Lock()
		ch <- 1
		mu.Unlock()
	}()
	<-ch
	mu.Unlock()
}
`

func TestObservedBlocking(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	rel := func(s string) string { return filepath.Base(s) }
	for _, tc := range []struct {
		name, src string
		timeout   time.Duration
		hang      time.Duration // Options.Hang
		want      []string      // the findings' titles and sentences
	}{
		{"pool returns early", strings.ReplaceAll(poolModule, " CAP", ""), time.Minute, 0, []string{
			"goroutine leak in TestSumAll: goroutine G (created at x_test.go:21) never ended: blocked sending on a channel at x_test.go:27; 3 goroutines of the test stopped there",
		}},
		{"pool with buffered channels", strings.ReplaceAll(poolModule, " CAP", ", len(in)"), time.Minute, 0, nil},
		// The hang watcher ends the run at once and says where each
		// goroutine waits, the receive included.
		{"a test that hangs", hangModule, 10 * time.Minute, 0, []string{
			"deadlock in TestHang: goroutine G (the test's own) never ended: blocked receiving from a channel at x_test.go:17; goroutine G (created at x_test.go:12) never ended: blocked locking a mutex at x_test.go:13",
		}},
		// Without it the test times out, and a receive leaves no event.
		{"a test that hangs until its timeout", hangModule, 3 * time.Second, -1, []string{
			"deadlock in TestHang: goroutine G (the test's own) never ended: its last recorded operation is go at x_test.go:12, in example.com/x.TestHang; the call it blocks in (a receive, a select with no send case, a sleep or a system call leave no event) comes after it; goroutine G (created at x_test.go:12) never ended: blocked locking a mutex at x_test.go:13",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testModule(t, "example.com/x", "x_test.go", tc.src)
			rep, err := Run(context.Background(), Options{Dir: dir, Timeout: tc.timeout, Hang: tc.hang})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				if f.Predicted {
					t.Errorf("predicted finding %+v", f)
					continue
				}
				s := report.Title(&f) + " in " + f.Test + ": " + strings.Join(report.BlockedSentences(&f, rel), "; ")
				got = append(got, goroutineNumbers.ReplaceAllString(s, "goroutine G "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			var b bytes.Buffer
			if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: dir}); err != nil {
				t.Fatal(err)
			}
			sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
		})
	}
}

var goroutineNumbers = regexp.MustCompile(`goroutine \d+ `)

// gateModule opens a gate that a goroutine waits at with a sync.Cond.
// WAIT is the wait: a bare c.Wait() (the bug: if open runs first, the
// Signal finds nobody and the Wait that follows never wakes) or the loop
// over the condition. The opener sleeps first, so that the recorded run
// waits, then signals, and does not hang.
const gateModule = `package gate

import (
	"sync"
	"testing"
	"time"
)

type gate struct {
	mu    sync.Mutex
	c     *sync.Cond
	ready bool
}

func (g *gate) wait() {
	g.mu.Lock()
	WAIT
	g.mu.Unlock()
}

func (g *gate) open() {
	g.mu.Lock()
	g.ready = true
	g.c.Signal()
	g.mu.Unlock()
}

func TestGate(t *testing.T) {
	g := &gate{}
	g.c = sync.NewCond(&g.mu)
	done := make(chan bool)
	go func() {
		g.wait()
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	g.open()
	<-done
}
`

func TestCondWaitPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	for _, tc := range []struct {
		name, wait string
		want       bool
	}{
		{"wait without a loop", "g.c.Wait()", true},
		{"wait in a loop", "for !g.ready {\n\t\tg.c.Wait()\n\t}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(gateModule, "WAIT", tc.wait, 1)
			dir := testModule(t, "example.com/gate", "gate_test.go", src)
			f, ok := twinFinding(t, recordModule(t, dir), tc.want)
			if !ok {
				return
			}
			if f.Kind != "deadlock" || !f.Predicted || f.Test != "TestGate" || len(f.Accesses) != 2 {
				t.Fatalf("finding %+v, want a predicted deadlock in TestGate: the Wait and the test's receive", f)
			}
			if a := f.Accesses[0]; a.Op != "cond-wait" || a.Line != 17 {
				t.Errorf("first blocked operation %s at line %d, want the cond-wait at 17", a.Op, a.Line)
			}
			if a := f.Accesses[1]; a.Op != "recv" {
				t.Errorf("second blocked operation %s, want the test's receive from done", a.Op)
			}
		})
	}
}
