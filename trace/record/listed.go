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
}

// whichPackage returns the import path and directory of the one package
// that pkg names. It takes opts.Listed as it is when it names pkg, except
// for a package of the standard library, whose directory under the
// recording toolchain is the shadow GOROOT's, not the one the caller's go
// list saw.
func whichPackage(ctx context.Context, tc *gocmd.Toolchain, env []string, opts RecordOptions, pkg string) (path, dir string, err error) {
	if l := opts.Listed; l != nil && l.ImportPath == pkg && l.Dir != "" && !within(l.Dir, tc.GOROOT) {
		return l.ImportPath, l.Dir, nil
	}
	// With the build's flags: -tags may be what gives the package files.
	listArgs := append(append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}"}, opts.GoFlags...), pkg)
	list := exec.Command(tc.Go, listArgs...)
	list.Dir, list.Env = opts.Dir, env
	var listOut, listErr bytes.Buffer
	list.Stdout, list.Stderr = &listOut, &listErr
	if _, err := gocmd.RunOwned(ctx, list, goGrace); err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		msg := listErr.String()
		if msg == "" {
			msg = err.Error()
		}
		return "", "", &gocmd.BuildFailure{Package: pkg, Output: msg, Errors: gocmd.ParseBuildErrors(msg, absDir(opts.Dir))}
	}
	lines := strings.Split(strings.TrimSpace(listOut.String()), "\n")
	if len(lines) != 1 {
		return "", "", fmt.Errorf("seer records one package at a time; %q matches %d", pkg, len(lines))
	}
	parts := strings.SplitN(lines[0], "\t", 2)
	return parts[0], parts[1], nil
}

// within reports whether dir is root or below it (root "" holds nothing).
func within(dir, root string) bool {
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
