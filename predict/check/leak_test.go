// This file holds the end-to-end tests of issue 15's predicted leaks: a
// select with a timeout (or a default case) that received the result of
// a goroutine on an unbuffered channel in the recorded run, which another
// schedule leaves sending for ever; and their fixed twins, on which seer
// says nothing.

package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

// leakCases are the buggy programs, one test each. SEND marks the
// send that leaks (and is replaced by the twin's send), MAKE the make of
// the result channel. In the recorded runs the result comes first: the
// timeout is a minute, and the polling receiver sleeps before its select
// (which orders nothing).
var leakCases = []struct {
	test, src  string
	make, send string // the fixed twin's
}{
	{
		test: "TestFetch",
		src: `package p

import (
	"errors"
	"testing"
	"time"
)

func compute() int { return 42 }

// fetch waits for the result, or gives up after d.
func fetch(d time.Duration) (int, error) {
	ch := MAKE
	go func() {
		SEND
	}()
	select { // select
	case v := <-ch:
		return v, nil
	case <-time.After(d):
		return 0, errors.New("timed out")
	}
}

func TestFetch(t *testing.T) {
	if v, err := fetch(time.Minute); err != nil || v != 42 {
		t.Fatal(v, err)
	}
}
`,
		make: "make(chan int, 1)",
		send: "ch <- compute() // leak",
	},
	{
		test: "TestFetchContext",
		src: `package p

import (
	"context"
	"testing"
	"time"
)

func double(v int) int { return 2 * v }

// fetchContext waits for the result until ctx's deadline.
func fetchContext(parent context.Context, v int) (int, error) {
	ctx, cancel := context.WithTimeout(parent, time.Minute)
	defer cancel()
	ch := MAKE
	go func() {
		SEND
	}()
	select { // select
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func TestFetchContext(t *testing.T) {
	if v, err := fetchContext(context.Background(), 21); err != nil || v != 42 {
		t.Fatal(v, err)
	}
}
`,
		make: "make(chan int, 1)",
		send: "ch <- double(v) // leak",
	},
	{
		// A worker pool whose collector gives up after a timeout: the
		// workers not yet received from wait for ever.
		test: "TestCollect",
		src: `package p

import (
	"testing"
	"time"
)

func square(v int) int { return v * v }

// collect sums the workers' results, or what came before the timeout.
func collect(in []int, d time.Duration) int {
	results := MAKE
	for _, v := range in {
		go func() {
			SEND
		}()
	}
	sum := 0
	for range in {
		select { // select
		case r := <-results:
			sum += r
		case <-time.After(d):
			return sum
		}
	}
	return sum
}

func TestCollect(t *testing.T) {
	if s := collect([]int{1, 2, 3}, time.Minute); s != 14 {
		t.Fatal(s)
	}
}
`,
		make: "make(chan int, len(in))",
		send: "results <- square(v) // leak",
	},
	{
		test: "TestPoll",
		src: `package p

import (
	"context"
	"testing"
	"time"
)

// poll takes the result if it is there.
func poll(ctx context.Context) (int, bool) {
	ch := MAKE
	go func() {
		SEND
	}()
	time.Sleep(20 * time.Millisecond)
	select { // select
	case v := <-ch:
		return v, true
	default:
		return 0, false
	}
}

func TestPoll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if v, ok := poll(ctx); !ok || v != 42 {
		t.Fatal(v, ok)
	}
}
`,
		make: "make(chan int)",
		send: "select {\n\t\tcase ch <- compute(): // leak\n\t\tcase <-ctx.Done():\n\t\t}",
	},
}

func TestLeakPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	buggy := map[string]string{}
	fixed := map[string]string{}
	lines := map[string][2]int{} // test -> the send's line, the select's
	for _, tc := range leakCases {
		send := map[string]string{"TestFetchContext": "ch <- double(v) // leak", "TestCollect": "results <- square(v) // leak"}[tc.test]
		if send == "" {
			send = "ch <- compute() // leak"
		}
		b := strings.NewReplacer("MAKE", "make(chan int)", "SEND", send).Replace(tc.src)
		name := strings.ToLower(tc.test) + "_test.go"
		buggy[name] = b
		fixed[name] = strings.NewReplacer("MAKE", tc.make, "SEND", tc.send).Replace(tc.src)
		var l [2]int
		for n, text := range strings.Split(b, "\n") {
			if strings.HasSuffix(text, "// leak") {
				l[0] = n + 1
			}
			if strings.HasSuffix(text, "// select") {
				l[1] = n + 1
			}
		}
		lines[tc.test] = l
	}
	t.Run("buggy", func(t *testing.T) {
		rep, got := recordPassing(t, buggy)
		for _, tc := range leakCases {
			fs := got[tc.test]
			if len(fs) != 1 {
				t.Errorf("%s: findings %+v, want one predicted leak", tc.test, fs)
				continue
			}
			f := fs[0]
			if f.Kind != "leak" || !f.Predicted || len(f.Witness) == 0 || len(f.Accesses) < 2 {
				t.Errorf("%s: finding %+v, want a predicted leak with a witness", tc.test, f)
				continue
			}
			s, r := f.Accesses[0], f.Accesses[1]
			// A select of one receive and a default is at its case's line.
			if s.Op != "send" || s.Line != lines[tc.test][0] || r.Op != "select" || r.Line != lines[tc.test][1] && r.Line != lines[tc.test][1]+1 {
				t.Errorf("%s: %s at %d and %s at %d, want the send at %d and the select at %d",
					tc.test, s.Op, s.Line, r.Op, r.Line, lines[tc.test][0], lines[tc.test][1])
			}
			if s.Variable != "ch" && s.Variable != "results" {
				t.Errorf("%s: the channel is named %q, want ch", tc.test, s.Variable)
			}
			timer := ""
			if len(f.Accesses) == 3 {
				timer = f.Accesses[2].Op
			}
			if want := map[string]string{"TestFetch": "time.After", "TestFetchContext": "context.WithTimeout", "TestCollect": "time.After"}[tc.test]; timer != want {
				t.Errorf("%s: accesses %+v: want the timer exactly when the select has one", tc.test, f.Accesses)
			}
			if s := report.LeakSentence(&f, func(s string) string { return s }); !strings.Contains(s, "waits for ever") {
				t.Errorf("%s: sentence %q", tc.test, s)
			}
		}
		var b bytes.Buffer
		if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: "/"}); err != nil {
			t.Fatal(err)
		}
		sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
	})
	t.Run("fixed", func(t *testing.T) {
		rep := recordModule(t, testModuleFiles(t, "example.com/p", fixed))
		passed(t, rep)
		if len(rep.Tests) != len(leakCases) {
			t.Errorf("tests %+v, want %d", rep.Tests, len(leakCases))
		}
		if len(rep.Findings) != 0 {
			t.Fatalf("findings in the fixed twins: %+v", rep.Findings)
		}
	})
}
