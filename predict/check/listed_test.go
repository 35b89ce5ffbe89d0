// This file tests listedPackage.Clean: only a package go list found no
// error in, nor in its dependencies, is handed to the build as listed
// (record.RecordOptions.Listed); the others are listed again by the
// build, whose go list reports their error as it always has.

package check

import (
	"context"
	"path/filepath"
	"testing"
)

func TestListPackagesClean(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	dir := testModuleFiles(t, "example.com/listed", map[string]string{
		"ok/ok_test.go":         "package ok\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
		"missing/m.go":          "package missing\n\nimport _ \"example.com/nowhere\"\n",
		"missing/m_test.go":     "package missing\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) {}\n",
		"dep/d.go":              "package dep\n\nimport _ \"example.com/listed/missing\"\n",
		"dep/d_test.go":         "package dep\n\nimport \"testing\"\n\nfunc TestD(t *testing.T) {}\n",
		"typeerr/t_test.go":     "package typeerr\n\nimport \"testing\"\n\nfunc TestT(t *testing.T) { undefined() }\n",
		"notests/n.go":          "package notests\n",
		"syntax/s_test.go":      "package syntax\n\nfunc {\n",
		"testonlydep/x_test.go": "package testonlydep\n\nimport (\n\t\"testing\"\n\t_ \"example.com/nowhere/either\"\n)\n\nfunc TestX(t *testing.T) {}\n",
	})
	pkgs, err := listPackages(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"example.com/listed/ok":      true,
		"example.com/listed/typeerr": true, // go list does not type-check: the build reports it
		"example.com/listed/missing": false,
		"example.com/listed/dep":     false,
		"example.com/listed/notests": true,
		// go list without -test reads no _test.go file past its imports
		// (nor did the build's own go list): the build reports these.
		"example.com/listed/syntax":      true,
		"example.com/listed/testonlydep": true,
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		w, ok := want[p.Path]
		if !ok {
			t.Errorf("unexpected package %+v", p)
			continue
		}
		seen[p.Path] = true
		if p.Clean != w {
			t.Errorf("%s: Clean %v, want %v (%+v)", p.Path, p.Clean, w, p)
		}
		if p.Clean && p.Dir != filepath.Join(dir, filepath.Base(p.Path)) {
			t.Errorf("%s: Dir %q", p.Path, p.Dir)
		}
	}
	for path := range want {
		if !seen[path] {
			t.Errorf("%s not listed", path)
		}
	}
}
