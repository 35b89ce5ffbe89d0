// This file tests hangs ended at once (hang.go and the shadow runtime's
// watcher, runtime/hangwatch.go.in): a test whose goroutines all block
// on synchronisation is ended within seconds of a 10-minute -timeout,
// with each goroutine's wait; tests that sleep, wait on a timer's
// channel or an AfterFunc, or wait in netpoll on loopback are not.

package record

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

// TestHangScan: the scanner reads the watcher's lines and, after the
// fatal error, the stacks of the goroutines they name (not the others'),
// mapped to the trace's goroutines; output without the fatal error is no
// hang. The exit hook's report reads the same way, between its markers,
// with the goroutines the runtime proved leaked.
func TestHangScan(t *testing.T) {
	out := `=== RUN   TestAllBlocked
seer: hang: goroutine 1 is g2 [chan receive]
seer: hang: goroutine 7 is g9 [chan receive]
seer: hang: goroutine 8 is g10 [sync.Mutex.Lock]
fatal error: all goroutines are asleep - deadlock! (seer: ...)

goroutine 7 [chan receive]:
hangt.TestAllBlocked(0xc000140248?)
	/tmp/hangt/hang_test.go:18 +0x113
testing.tRunner(0xc000140248, 0x6984e8)
	/g/src/testing/testing.go:2036 +0x21d
created by testing.(*T).Run in goroutine 1
	/g/src/testing/testing.go:2101 +0xb13

goroutine 8 gp=0xc000003 m=nil [sync.Mutex.Lock, 2 minutes]:
sync.(*Mutex).Lock(0x544db9?)
	/g/src/sync/mutex.go:46 +0x15
hangt.TestAllBlocked.func1()
	/tmp/hangt/hang_test.go:15 +0x34
created by hangt.TestAllBlocked in goroutine 7
	/tmp/hangt/hang_test.go:14 +0x107

goroutine 30 [chan receive]:
other.f()
	/x.go:1 +0x1
`
	var s outputScan
	for _, line := range strings.Split(out, "\n") {
		s.note(line)
	}
	got := s.hang.result(map[uint32]trace.GoID{2: 1, 9: 4, 10: 5})
	want := []HangWait{
		{G: 1, GoID: 1, Reason: "chan receive"},
		{G: 4, GoID: 7, Reason: "chan receive", Stack: []trace.Frame{
			{Func: "hangt.TestAllBlocked", File: "/tmp/hangt/hang_test.go", Line: 18},
			{Func: "testing.tRunner", File: "/g/src/testing/testing.go", Line: 2036},
			{Func: "created by testing.(*T).Run", File: "/g/src/testing/testing.go", Line: 2101},
		}},
		{G: 5, GoID: 8, Reason: "sync.Mutex.Lock", Stack: []trace.Frame{
			{Func: "sync.(*Mutex).Lock", File: "/g/src/sync/mutex.go", Line: 46},
			{Func: "hangt.TestAllBlocked.func1", File: "/tmp/hangt/hang_test.go", Line: 15},
			{Func: "created by hangt.TestAllBlocked", File: "/tmp/hangt/hang_test.go", Line: 14},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waits\n%+v\nwant\n%+v", got, want)
	}
	if s.fatal == "" {
		t.Error("the fatal error line was not kept")
	}

	var exit outputScan
	for _, line := range strings.Split(`--- PASS: TestLeak (0.00s)
PASS
seer: left: goroutine 7 is g9 [chan receive]
seer: left: goroutine 18 is g11 [leaked, chan receive]
seer: left: stacks
goroutine 1 [running]:
os.Exit(0x0)
	/g/src/os/proc.go:75 +0x3a

goroutine 18 [chan receive (leaked)]:
example.com/left.TestLeak.func1()
	/tmp/leftt/left_test.go:22 +0x31
created by example.com/left.TestLeak in goroutine 6
	/tmp/leftt/left_test.go:21 +0x9a

seer: left: end
goroutine 99 [chan receive]:
not.this()
	/x.go:1 +0x1
`, "\n") {
		exit.note(line)
	}
	wantLeft := []HangWait{
		{G: 2, GoID: 7, Reason: "chan receive"},
		{G: 3, GoID: 18, Reason: "chan receive", Proven: true, Stack: []trace.Frame{
			{Func: "example.com/left.TestLeak.func1", File: "/tmp/leftt/left_test.go", Line: 22},
			{Func: "created by example.com/left.TestLeak", File: "/tmp/leftt/left_test.go", Line: 21},
		}},
	}
	if got := exit.left.result(map[uint32]trace.GoID{9: 2, 11: 3}); !reflect.DeepEqual(got, wantLeft) {
		t.Errorf("left\n%+v\nwant\n%+v", got, wantLeft)
	}
	if exit.hang.result(nil) != nil {
		t.Error("the exit hook's report read as a hang")
	}

	var quiet outputScan
	for _, line := range strings.Split("seer: hang: goroutine 1 is g2 [chan receive]\nPASS\n", "\n") {
		quiet.note(line)
	}
	if w := quiet.hang.result(nil); w != nil {
		t.Errorf("waits %+v without the fatal error", w)
	}
}

// hangTests are the tests of TestHangEndedAtOnce's module, each run on
// its own.
const hangTests = `package hangt

import (
	"net"
	"sync"
	"testing"
	"time"
)

// TestAllBlocked deadlocks: the test holds mu while it receives, and
// the goroutine that would send waits for mu.
func TestAllBlocked(t *testing.T) {
	var mu sync.Mutex
	ch := make(chan int)
	mu.Lock()
	go func() {
		mu.Lock()
		ch <- 1
	}()
	<-ch
}

// TestWaitGroupNeverDone deadlocks in WaitGroup.Wait and a select.
func TestWaitGroupNeverDone(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	never, nor := make(chan int), make(chan int)
	go func() {
		select {
		case <-never:
		case nor <- 1:
		}
		wg.Done()
	}()
	wg.Wait()
}

func TestSleeps(t *testing.T) {
	done := make(chan bool)
	go func() {
		time.Sleep(3 * time.Second)
		done <- true
	}()
	<-done
}

func TestTimerChannel(t *testing.T) {
	never := make(chan int)
	select {
	case <-never:
	case <-time.After(3 * time.Second):
	}
}

func TestAfterFunc(t *testing.T) {
	done := make(chan bool)
	time.AfterFunc(3*time.Second, func() { done <- true })
	<-done
}

// TestParallel's harness waits in tRunner for its parallel subtests,
// which sleep.
func TestParallel(t *testing.T) {
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			time.Sleep(2 * time.Second)
		})
	}
}

func TestNetpoll(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		time.Sleep(3 * time.Second)
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			c.Write([]byte("x"))
			c.Close()
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	c.Read(b)
	c.Close()
}
`

// TestHangEndedAtOnce records each test of hangTests with a 10-minute
// -timeout: the two that deadlock end within seconds with every
// goroutine's wait reason and the user frame it waits at; the five that
// wait on a sleep, a timer's channel, an AfterFunc, parallel subtests
// that sleep or a loopback connection pass, with no hang.
func TestHangEndedAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModule(t, "example.com/hangt", map[string]string{"hang_test.go": hangTests})
	b, err := Build(context.Background(), RecordOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tc := range []struct {
		test  string
		waits []string // "reason at line" of each goroutine of the test, sorted; nil: no hang
	}{
		{"TestAllBlocked", []string{"chan receive at 20", "sync.Mutex.Lock at 17"}},
		{"TestWaitGroupNeverDone", []string{"select at 29", "sync.WaitGroup.Wait at 35"}},
		{"TestSleeps", nil},
		{"TestTimerChannel", nil},
		{"TestAfterFunc", nil},
		{"TestParallel", nil},
		{"TestNetpoll", nil},
	} {
		t.Run(tc.test, func(t *testing.T) {
			res, err := b.Run(context.Background(), RecordOptions{Run: "^" + tc.test + "$", Timeout: 10 * time.Minute, NoFile: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range res.Hang {
				line := -1
				for _, fr := range w.Stack {
					if strings.HasPrefix(fr.Func, "example.com/hangt.") {
						line = fr.Line
						break
					}
				}
				if line < 0 {
					continue // the testing harness's goroutines
				}
				if w.G == 0 || res.Trace.Goroutines[w.G].Test != tc.test {
					t.Errorf("goroutine %d (trace %d) is not of %s", w.GoID, w.G, tc.test)
				}
				got = append(got, w.Reason+" at "+strconv.Itoa(line))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.waits) {
				t.Errorf("waits %q, want %q (outcome %+v)", got, tc.waits, res.Outcome)
			}
			if tc.waits == nil {
				if res.Outcome.Result != "pass" {
					t.Errorf("outcome %+v, want pass", res.Outcome)
				}
				return
			}
			if !strings.Contains(res.Outcome.Message, "all goroutines are asleep") {
				t.Errorf("outcome %+v, want Go's deadlock message", res.Outcome)
			}
			if res.Duration.Run > time.Minute {
				t.Errorf("the hung run took %v", res.Duration.Run)
			}
		})
	}
}
