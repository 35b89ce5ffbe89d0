// This file implements LoadEach: the Programs of several packages, each as
// Load makes it of that package alone, from one go/packages load (one go
// list of the packages, their tests and their dependencies, and one
// type-check of what they share) instead of one load a package, which
// runs go list three times and type-checks again every package of the
// module that it imports.

package static

import (
	"context"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

// LoadEach loads the packages at the import paths paths, each with its
// tests, in one load, and returns the Program of each as
// LoadEnvFlags(ctx, dir, env, buildFlags, path) makes it: from that
// package's own variants only (the package, its test variant and its
// external test package), so that a Program holds no other package's
// source, whatever the others import. A path whose Program could not be
// made is missing from the map (load it alone: that says why); the error
// is the load's, when nothing could be loaded.
func LoadEach(ctx context.Context, dir string, env, buildFlags []string, paths []string) (map[string]*Program, error) {
	start := time.Now()
	l, err := loadPackages(ctx, dir, env, buildFlags, paths)
	if err != nil {
		return nil, err
	}
	// The load's roots, by the pattern that named them: go list lists a
	// package's test variants as roots beside it, the package under test
	// in their ID ("p [p.test]", "p_test [p.test]"), and the packages
	// recompiled for a test only as dependencies.
	own := make(map[string][]*packages.Package, len(paths))
	for _, lp := range l.initial {
		owner := lp.PkgPath
		if i := strings.Index(lp.ID, " ["); i >= 0 && strings.HasSuffix(lp.ID, ".test]") {
			owner = lp.ID[i+len(" [") : len(lp.ID)-len(".test]")]
		}
		own[owner] = append(own[owner], lp)
	}
	progs := make(map[string]*Program, len(paths))
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p, err := l.program([]string{path}, own[path], start); err == nil {
			progs[path] = p
		}
	}
	return progs, nil
}
