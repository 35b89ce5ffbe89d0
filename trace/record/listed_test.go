// This file tests whichPackage (listed.go): a package the caller listed
// is taken as it is, and one of the standard library, or one the caller
// listed under another path, is listed again.

package record

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/seer-tools/seer/internal/gocmd"
)

func TestWhichPackage(t *testing.T) {
	// A go command that cannot run: listing fails, taking Listed does not.
	tc := &gocmd.Toolchain{Go: filepath.Join(t.TempDir(), "no-go"), GOROOT: "/usr/local/go"}
	for _, tc2 := range []struct {
		name    string
		pkg     string
		listed  *Listed
		wantDir string // "" = go list ran (and failed)
	}{
		{"listed", "example.com/m/p", &Listed{ImportPath: "example.com/m/p", Dir: "/src/m/p", Tests: true}, "/src/m/p"},
		{"not listed", "example.com/m/p", nil, ""},
		{"listed under another path", "example.com/m/p", &Listed{ImportPath: "example.com/m/q", Dir: "/src/m/q"}, ""},
		{"no directory", "example.com/m/p", &Listed{ImportPath: "example.com/m/p"}, ""},
		{"standard library", "sync", &Listed{ImportPath: "sync", Dir: "/usr/local/go/src/sync"}, ""},
		{"beside GOROOT", "example.com/m/p", &Listed{ImportPath: "example.com/m/p", Dir: "/usr/local/gopath/p"}, "/usr/local/gopath/p"},
	} {
		t.Run(tc2.name, func(t *testing.T) {
			l, err := whichPackage(context.Background(), tc, nil, RecordOptions{Listed: tc2.listed}, tc2.pkg)
			if tc2.wantDir == "" {
				if err == nil {
					t.Fatalf("got %+v without listing", l)
				}
				return
			}
			if err != nil || l != *tc2.listed || l.Dir != tc2.wantDir {
				t.Errorf("got %+v %v, want %+v", l, err, *tc2.listed)
			}
		})
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		dir, root string
		want      bool
	}{
		{"/usr/local/go/src/sync", "/usr/local/go", true},
		{"/usr/local/go", "/usr/local/go", true},
		{"/usr/local/go/", "/usr/local/go", true},
		{"/usr/local/gopath/src", "/usr/local/go", false},
		{"/usr/local", "/usr/local/go", false},
		{"/src/m", "", false},
		{"/usr/local/go/../x", "/usr/local/go", false},
	} {
		if got := within(tc.dir, tc.root); got != tc.want {
			t.Errorf("within(%q, %q) = %v, want %v", tc.dir, tc.root, got, tc.want)
		}
	}
}
