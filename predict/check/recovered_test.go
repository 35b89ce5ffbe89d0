// This file holds the end-to-end test of issue 32's item 8: a misuse the
// program expects (it recovers the panic) is not reported, and one that
// nothing recovers still is, observed or predicted.

package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

// recoveredSrc holds tests whose runs send on a closed channel (or take a
// WaitGroup below zero) and recover the panic, as ristretto's
// TestCacheProcessItems does (defer func() { require.NotNil(t,
// recover()) }()), in the test's goroutine and in one of its own.
const recoveredSrc = `package p

import (
	"sync"
	"testing"
)

type cache struct {
	setBuf chan int
}

func (c *cache) Close() { close(c.setBuf) }

func (c *cache) Set(v int) { c.setBuf <- v }

func TestRecoveredInTest(t *testing.T) {
	c := &cache{setBuf: make(chan int, 1)}
	c.Close()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	c.Set(1)
}

func TestRecoveredInGoroutine(t *testing.T) {
	c := &cache{setBuf: make(chan int, 1)}
	c.Close()
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		c.Set(1)
	}()
	if <-done == nil {
		t.Error("no panic")
	}
}

func TestRecoveredDone(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	wg.Done()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	wg.Done()
}
`

// unrecoveredSrc holds a send racing with Close that nothing recovers:
// the run sent first (a sleep, which is no synchronisation, made it), and
// seer predicts the panic.
const unrecoveredSrc = `package p

import (
	"testing"
	"time"
)

type server struct {
	reqs chan int
}

func (s *server) submit(v int) {
	s.reqs <- v // misuse
}

func (s *server) Stop() { close(s.reqs) }

func TestUnrecovered(t *testing.T) {
	s := &server{reqs: make(chan int, 1)}
	go s.submit(1)
	time.Sleep(100 * time.Millisecond)
	s.Stop()
}
`

// TestRecoveredMisuse: the recovered misuses give no finding of any kind;
// the unrecovered send racing with Close, in the same module, is
// predicted at its line (beside the race of the send and the close).
func TestRecoveredMisuse(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModuleFiles(t, "example.com/p", map[string]string{
		"recovered_test.go":   recoveredSrc,
		"unrecovered_test.go": unrecoveredSrc,
	})
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	passed(t, rep)
	if len(rep.Tests) != 4 {
		t.Fatalf("tests %+v, want 4", rep.Tests)
	}
	line := 0
	for n, l := range strings.Split(unrecoveredSrc, "\n") {
		if strings.Contains(l, "// misuse") {
			line = n + 1
		}
	}
	var unrecovered int
	for _, f := range rep.Findings {
		switch {
		case strings.HasPrefix(f.Test, "TestRecovered"):
			t.Errorf("%s: finding %s %+v; the test recovers its panic", f.Test, f.Kind, f.Accesses)
		case f.Test == "TestUnrecovered" && f.Kind == report.Kind("send-on-closed"):
			unrecovered++
			a := f.Accesses[len(f.Accesses)-1]
			if !f.Predicted || len(f.Witness) == 0 || a.Line != line {
				t.Errorf("TestUnrecovered: finding %+v (send at line %d), want a predicted send-on-closed at line %d with a witness", f, a.Line, line)
			}
		case f.Test == "TestUnrecovered" && f.Kind == report.Kind("race"):
			// The send and the close race as well (Go's race detector
			// reports it too): a real finding of its own.
		default:
			t.Errorf("%s: unexpected finding %s %+v", f.Test, f.Kind, f.Accesses)
		}
	}
	if unrecovered != 1 {
		t.Errorf("TestUnrecovered: %d send-on-closed findings, want 1", unrecovered)
	}
}
