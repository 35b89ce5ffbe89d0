// This file tests the builders' units (buildgroup.go): which packages are
// built together, and, end to end, that a package of a group that does
// not build is reported as a build error without costing the packages
// built with it their findings.

package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/static"
)

// testPackages returns a prepared package for each name of names: a
// package that can be built with others, but for names starting with u
// (go list found an error: built alone, which positions it), m (may have
// //seer:atomic functions: built with flags of its own) and n (no
// directory: not found by go list).
func testPackages(t *testing.T, names string) []*prepared {
	plain, atomic := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(plain, "p.go"), []byte("package p\n"), 0o644)
	os.WriteFile(filepath.Join(atomic, "p.go"), []byte("package p\n\n"+static.AtomicDirective+"\nfunc f() {}\n"), 0o644)
	var out []*prepared
	for _, name := range strings.Fields(names) {
		lp := listedPackage{Path: name, Dir: plain, Clean: true}
		switch name[0] {
		case 'u':
			lp.Clean = false
		case 'm':
			lp.Dir = atomic
		case 'n':
			lp.Dir = ""
		}
		out = append(out, newPrepared(lp))
	}
	return out
}

func TestBuildUnits(t *testing.T) {
	for _, tc := range []struct {
		name, todo string
		size       int
		want       string
	}{
		{"one", "a", 4, "a"},
		{"the first alone, then groups", "a b c d e f g", 4, "a | b c d e | f g"},
		{"an unclean package splits a group", "a b u c d", 4, "a | b | u | c d"},
		{"an atomic one", "a b m c", 4, "a | b | m | c"},
		{"no directory", "a b n c d", 4, "a | b | n | c d"},
		{"no groups", "a b c", 1, "a | b | c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var units []string
			for _, u := range buildUnits(testPackages(t, tc.todo), tc.size) {
				var names []string
				for _, p := range u {
					names = append(names, p.lp.Path)
				}
				units = append(units, strings.Join(names, " "))
			}
			if got := strings.Join(units, " | "); got != tc.want {
				t.Errorf("units %q, want %q", got, tc.want)
			}
		})
	}
}

// TestGroupWithBrokenPackage checks a module of four packages, three in
// one group, one of which does not compile: the report names its error,
// and the others' tests and races are all there, placed by their source.
func TestGroupWithBrokenPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	racy := strings.NewReplacer("//go:build integration\n\n", "", "package tagged", "package PKG")
	files := map[string]string{}
	for _, pkg := range []string{"a", "b", "c", "d"} {
		files[pkg+"/"+pkg+"_test.go"] = strings.Replace(racy.Replace(taggedRace), "PKG", pkg, 1)
	}
	files["c/broken_test.go"] = "package c\n\nfunc broken() int { return \"no\" }\n"
	dir := testModuleFiles(t, "example.com/grouped", files)
	rep, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}, Timeout: time.Minute, Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs, found []string
	for _, p := range rep.Packages {
		pkgs = append(pkgs, strings.TrimPrefix(p.Path, "example.com/grouped/")+" "+p.Status)
	}
	for _, f := range rep.Findings {
		found = append(found, strings.TrimPrefix(f.Package, "example.com/grouped/"))
		// The source, loaded for a, b and d at once, names the variable
		// and places the access to the column.
		if a := f.Accesses[0]; a.Column == 0 || !strings.HasPrefix(f.Variable, "n ") {
			t.Errorf("%s: access %+v of %q: the source was not loaded", f.Package, a, f.Variable)
		}
	}
	if got, want := strings.Join(pkgs, ", "), "a ok, b ok, c build-error, d ok"; got != want {
		t.Errorf("packages %s, want %s", got, want)
	}
	if got, want := strings.Join(found, " "), "a b d"; got != want {
		t.Errorf("findings in %s, want %s", got, want)
	}
	var broken []string
	for _, tt := range rep.Tests {
		if tt.Outcome == "build-error" {
			broken = append(broken, tt.Errors...)
		}
	}
	if len(broken) != 1 || !strings.Contains(broken[0], filepath.Join(dir, "c", "broken_test.go")+":3:") {
		t.Errorf("build errors %q, want one at c/broken_test.go:3", broken)
	}
}
