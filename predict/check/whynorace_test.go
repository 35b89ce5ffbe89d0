package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

// Each test shares one variable between two goroutines in a way that
// orders the accesses in every schedule: by a mutex, a channel handoff, a
// WaitGroup, a go statement, an atomic flag, and a critical section that
// must come first because another reads what it wrote (the lock rule).
// TestRacy's pair races, so that it is reported and not explained.
const whyModule = `package why

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

var sink int

func TestMutex(t *testing.T) {
	var mu sync.Mutex
	n := 0
	start, done := make(chan bool), make(chan bool)
	go func() {
		<-start // the order of the sections is fixed, for the golden text
		mu.Lock()
		n++
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	n++
	mu.Unlock()
	start <- true
	<-done
}

func TestChannel(t *testing.T) {
	msg := 0
	ch := make(chan int)
	go func() {
		msg = 42
		ch <- 1
	}()
	<-ch
	sink = msg
}

func TestWaitGroup(t *testing.T) {
	var wg sync.WaitGroup
	total := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		total = 7
	}()
	wg.Wait()
	sink = total
}

var config int

func TestGo(t *testing.T) {
	config = 3
	done := make(chan bool)
	go func() {
		sink = config
		done <- true
	}()
	<-done
}

func TestAtomicFlag(t *testing.T) {
	var ready atomic.Bool
	data := 0
	go func() {
		data = 9
		ready.Store(true)
	}()
	for !ready.Load() {
	}
	sink = data
}

func TestLockRule(t *testing.T) {
	var mu sync.Mutex
	ready, data := false, 0
	done := make(chan bool)
	go func() {
		for {
			mu.Lock()
			r := ready
			mu.Unlock()
			if r {
				break
			}
			runtime.Gosched()
		}
		sink = data
		done <- true
	}()
	mu.Lock()
	ready = true
	data = 7
	mu.Unlock()
	<-done
}

func TestRacy(t *testing.T) {
	x := 0
	done := make(chan bool)
	go func() {
		x = 1
		done <- true
	}()
	sink = x
	<-done
}
`

// whyText is every explained pair of rep, one block each, ordered by test
// and lines, file names shortened to their base.
func whyText(rep *report.Report) string {
	var blocks []string
	for i := range rep.Ordered {
		o := &rep.Ordered[i]
		if o.Lock != "" && len(o.Held) == 2 && o.Accesses[1].Line < o.Accesses[0].Line {
			// Which section ran first is the schedule's choice, and a
			// common lock does not depend on it: by line.
			c := *o
			c.Accesses[0], c.Accesses[1] = o.Accesses[1], o.Accesses[0]
			c.Held = []report.Step{o.Held[1], o.Held[0]}
			o = &c
		}
		a, b := &o.Accesses[0], &o.Accesses[1]
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s: %s %s at %s:%d (g%d) and %s at %s:%d (g%d)\n", o.Test, o.Variable,
			a.Op, filepath.Base(a.File), a.Line, a.Goroutine, b.Op, filepath.Base(b.File), b.Line, b.Goroutine)
		for _, s := range report.WhyNoRaceSentences(o, filepath.Base) {
			fmt.Fprintf(&sb, "\t%s\n", s)
		}
		blocks = append(blocks, sb.String())
	}
	sort.Strings(blocks)
	// A receive that blocked is recorded by its sender on its behalf,
	// at the receiving goroutine's previous event (trace/convert.go), so
	// its line, and the channel's name found there, depend on whether the
	// run blocked: the golden text leaves them out.
	return parkedRecv.ReplaceAllString(strings.Join(blocks, ""), "receives from (a channel) after goroutine")
}

var parkedRecv = regexp.MustCompile(`receives from .*? after goroutine`)

// The shapes above, recorded for real: each ordered pair is explained by
// the rule that orders it, and the racy pair is reported, not explained.
func TestWhyNoRaceShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModule(t, "example.com/why", "why_test.go", whyModule)
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, WhyNoRace: true})
	if err != nil {
		t.Fatal(err)
	}
	got := whyText(rep)
	golden := "testdata/whynorace.golden"
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if got != string(want) {
		t.Errorf("explanations differ from %s (-update rewrites it):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
	racy := 0
	reported := map[[2]int]bool{}
	for _, f := range rep.Findings {
		if f.Test == "TestRacy" && f.Kind == "race" {
			racy++
			reported[[2]int{f.Accesses[0].Line, f.Accesses[1].Line}] = true
			reported[[2]int{f.Accesses[1].Line, f.Accesses[0].Line}] = true
		} else {
			t.Errorf("unexpected finding %s in %s at line %d", f.Kind, f.Test, f.Accesses[0].Line)
		}
	}
	if racy != 1 {
		t.Errorf("want one race in TestRacy, got %d", racy)
	}
	tests := map[string]bool{}
	for _, o := range rep.Ordered {
		tests[o.Test] = true
		if reported[[2]int{o.Accesses[0].Line, o.Accesses[1].Line}] {
			t.Errorf("the reported race is explained as ordered: %+v", o)
		}
		if o.Lock == "" && len(o.Chain) == 0 {
			t.Errorf("%s: no reason for lines %d and %d", o.Test, o.Accesses[0].Line, o.Accesses[1].Line)
		}
	}
	for _, name := range []string{"TestMutex", "TestChannel", "TestWaitGroup", "TestGo", "TestAtomicFlag", "TestLockRule"} {
		if !tests[name] {
			t.Errorf("%s: no pair explained", name)
		}
	}
}
