// This file holds the end-to-end tests of issue 32's predicted nil
// dereferences (and indexes of a nil slice, and assignments to a nil
// map): a Close that stores nil into a field under the mutex a watcher
// takes before it dereferences (indexes, assigns an entry of) the field. In the recorded runs
// the watcher goes first (Close waits on a sleep, which orders nothing),
// so nothing panics; seer predicts the panic of the other order. Each
// has a fixed twin on which seer says nothing.

package check

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

// nilDerefCases are the buggy programs and their fixed twins: WATCH is
// replaced by the buggy or the fixed watcher, WAIT by what the test does
// before Close.
var nilDerefCases = []struct {
	test, src            string
	watch, fixedWatch    string
	wait, fixedWait      string
	store, deref, object string // the lines' texts, and what is read
	kind                 report.Kind
}{
	{
		// The shape: a pointer field, fixed by a nil check.
		test: "TestWatch",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

type conn struct{ n int }

type client struct {
	mu   sync.Mutex
	conn *conn
}

// watch reports the connection's number.
func (c *client) watch() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	WATCH
}

// Close drops the connection.
func (c *client) Close() {
	c.mu.Lock()
	c.conn = nil // store
	c.mu.Unlock()
}

func TestWatch(t *testing.T) {
	c := &client{conn: &conn{n: 1}}
	done := make(chan int)
	go func() { done <- c.watch() }()
	WAIT
	c.Close()
	<-done
}
`,
		watch:      "return c.conn.n // deref",
		fixedWatch: "if c.conn == nil {\n\t\treturn 0\n\t}\n\treturn c.conn.n // deref",
		wait:       "time.Sleep(100 * time.Millisecond)",
		fixedWait:  "time.Sleep(100 * time.Millisecond)",
		store:      "c.conn = nil // store", deref: "return c.conn.n // deref", object: "c.conn",
		kind: report.KindNilDeref,
	},
	{
		// An interface field, fixed by waiting for the watcher before
		// Close.
		test: "TestReader",
		src: `package p

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

type stream struct {
	mu sync.Mutex
	r  io.Reader
}

// next reads a byte.
func (s *stream) next(b []byte) {
	s.mu.Lock()
	WATCH
	s.mu.Unlock()
}

// Close drops the reader.
func (s *stream) Close() {
	s.mu.Lock()
	s.r = nil // store
	s.mu.Unlock()
}

func TestReader(t *testing.T) {
	s := &stream{r: strings.NewReader("x")}
	done := make(chan bool)
	go func() { s.next(make([]byte, 1)); done <- true }()
	WAIT
	s.Close()
	time.Sleep(time.Millisecond)
}
`,
		watch:      "s.r.Read(b) // deref",
		fixedWatch: "s.r.Read(b) // deref",
		wait:       "time.Sleep(100 * time.Millisecond)\n\tdefer func() { <-done }()",
		fixedWait:  "<-done",
		store:      "s.r = nil // store", deref: "s.r.Read(b) // deref", object: "s.r",
		kind: report.KindNilDeref,
	},
	{
		// A slice set to nil, indexed by the reader: index out of range.
		// Fixed by a length check.
		test: "TestBuffer",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

type buffer struct {
	mu   sync.Mutex
	data []byte
}

// first returns the first byte.
func (b *buffer) first() byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	WATCH
}

// Reset drops the data.
func (b *buffer) Reset() {
	b.mu.Lock()
	b.data = nil // store
	b.mu.Unlock()
}

func TestBuffer(t *testing.T) {
	b := &buffer{data: []byte("x")}
	done := make(chan byte)
	go func() { done <- b.first() }()
	WAIT
	b.Reset()
	<-done
}
`,
		watch:      "return b.data[0] // deref",
		fixedWatch: "if len(b.data) == 0 {\n\t\treturn 0\n\t}\n\treturn b.data[0] // deref",
		wait:       "time.Sleep(100 * time.Millisecond)",
		fixedWait:  "time.Sleep(100 * time.Millisecond)",
		store:      "b.data = nil // store", deref: "return b.data[0] // deref", object: "b.data",
		kind: report.KindIndexOutOfRange,
	},

	{
		// A map set to nil, then assigned an entry: assignment to entry
		// in nil map. Fixed by a nil check.
		test: "TestRegistry",
		src: `package p

import (
	"sync"
	"testing"
	"time"
)

type registry struct {
	mu    sync.Mutex
	names map[string]int
}

// add registers a name.
func (r *registry) add(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	WATCH
}

// Reset drops the names.
func (r *registry) Reset() {
	r.mu.Lock()
	r.names = nil // store
	r.mu.Unlock()
}

func TestRegistry(t *testing.T) {
	r := &registry{names: map[string]int{}}
	done := make(chan bool)
	go func() { r.add("a"); done <- true }()
	WAIT
	r.Reset()
	<-done
}
`,
		watch:      "r.names[name] = 1 // deref",
		fixedWatch: "if r.names == nil {\n\t\treturn\n\t}\n\tr.names[name] = 1 // deref",
		wait:       "time.Sleep(100 * time.Millisecond)",
		fixedWait:  "time.Sleep(100 * time.Millisecond)",
		store:      "r.names = nil // store", deref: "r.names[name] = 1 // deref", object: "r.names",
		kind: report.KindNilMapWrite,
	},
}

func TestNilDerefPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	buggy := map[string]string{}
	fixed := map[string]string{}
	for _, tc := range nilDerefCases {
		name := strings.ToLower(tc.test) + "_test.go"
		buggy[name] = strings.NewReplacer("WATCH", tc.watch, "WAIT", tc.wait).Replace(tc.src)
		fixed[name] = strings.NewReplacer("WATCH", tc.fixedWatch, "WAIT", tc.fixedWait).Replace(tc.src)
	}
	t.Run("buggy", func(t *testing.T) {
		rep, got := recordPassing(t, buggy)
		for _, tc := range nilDerefCases {
			src := buggy[strings.ToLower(tc.test)+"_test.go"]
			fs := got[tc.test]
			if len(fs) != 1 {
				t.Errorf("%s: findings %+v, want one predicted nil dereference", tc.test, fs)
				continue
			}
			f := fs[0]
			if f.Kind != tc.kind || !f.Predicted || len(f.Witness) == 0 || len(f.Accesses) != 2 {
				t.Errorf("%s: finding %+v, want a predicted %s with a witness", tc.test, f, tc.kind)
				continue
			}
			w, r := f.Accesses[0], f.Accesses[1]
			if w.Op != "write" || w.Line != lineOf(src, tc.store) || r.Op != "read" || r.Line != lineOf(src, tc.deref) {
				t.Errorf("%s: accesses %v, want the store at %d and the read at %d", tc.test, accessSites(&f), lineOf(src, tc.store), lineOf(src, tc.deref))
			}
			if r.Variable != tc.object {
				t.Errorf("%s: the read is of %q, want %q", tc.test, r.Variable, tc.object)
			}
			if s := report.NilDerefSentence(&f); !strings.Contains(s, "sees nil") || !strings.Contains(s, tc.object) {
				t.Errorf("%s: sentence %q", tc.test, s)
			}
			if len(report.ReorderedSentences(&f, filepath.Base)) == 0 {
				t.Errorf("%s: no sentence names the reordered critical sections: %+v", tc.test, f.Reordered)
			}
		}
		sarifHolds(t, rep, `"NilDereference"`, `"IndexOutOfRange"`, `"NilMapWrite"`)
	})
	t.Run("fixed", func(t *testing.T) { fixedClean(t, fixed, len(nilDerefCases)) })
}

// sarifHolds checks that rep's SARIF log is valid and holds each of
// wants.
func sarifHolds(t *testing.T, rep *report.Report, wants ...string) {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: "/"}); err != nil {
		t.Fatal(err)
	}
	sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
	for _, want := range wants {
		if !strings.Contains(b.String(), want) {
			t.Errorf("SARIF has no %s", want)
		}
	}
}

// fixedClean records a module of fixed twins, whose n tests must pass,
// and checks that seer reports nothing of any kind on them.
func fixedClean(t *testing.T, files map[string]string, n int) {
	t.Helper()
	rep := recordModule(t, testModuleFiles(t, "example.com/p", files))
	passed(t, rep)
	if len(rep.Tests) != n {
		t.Errorf("tests %+v, want %d", rep.Tests, n)
	}
	if len(rep.Findings) != 0 {
		t.Fatalf("findings in the fixed twins: %+v", rep.Findings)
	}
}

// recordPassing records a module of files, whose tests must pass, and
// returns its report and its findings by test.
func recordPassing(t *testing.T, files map[string]string) (*report.Report, map[string][]report.Finding) {
	t.Helper()
	rep := recordModule(t, testModuleFiles(t, "example.com/p", files))
	passed(t, rep)
	got := map[string][]report.Finding{}
	for _, f := range rep.Findings {
		got[f.Test] = append(got[f.Test], f)
	}
	return rep, got
}
