// This file tests the text report: a finding go vet style, and its
// replay line.

package report

import (
	"strings"
	"testing"
)

// An access made inside the standard library is reported at the user's
// line that called into it, with the calls in between.
func TestFormatFindingLibraryFrames(t *testing.T) {
	user := Frame{Func: "example.TestA.func1", File: "/src/example/f_test.go", Line: 16}
	lib := []Frame{
		{Func: "syscall.acquireForkLock", File: "/goroot/src/syscall/forkpipe2.go", Line: 30},
		{Func: "syscall.forkExec", File: "/goroot/src/syscall/exec_unix.go", Line: 200},
	}
	for _, tc := range []struct {
		name  string
		stack []Frame
		want  string // "" means no "inside" line
	}{
		{"user line", []Frame{user}, ""},
		{"inside the library", append(append([]Frame{}, lib...), user),
			"inside syscall.acquireForkLock (forkpipe2.go:30) called from syscall.forkExec (exec_unix.go:200)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Access{File: user.File, Line: user.Line, Op: "write", Goroutine: 7, Stack: tc.stack}
			f := Finding{Kind: "atomicity", Variable: "syscall.forking", Accesses: []Access{a, a}}
			got := FindingText(&f, func(s string) string { return s })
			if tc.want == "" && strings.Contains(got, "inside") || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("got\n%s\nwant a line %q", got, tc.want)
			}
		})
	}
}

func TestReplayLine(t *testing.T) {
	for _, tc := range []struct{ confirmed, note, want string }{
		{"", "", ""},
		{ConfirmedYes, "the replayed run left the accesses unordered", "replay: confirmed: the replayed run left the accesses unordered"},
		{ConfirmedNo, "the replayed run ordered the two accesses", "replay: not confirmed: the replayed run ordered the two accesses"},
		{ConfirmedNotTried, "replay confirms races and deadlocks only", "replay: not tried: replay confirms races and deadlocks only"},
	} {
		f := Finding{Kind: "race", Confirmed: tc.confirmed, Replay: tc.note}
		if got := ReplaySentence(&f); got != tc.want {
			t.Errorf("confirmed %q: got %q, want %q", tc.confirmed, got, tc.want)
		}
	}
}

// A test that did not pass is followed by what it printed, as go test
// prints a failed test's output; a passing test's Output (none is kept)
// would not be.
func TestFailedTestOutput(t *testing.T) {
	for _, tc := range []struct {
		name string
		test Test
		want string
	}{
		{"fail", Test{Package: "p", Name: "TestA", Outcome: "fail", Output: []string{"    a_test.go:5: got 1, want 2", "    --- FAIL: TestA/sub (0.00s)"}},
			"seer: p.TestA: failed; what it recorded was analysed\n    a_test.go:5: got 1, want 2\n    --- FAIL: TestA/sub (0.00s)\n"},
		{"timeout", Test{Package: "p", Name: "TestB", Outcome: "timeout", Errors: []string{"test timed out after 1s"}, Output: []string{"waiting for the server"}},
			"seer: p.TestB: timed out: test timed out after 1s; what it recorded was analysed\n    waiting for the server\n"},
		{"pass", Test{Package: "p", Name: "TestC", Outcome: "pass", Output: []string{"    c_test.go:1: fine"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeText(&b, &Report{Tests: []Test{tc.test}}, func(s string) string { return s })
			if got := b.String(); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
