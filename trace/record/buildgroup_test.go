// This file tests BuildGroup (buildgroup.go): each package of a group gets
// its own test binary, linked into the same kept binary Build uses, so
// that neither links again what the other linked; a group that does not
// build, or whose binaries go test -c would name alike, gives no binary;
// and go test -c's names of test binaries.

package record

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/seer-tools/seer/internal/gocmd"
)

func TestTestBinaryName(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"example.com/a", "a.test"},
		{"example.com/mod/v2", "mod.test"},
		{"example.com/mod/v2/sub", "sub.test"},
		{"example.com/v1", "v1.test"},
		{"example.com/v0", "v0.test"},
		{"example.com/v2x", "v2x.test"},
		{"v2", "v2.test"},
		{"fmt", "fmt.test"},
	} {
		if got := testBinaryName(tc.path); got != tc.want {
			t.Errorf("testBinaryName(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// groupTest is the test file of package name of the group's module: its
// one test is named after the package, so that a binary says whose it is.
func groupTest(name, test string) string {
	return "package " + name + "\n\nimport \"testing\"\n\nfunc " + test + "(t *testing.T) {}\n"
}

func TestBuildGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := testModule(t, "example.com/grp", map[string]string{
		"a/a_test.go":     groupTest("a", "TestInA"),
		"b/v2/b_test.go":  groupTest("b", "TestInB"),
		"c/c.go":          "package c\n",
		"c/c_x_test.go":   groupTest("c_test", "TestInC"),
		"bad/bad_test.go": groupTest("bad", "TestBad") + "func f() int { return \"no\" }\n",
		"x/a/a_test.go":   groupTest("a", "TestInXA"),
	})
	ctx := context.Background()
	tc, err := PrepareToolchainIn(ctx, "", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := func(paths ...string) []Listed {
		var out []Listed
		for _, p := range paths {
			l, err := whichPackage(ctx, tc, tc.Env(nil), RecordOptions{Dir: dir}, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, l)
		}
		return out
	}
	group := listed("example.com/grp/a", "example.com/grp/b/v2", "example.com/grp/c")
	bins, err := BuildGroup(ctx, RecordOptions{Dir: dir}, group)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestInA", "TestInB", "TestInC"}
	kept := map[string]uint64{}
	for i, b := range bins {
		defer b.Close()
		if b.Package != group[i].ImportPath || b.PkgDir != group[i].Dir {
			t.Errorf("binary %d is of %s in %s, want %s in %s", i, b.Package, b.PkgDir, group[i].ImportPath, group[i].Dir)
		}
		tests, err := b.Tests(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tests, want[i:i+1]) {
			t.Errorf("%s's binary lists %v, want %v", b.Package, tests, want[i:i+1])
		}
		if b.kept == "" || inodeOf(t, b.Path) != inodeOf(t, b.kept) {
			t.Errorf("%s: the run's binary is not a link of the kept one (%q)", b.Package, b.kept)
		}
		kept[b.Package] = inodeOf(t, b.kept)
	}
	// Build finds the group's binaries up to date, and the group Build's.
	for _, l := range group {
		b, err := Build(ctx, RecordOptions{Dir: dir, Package: l.ImportPath, Listed: &l})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if inodeOf(t, b.kept) != kept[l.ImportPath] {
			t.Errorf("Build linked %s again after BuildGroup", l.ImportPath)
		}
	}
	again, err := BuildGroup(ctx, RecordOptions{Dir: dir}, group)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range again {
		defer b.Close()
		if inodeOf(t, b.kept) != kept[b.Package] {
			t.Errorf("a second BuildGroup linked %s again", b.Package)
		}
	}

	// A package of the group that does not build: no binary, a failure.
	if bins, err := BuildGroup(ctx, RecordOptions{Dir: dir}, listed("example.com/grp/a", "example.com/grp/bad")); err == nil {
		for _, b := range bins {
			b.Close()
		}
		t.Error("a group with a package that does not build gave binaries")
	} else if bf := (*gocmd.BuildFailure)(nil); !errors.As(err, &bf) {
		t.Errorf("error %v, want a build failure", err)
	}
	// Two packages whose binaries go test -c would name alike.
	if _, err := BuildGroup(ctx, RecordOptions{Dir: dir}, listed("example.com/grp/a", "example.com/grp/x/a")); !errors.Is(err, ErrNotGrouped) {
		t.Errorf("a and x/a: error %v, want ErrNotGrouped", err)
	}
}
