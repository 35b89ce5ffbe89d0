// This file implements BuildGroup: the test binaries of several packages
// built by one go command, `go test -c -o DIR/ pkg...`, as go test builds
// the binaries of all the packages it tests. The go command then loads,
// hashes and checks the packages' dependencies, and starts its vet and
// link tools, once for the group instead of once a package, which is most
// of what building a package costs when its kept binary is up to date
// (bench/RESULTS.md, "seer check's work besides the analysis: one build
// for several packages").
//
// Each package's binary is still its own kept binary (bincache.go), the
// entry Build uses: the kept binaries are linked into DIR before the go
// command runs, so that it links again only those that are not up to
// date, and each one it did link replaces its entry's binary afterwards.

package record

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
)

// ErrNotGrouped is BuildGroup's error (wrapped) when the packages could
// not be built as one group: two that the go command would name alike, or
// one that it would build differently from Build. Build each then.
var ErrNotGrouped = errors.New("packages not built as one group")

// BuildGroup builds the test binaries of the packages pkgs, each as the
// caller's go list resolved it with opts.GoFlags (with test files, and no
// error in it or its dependencies), in one go command. opts holds what
// the builds share (Dir, GoFlags, Env, CacheDir, Exec); its Package,
// Listed and Progress are not used. It returns a Binary per package, in
// pkgs' order, each as Build would have built it, or an error and no
// Binary: a *gocmd.BuildFailure naming no one package when the group did
// not build (some package of it does not, or fails vet), ErrNotGrouped
// (wrapped), or what stops a build. The caller then builds each package
// with Build, which says which of them fail, and how.
func BuildGroup(ctx context.Context, opts RecordOptions, pkgs []Listed) ([]*Binary, error) {
	names := map[string]string{}
	for _, l := range pkgs {
		if !l.Tests || l.Dir == "" {
			return nil, fmt.Errorf("%w: %s has no test files", ErrNotGrouped, l.ImportPath)
		}
		name := testBinaryName(l.ImportPath)
		if other, ok := names[name]; ok {
			return nil, fmt.Errorf("%w: %s and %s would both be %s", ErrNotGrouped, other, l.ImportPath, name)
		}
		names[name] = l.ImportPath
	}
	goEnv := append(os.Environ(), opts.Env...)
	tc, err := gocmd.PrepareToolchainIn(ctx, opts.CacheDir, opts.Dir, goEnv, recorderSource, shadowFiles...)
	if err != nil {
		return nil, err
	}
	env := tc.Env(goEnv)
	flags := withoutDWARF(opts.GoFlags, tc.GOFLAGS)

	// The kept binaries' entries, held in the order of their paths.
	kept := make([]string, len(pkgs))
	entries := make([]int, len(pkgs))
	for i, l := range pkgs {
		if within(l.Dir, tc.GOROOT) {
			// A standard package's directory is the shadow GOROOT's
			// (whichPackage): Build lists it again.
			return nil, fmt.Errorf("%w: %s is a standard package", ErrNotGrouped, l.ImportPath)
		}
		kept[i] = keptEntry(tc, l.ImportPath, l.Dir, flags, env)
		entries[i] = i
	}
	sort.Slice(entries, func(a, b int) bool { return kept[entries[a]] < kept[entries[b]] })
	trimBinaries(binDir(tc), time.Now())
	for _, i := range entries {
		bin, unlock, err := useEntry(kept[i], pkgs[i].Dir)
		if err != nil {
			return nil, err
		}
		defer unlock()
		kept[i] = bin
	}

	work, removeWork, err := gocmd.TempDir("seer-group-")
	if err != nil {
		return nil, err
	}
	defer removeWork()
	// The go command's work directory (and the C compiler's files) go
	// under ours, as Build's do.
	tmp, out := filepath.Join(work, "tmp"), filepath.Join(work, "out")
	for _, d := range []string{tmp, out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	built := make([]string, len(pkgs))
	for i, l := range pkgs {
		built[i] = filepath.Join(out, testBinaryName(l.ImportPath))
		// The go command links the binary again only if this one is not
		// up to date; when there is none it links one.
		if _, err := os.Stat(kept[i]); err == nil {
			linkOut(kept[i], built[i])
		}
	}
	start := time.Now()
	args := flags[:len(flags):len(flags)]
	for _, l := range pkgs {
		args = append(args, l.ImportPath)
	}
	if err := goTestC(ctx, tc, env, opts.Dir, tmp, out+string(filepath.Separator), strings.Join(sortedPaths(pkgs), " "), args); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	for i, l := range pkgs {
		// The binary must be the package's: its main package is the
		// package's test main.
		info, err := buildinfo.ReadFile(built[i])
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrNotGrouped, l.ImportPath, err)
		}
		if info.Path != l.ImportPath+".test" {
			return nil, fmt.Errorf("%w: %s was written as %s", ErrNotGrouped, l.ImportPath, info.Path)
		}
	}
	for i := range pkgs {
		if err := keep(built[i], kept[i]); err != nil {
			return nil, err
		}
	}
	bins := make([]*Binary, 0, len(pkgs))
	fail := func(err error) ([]*Binary, error) {
		for _, b := range bins {
			b.Close()
		}
		return nil, err
	}
	for i, l := range pkgs {
		b := &Binary{Package: l.ImportPath, PkgDir: l.Dir, Build: elapsed, tc: tc, env: opts.Env, exec: opts.Exec, kept: kept[i]}
		if b.work, b.removeWork, err = gocmd.TempDir("seer-record-"); err != nil {
			return fail(err)
		}
		bins = append(bins, b)
		b.Path = filepath.Join(b.work, "pkg.test")
		if err := linkOut(built[i], b.Path); err != nil {
			return fail(err)
		}
		if b.ID, err = fileID(b.Path); err != nil {
			return fail(err)
		}
	}
	return bins, nil
}

// keep makes the kept binary kept the binary built, when the go command
// linked it anew (a binary it found up to date is kept's own file): under
// a new name first, then renamed over the old, so that a binary an
// earlier Build handed out keeps its own file.
func keep(built, kept string) error {
	b, err1 := os.Stat(built)
	k, err2 := os.Stat(kept)
	if err1 == nil && err2 == nil && os.SameFile(b, k) {
		return nil
	}
	next := kept + ".new"
	os.Remove(next)
	if err := linkOut(built, next); err != nil {
		return err
	}
	return os.Rename(next, kept)
}

// testBinaryName is the name go test -c -o DIR/ gives the test binary of
// the package at importPath (cmd/go's testBinaryName and
// DefaultExecName): the last element of the path, or the one before it
// when that is a major version (example.com/mod/v2). BuildGroup checks
// the binary it finds under the name.
func testBinaryName(importPath string) string {
	elem := path.Base(importPath)
	if elem != importPath && isVersionElement(elem) {
		elem = path.Base(path.Dir(importPath))
	}
	return elem + ".test"
}

// isVersionElement reports whether s is a module path's major version
// element, v2 or above (cmd/go's isVersionElement).
func isVersionElement(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] == '0' || s[1] == '1' && len(s) == 2 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || '9' < s[i] {
			return false
		}
	}
	return true
}

// sortedPaths returns the import paths of pkgs, sorted.
func sortedPaths(pkgs []Listed) []string {
	paths := make([]string, len(pkgs))
	for i, l := range pkgs {
		paths[i] = l.ImportPath
	}
	sort.Strings(paths)
	return paths
}
