// This file tests loading a module whose Go is newer than the Go seer was
// built with: go/types' TooNew error alone leaves the package analysed.

package static

import (
	"context"
	"go/types"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/trace"
	"golang.org/x/tools/go/packages"
)

func TestOnlyTooNew(t *testing.T) {
	tooNew := packages.Error{Kind: packages.TypeError, Msg: "package requires newer Go version go1.27 (application built with go1.26)"}
	fileTooNew := packages.Error{Kind: packages.TypeError, Msg: "file requires newer Go version go1.28 (application built with go1.26)"}
	listed := packages.Error{Kind: packages.ListError, Msg: tooNew.Msg}
	undefined := packages.Error{Kind: packages.TypeError, Msg: "undefined: x"}
	for _, tc := range []struct {
		name  string
		errs  []packages.Error
		typed bool
		want  bool
	}{
		{"the package's go line", []packages.Error{tooNew}, true, true},
		{"and a file's //go:build line", []packages.Error{tooNew, fileTooNew}, true, true},
		{"no errors", nil, true, false},
		{"another type error too", []packages.Error{tooNew, undefined}, true, false},
		{"the words, from go list", []packages.Error{listed}, true, false},
		{"not type-checked", []packages.Error{tooNew}, false, false},
	} {
		lp := &packages.Package{Errors: tc.errs, IllTyped: len(tc.errs) > 0}
		if tc.typed {
			lp.Types, lp.TypesInfo = types.NewPackage("example.com/p", "p"), &types.Info{}
		}
		if got := onlyTooNew(lp); got != tc.want {
			t.Errorf("%s: onlyTooNew = %v, want %v", tc.name, got, tc.want)
		}
		acceptTooNew(lp)
		if accepted := len(lp.Errors) == 0 && !lp.IllTyped; accepted != (tc.want || len(tc.errs) == 0) {
			t.Errorf("%s: after acceptTooNew, errors %v, ill-typed %v", tc.name, lp.Errors, lp.IllTyped)
		}
	}
}

// newGo is a Go newer than the one seer's tests are built with, which the
// module proxy serves.
const newGo = "go1.27.3"

// TestLoadNewerGo loads a go 1.27 module with GOTOOLCHAIN=go1.27.3 in
// LoadEnv's environment: its go list must run that Go (the machine's
// refuses the module), and its types must be usable though seer's go/types
// is older (on a seer built with Go 1.27 or later there is no TooNew error
// to accept, and the test checks only the first part).
func TestLoadNewerGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := gocmd.FetchToolchain(ctx, newGo); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must be able to run %s (.ci/run fetches it): %v", newGo, err)
		}
		t.Skipf("needs %s from the module proxy: %v", newGo, err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/newer\n\ngo 1.27\n",
		"m.go":   "package newer\n\nvar counter int\n\nfunc Inc() {\n\tcounter++\n}\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := LoadEnv(ctx, dir, []string{"GOTOOLCHAIN=" + newGo}, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Errors) > 0 {
		t.Errorf("errors: %v", p.Errors)
	}
	f := trace.Frame{Func: "example.com/newer.Inc", File: filepath.Join(dir, "m.go"), Line: 6}
	site, ok := p.Access(f, true, AccessHint{})
	if !ok || site.Name != "counter" {
		t.Errorf("Access(m.go:6, write) = %+v, %v; want the write of counter", site, ok)
	}
}
