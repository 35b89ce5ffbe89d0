package main

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// An access made inside the standard library is reported at the user's
// line that called into it, with the calls in between.
func TestFormatFindingLibraryFrames(t *testing.T) {
	user := report.Frame{Func: "example.TestA.func1", File: "/src/example/f_test.go", Line: 16}
	lib := []report.Frame{
		{Func: "syscall.acquireForkLock", File: "/goroot/src/syscall/forkpipe2.go", Line: 30},
		{Func: "syscall.forkExec", File: "/goroot/src/syscall/exec_unix.go", Line: 200},
	}
	for _, tc := range []struct {
		name  string
		stack []report.Frame
		want  string // "" means no "inside" line
	}{
		{"user line", []report.Frame{user}, ""},
		{"inside the library", append(append([]report.Frame{}, lib...), user),
			"inside syscall.acquireForkLock (forkpipe2.go:30) called from syscall.forkExec (exec_unix.go:200)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := report.Access{File: user.File, Line: user.Line, Op: "write", Goroutine: 7, Stack: tc.stack}
			f := report.Finding{Kind: "atomicity", Variable: "syscall.forking", Accesses: []report.Access{a, a}}
			got := formatFinding(f, func(s string) string { return s })
			if tc.want == "" && strings.Contains(got, "inside") || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("got\n%s\nwant a line %q", got, tc.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1GiB", 1 << 30}, {"512MiB", 512 << 20}, {"2g", 2 << 30}, {"1.5GB", 3 << 29}, {"100", 100},
		{"", 0}, {"-1GiB", 0}, {"lots", 0}, {"GiB", 0},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != (tc.want == 0) || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
