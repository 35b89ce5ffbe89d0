// This file holds the end-to-end tests of issue 15's misuse kinds: for
// each, a real test whose recorded run does not fail is recorded, and seer
// predicts the misuse at the line marked "// misuse" with a witness the
// checker replayed; its fixed twin (the marked fix applied) is recorded
// too, and seer reports nothing on it.

package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

// misuseCases are the shapes of issue 15. Each src is a buggy test file;
// fix turns it into the fixed twin (old → new replacements).
var misuseCases = []struct {
	name string
	kind report.Kind
	src  string
	fix  []string
}{
	{
		// A send racing with close in a Stop method: the run submitted
		// before it stopped, but only because the test slept first
		// (a sleep is no synchronisation; waiting on
		// runtime.NumGoroutine would order them for real, through
		// runtime state the recording cannot see, and the prediction
		// would be one no schedule shows).
		name: "send racing with close in Stop", kind: "send-on-closed",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

type server struct {
	reqs chan int
	wg   sync.WaitGroup
}

func (s *server) submit(v int) {
	s.reqs <- v // misuse
}

func (s *server) Stop() {
	WAIT
	close(s.reqs)
}

func TestStop(t *testing.T) {
	s := &server{reqs: make(chan int, 1)}
	ADD
	go func() {
		DONE
		s.submit(1)
	}()
	time.Sleep(100 * time.Millisecond)
	s.Stop()
}
`,
		fix: []string{"WAIT", "s.wg.Wait()", "ADD", "s.wg.Add(1)", "DONE", "defer s.wg.Done()"},
	},
	{
		// wg.Add inside the goroutine: the run's goroutines had added
		// (and finished) before the Wait, which only a sleep made them
		// do.
		name: "Add inside the goroutine", kind: "waitgroup-reuse",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

func TestFetch(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	fetched := 0
	for i := 0; i < 2; i++ {
		OUTER
		go func() {
			INNER // misuse
			defer wg.Done()
			mu.Lock()
			fetched++
			mu.Unlock()
		}()
	}
	time.Sleep(100 * time.Millisecond)
	wg.Wait()
	mu.Lock()
	_ = fetched
	mu.Unlock()
}
`,
		fix: []string{"OUTER", "wg.Add(1)", "INNER // misuse", ""},
	},
	{
		// A Done that can come before its Add: the Add follows the go
		// statement; the run's goroutine slept before its Done.
		name: "Done before its Add", kind: "negative-waitgroup",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

func TestWorker(t *testing.T) {
	var wg sync.WaitGroup
	BEFORE
	go func() {
		time.Sleep(10 * time.Millisecond)
		wg.Done() // misuse
	}()
	AFTER
	wg.Wait()
}
`,
		fix: []string{"BEFORE", "wg.Add(1)", "AFTER", ""},
	},
	{
		// An extra Done: the producer calls Done for itself and once
		// more. The run counted the consumer (the test itself) before the
		// producer got there, which hid it.
		name: "an extra Done", kind: "negative-waitgroup",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

func TestPipeline(t *testing.T) {
	var wg sync.WaitGroup
	results := make(chan int, 1)
	wg.Add(1)
	go func() {
		time.Sleep(10 * time.Millisecond)
		results <- 1
		wg.Done()
		EXTRA
	}()
	SECOND
	<-results
	wg.Wait()
}
`,
		fix: []string{"EXTRA", "", "SECOND", ""},
	},
	{
		// Unlock in a defer plus an explicit Unlock on one path: in the
		// run the owner took the lock between the two, and the deferred
		// Unlock released the owner's lock instead of failing.
		name: "Unlock in a defer and on one path", kind: "unlock-of-unlocked",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

type cache struct {
	mu     sync.Mutex
	closed bool
	events chan string
}

func (c *cache) get(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock() // misuse
	if c.closed {
		EXPLICIT
		c.events <- "closed"
		time.Sleep(50 * time.Millisecond) // flushing
		return -1
	}
	return len(k)
}

func TestClosedCache(t *testing.T) {
	c := &cache{closed: true, events: make(chan string)}
	done := make(chan bool)
	go func() {
		c.get("a")
		done <- true
	}()
	<-c.events
	c.mu.Lock()
	<-done
}
`,
		fix: []string{"EXPLICIT", ""},
	},
}

func TestMisusePredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	// All buggy tests in one module and all fixed twins in another: two
	// recordings, each test a file of its own.
	buggy := map[string]string{}
	fixed := map[string]string{}
	want := map[string]int{} // test (and file) → the marked line
	kinds := map[string]report.Kind{}
	for k, tc := range misuseCases {
		b := strings.NewReplacer("EXTRA", "wg.Done() // misuse", "SECOND", "wg.Add(1)",
			"EXPLICIT", "c.mu.Unlock()", "OUTER", "", "INNER", "wg.Add(1)", "BEFORE", "", "AFTER", "wg.Add(1)",
			"WAIT", "", "ADD", "", "DONE", "").Replace(tc.src)
		f := strings.NewReplacer(tc.fix...).Replace(tc.src)
		f = strings.NewReplacer("EXTRA", "", "SECOND", "", "EXPLICIT", "",
			"WAIT", "", "ADD", "", "DONE", "", "OUTER", "", "INNER", "", "BEFORE", "", "AFTER", "").Replace(f)
		name := fmt.Sprintf("p%d_test.go", k)
		buggy[name], fixed[name] = b, f
		test := ""
		for n, l := range strings.Split(b, "\n") {
			if strings.Contains(l, "// misuse") {
				want[name] = n + 1 // one marked line per file
			}
			if strings.HasPrefix(l, "func Test") {
				test = strings.TrimSuffix(strings.TrimPrefix(l, "func "), "(t *testing.T) {")
			}
		}
		want[test], kinds[test] = want[name], tc.kind
	}
	t.Run("buggy", func(t *testing.T) {
		dir := testModuleFiles(t, "example.com/p", buggy)
		rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		passed(t, rep)
		got := map[string][]report.Finding{}
		for _, f := range rep.Findings {
			if f.Kind.IsMisuse() {
				got[f.Test] = append(got[f.Test], f)
			}
		}
		for test, kind := range kinds {
			fs := got[test]
			if len(fs) != 1 {
				t.Errorf("%s: misuse findings %+v, want one %s", test, fs, kind)
				continue
			}
			f := fs[0]
			if f.Kind != kind || !f.Predicted || len(f.Witness) == 0 {
				t.Errorf("%s: finding %+v, want a predicted %s with a witness", test, f, kind)
				continue
			}
			a := f.Accesses[len(f.Accesses)-1]
			if a.Line != want[test] {
				t.Errorf("%s: failing operation at line %d (%s), want %d", test, a.Line, a.Op, want[test])
			}
		}
		var b bytes.Buffer
		if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: dir}); err != nil {
			t.Fatal(err)
		}
		sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
		for _, kind := range kinds {
			if !strings.Contains(b.String(), `"ruleId": "`+string(kind)+`"`) {
				t.Errorf("SARIF has no %s result", kind)
			}
		}
	})
	t.Run("fixed", func(t *testing.T) {
		dir := testModuleFiles(t, "example.com/p", fixed)
		rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		passed(t, rep)
		if len(rep.Tests) != len(kinds) {
			t.Errorf("tests %+v, want %d", rep.Tests, len(kinds))
		}
		if len(rep.Findings) != 0 {
			t.Fatalf("findings in the fixed twins: %+v", rep.Findings)
		}
	})
}

// passed fails t unless every recorded test passed: the buggy tests'
// runs must not show the bug.
func passed(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, tt := range rep.Tests {
		if tt.Outcome != "pass" {
			t.Fatalf("%s: %s (%v); the recorded run must not fail", tt.Name, tt.Outcome, tt.Errors)
		}
	}
}

// testModuleFiles writes a module of the given files (names may hold
// directories) into a temporary directory and returns the directory.
func testModuleFiles(t *testing.T, path string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module " + path + "\n\ngo 1.26\n"
	for name, data := range files {
		name = filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestMisuseObserved records runs that die of the misuse: a send on a
// channel the test closed, a Done too many, an Unlock of a mutex already
// unlocked. The
// trace ends there, and seer reports the misuse as observed, at its line.
func TestMisuseObserved(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	cases := []struct {
		test string
		kind report.Kind
		body string
	}{
		{"TestDiesSending", "send-on-closed", `c := make(chan int, 1)
	close(c)
	c <- 1 // misuse`},
		{"TestDiesDone", "negative-waitgroup", `var wg sync.WaitGroup
	wg.Add(1)
	wg.Done()
	wg.Done() // misuse`},
		{"TestDiesUnlocking", "unlock-of-unlocked", `var mu sync.Mutex
	mu.Lock()
	mu.Unlock()
	mu.Unlock() // misuse`},
		// The second close is not in the trace (closechan panics before
		// it tells the race runtime): it comes from the panic's stack.
		{"TestDiesClosing", "close-of-closed", `c := make(chan int)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		close(c)
	}()
	wg.Wait()
	close(c) // misuse`},
		{"TestDiesClosingInGoroutine", "close-of-closed", `c := make(chan int)
	close(c)
	done := make(chan bool)
	go func() {
		close(c) // misuse
		done <- true
	}()
	<-done`},
	}
	// One module, each test recorded in a run of its own (each dies).
	files := map[string]string{}
	line := map[string]int{}
	for k, tc := range cases {
		src := "package p\n\nimport (\n\t\"sync\"\n\t\"testing\"\n)\n\nvar _ sync.Mutex\n\nfunc " + tc.test + "(t *testing.T) {\n\t" + tc.body + "\n}\n"
		files[fmt.Sprintf("p%d_test.go", k)] = src
		for n, l := range strings.Split(src, "\n") {
			if strings.Contains(l, "// misuse") {
				line[tc.test] = n + 1
			}
		}
	}
	dir := testModuleFiles(t, "example.com/p", files)
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, PerTest: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tests) != len(cases) {
		t.Fatalf("tests %+v, want %d", rep.Tests, len(cases))
	}
	for _, tt := range rep.Tests {
		if tt.Outcome == "pass" {
			t.Errorf("%s passed; it must die", tt.Name)
		}
	}
	for _, tc := range cases {
		var got []report.Finding
		for _, f := range rep.Findings {
			if f.Kind.IsMisuse() && f.Test == tc.test {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Kind != tc.kind || got[0].Predicted {
			t.Errorf("%s: misuse findings %+v, want one observed %s", tc.test, got, tc.kind)
			continue
		}
		if a := got[0].Accesses[len(got[0].Accesses)-1]; a.Line != line[tc.test] {
			t.Errorf("%s: failing operation at line %d, want %d", tc.test, a.Line, line[tc.test])
		}
		if tc.kind == "close-of-closed" {
			// The first close, from the trace, and the second, from
			// the panic, on the one channel the test closed.
			as := got[0].Accesses
			if len(as) != 2 || as[0].Op != "close" || as[0].Line >= line[tc.test] && tc.test == "TestDiesClosing" ||
				as[1].Goroutine == 0 || got[0].Variable != "c" {
				t.Errorf("%s: accesses %+v (variable %q), want the first close and the panicking one on c", tc.test, as, got[0].Variable)
			}
		}
	}
}
