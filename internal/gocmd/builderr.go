// This file implements the parsing of the go command's build errors into
// positioned errors, for seer check's report and the editor's diagnostics.

package gocmd

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A BuildError is one compiler error, positioned for an editor.
type BuildError struct {
	File string // absolute path
	Line int
	Col  int // 0 when unknown
	Msg  string
}

func (e BuildError) String() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// A BuildFailure is returned when the test binary does not build.
type BuildFailure struct {
	Package string
	Errors  []BuildError // positioned errors, in the order the go command printed them
	Output  string       // the go command's whole output
}

func (f *BuildFailure) Error() string {
	if len(f.Errors) == 0 {
		return fmt.Sprintf("%s: build failed:\n%s", f.Package, strings.TrimSpace(f.Output))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: build failed:", f.Package)
	for _, e := range f.Errors {
		b.WriteString("\n\t")
		b.WriteString(e.String())
	}
	return b.String()
}

var buildErrRE = regexp.MustCompile(`^(\S[^:]*\.go):(\d+)(?::(\d+))?: (.*)$`)

// ParseBuildError parses one "file:line[:col]: message" line of go build
// output (or a BuildError's String); a relative file name is taken
// relative to dir. It reports false for a line without a position.
func ParseBuildError(line, dir string) (BuildError, bool) {
	m := buildErrRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return BuildError{}, false
	}
	file := m[1]
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	ln, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return BuildError{File: filepath.Clean(file), Line: ln, Col: col, Msg: m[4]}, true
}

// ParseBuildErrors extracts positioned errors from go build output.
func ParseBuildErrors(out, dir string) []BuildError {
	var errs []BuildError
	for _, line := range strings.Split(out, "\n") {
		if e, ok := ParseBuildError(line, dir); ok {
			errs = append(errs, e)
		}
	}
	return errs
}
