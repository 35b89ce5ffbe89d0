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
