package main

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/check"
)

// An access made inside the standard library is reported at the user's
// line that called into it, with the calls in between.
func TestFormatFindingLibraryFrames(t *testing.T) {
	user := check.Frame{Func: "example.TestA.func1", File: "/src/example/f_test.go", Line: 16}
	lib := []check.Frame{
		{Func: "syscall.acquireForkLock", File: "/goroot/src/syscall/forkpipe2.go", Line: 30},
		{Func: "syscall.forkExec", File: "/goroot/src/syscall/exec_unix.go", Line: 200},
	}
	for _, tc := range []struct {
		name  string
		stack []check.Frame
		want  string // "" means no "inside" line
	}{
		{"user line", []check.Frame{user}, ""},
		{"inside the library", append(append([]check.Frame{}, lib...), user),
			"inside syscall.acquireForkLock (forkpipe2.go:30) called from syscall.forkExec (exec_unix.go:200)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := check.Access{File: user.File, Line: user.Line, Op: "write", Goroutine: 7, Stack: tc.stack}
			f := check.Finding{Kind: "atomicity", Variable: "syscall.forking", Accesses: []check.Access{a, a}}
			got := formatFinding(f, func(s string) string { return s })
			if tc.want == "" && strings.Contains(got, "inside") || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("got\n%s\nwant a line %q", got, tc.want)
			}
		})
	}
}
