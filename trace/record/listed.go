// This file implements Build's question "which package is it?": go list
// with the recording toolchain and the build's flags, unless the caller
// has listed the package already (RecordOptions.Listed), as seer check
// lists every package of its patterns before building any: one go command
// fewer on the way to each package's build.

package record

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/seer-tools/seer/internal/gocmd"
)

// Listed is a package as go list resolved it.
type Listed struct {
	ImportPath string
	Dir        string
	Tests      bool // it has test files (with the build's flags)
}

// whichPackage returns the one package that pkg names. It takes
// opts.Listed as it is when it names pkg, except for a package of the
// standard library, whose directory under the recording toolchain is the
// shadow GOROOT's, not the one the caller's go list saw.
func whichPackage(ctx context.Context, tc *gocmd.Toolchain, env []string, opts RecordOptions, pkg string) (Listed, error) {
	if l := opts.Listed; l != nil && l.ImportPath == pkg && l.Dir != "" && !within(l.Dir, tc.GOROOT) {
		return *l, nil
	}
	// With the build's flags: -tags may be what gives the package files.
	listArgs := append(append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"}, opts.GoFlags...), pkg)
	list := exec.Command(tc.Go, listArgs...)
	list.Dir, list.Env = opts.Dir, env
	var listOut, listErr bytes.Buffer
	list.Stdout, list.Stderr = &listOut, &listErr
	if _, err := gocmd.RunOwned(ctx, list, goGrace); err != nil {
		if ctx.Err() != nil {
			return Listed{}, ctx.Err()
		}
		msg := listErr.String()
		if msg == "" {
			msg = err.Error()
		}
		return Listed{}, &gocmd.BuildFailure{Package: pkg, Output: msg, Errors: gocmd.ParseBuildErrors(msg, absDir(opts.Dir))}
	}
	lines := strings.Split(strings.TrimSpace(listOut.String()), "\n")
	if len(lines) != 1 {
		return Listed{}, fmt.Errorf("seer records one package at a time; %q matches %d", pkg, len(lines))
	}
	// The directory comes between tabs: a tab in it would be a tab in
	// the last fields' place, which are numbers.
	line := lines[0]
	var tests, xtests string
	for _, n := range []*string{&xtests, &tests} {
		i := strings.LastIndexByte(line, '\t')
		if i < 0 {
			return Listed{}, fmt.Errorf("go list: unexpected output %q", lines[0])
		}
		line, *n = line[:i], line[i+1:]
	}
	path, dir, _ := strings.Cut(line, "\t")
	return Listed{ImportPath: path, Dir: dir, Tests: tests != "0" || xtests != "0"}, nil
}

// within reports whether dir is root or below it (root "" holds nothing).
func within(dir, root string) bool {
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
