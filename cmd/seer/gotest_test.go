// This file tests go test's flags on seer check and seer record
// (gotest.go): -args, refusals by name, GOFLAGS, and what reaches the
// build and the test binary.

package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/check"
)

func TestGoTestFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		goflags string
		build   []string
		test    check.TestFlags
		rest    []string // the packages
		err     string   // the parse error, "" for none
	}{
		{name: "none", args: []string{"./..."}, rest: []string{"./..."}},
		{
			name:  "build flags",
			args:  []string{"-tags", "integration,db", "-ldflags=-X main.v=1", "-gcflags", "-N", "-mod=vendor", "-modfile", "alt.mod", "-asmflags=-S", "."},
			build: []string{"-tags=integration,db", "-ldflags=-X main.v=1", "-gcflags=-N", "-asmflags=-S", "-mod=vendor", "-modfile=alt.mod"},
			rest:  []string{"."},
		},
		{
			name: "test flags",
			args: []string{"-short", "-failfast", "-parallel", "3", "-count=2", "-cpu", "1,4", "./p"},
			test: check.TestFlags{Short: true, Failfast: true, Parallel: 3, Count: 2, CPU: []int{1, 4}},
			rest: []string{"./p"},
		},
		{
			name: "args",
			args: []string{"-short", "./p", "-args", "-update", "x"},
			test: check.TestFlags{Short: true, Args: []string{"-update", "x"}},
			rest: []string{"./p"},
		},
		{
			name:    "GOFLAGS",
			args:    []string{"-count=3", "."},
			goflags: "-short -count=1 -tags=x -cpu=2",
			test:    check.TestFlags{Short: true, Count: 3, CPU: []int{2}},
			rest:    []string{"."},
		},
		{name: "refused", args: []string{"-cover", "."}, err: "-cover is a flag of go test that seer cannot honour"},
		{name: "refused with value", args: []string{"-coverprofile=c.out", "."}, err: "-coverprofile is a flag of go test"},
		{name: "refused test spelling", args: []string{"-test.bench=.", "."}, err: "-bench is a flag of go test"},
		{name: "refused after -args is the binary's", args: []string{".", "-args", "-cover"}, rest: []string{"."}, test: check.TestFlags{Args: []string{"-cover"}}},
		{name: "refused in GOFLAGS", args: []string{"."}, goflags: "-trimpath", err: "GOFLAGS: -trimpath is a flag of go test that seer cannot honour"},
		{name: "GOFLAGS not a flag", args: []string{"."}, goflags: "short", err: `GOFLAGS: "short" is not a flag`},
		{name: "bad count", args: []string{"-count=0", "."}, err: "-count 0: want a positive number"},
		{name: "bad cpu", args: []string{"-cpu=1,x", "."}, err: `-cpu "1,x"`},
		{name: "unknown flag", args: []string{"-frobnicate", "."}, err: "flag provided but not defined: -frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("check", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.String("o", "", "seer's own -o")
			g := addGoTestFlags(fs)
			args, binary := splitArgs(tc.args)
			g.args = binary
			err := refuse(fs, args, "")
			if err == nil {
				err = fs.Parse(args)
			}
			if err == nil {
				err = g.fromGOFLAGS(tc.goflags)
			}
			var test check.TestFlags
			if err == nil {
				test, err = g.testFlags()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := g.buildFlags(); !reflect.DeepEqual(got, tc.build) {
				t.Errorf("build flags %q, want %q", got, tc.build)
			}
			if !reflect.DeepEqual(test, tc.test) {
				t.Errorf("test flags %+v, want %+v", test, tc.test)
			}
			if !reflect.DeepEqual(fs.Args(), tc.rest) {
				t.Errorf("packages %q, want %q", fs.Args(), tc.rest)
			}
		})
	}
}

// TestRefusedNotSeers checks that seer's own flags are never refused as
// go test's: seer record -o names the trace file.
func TestRefusedNotSeers(t *testing.T) {
	for _, c := range []*command{lookup("check"), lookup("record")} {
		c.flags.VisitAll(func(f *flag.Flag) {
			if _, ok := refusedFlags[f.Name]; ok && f.Name != "o" {
				t.Errorf("seer %s defines -%s, which refusedFlags refuses", c.name, f.Name)
			}
		})
	}
	if err := refuse(recordFlags, []string{"-o", "x.trace"}, ""); err != nil {
		t.Errorf("seer record -o refused: %v", err)
	}
}

// TestGoTestFlagErrors runs seer with flags it refuses: each is a usage
// error (exit 2) that names the flag, before anything is built.
func TestGoTestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"check", "-cover", "."}, "-cover is a flag of go test that seer cannot honour"},
		{[]string{"GOFLAGS=-coverpkg=./..."}, []string{"check", "."}, "GOFLAGS: -coverpkg is a flag of go test"},
		{nil, []string{"check", "-count=0", "."}, "-count 0"},
		{nil, []string{"check", "-shard", "3/2", "."}, "-shard 3/2"},
		{nil, []string{"check", "-p", "-1", "."}, "-p -1"},
		{nil, []string{"record", "-count=2", "."}, "would record more than one run"},
		{nil, []string{"record", "-cpu=1,2", "."}, "would record more than one run"},
		{nil, []string{"record", "-bench=.", "."}, "-bench is a flag of go test"},
	} {
		cmd, _ := seerCmd(t, dir, tc.env, tc.args...)
		if _, stderr, code := runSeer(t, cmd); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tc.env, tc.args, code, stderr, tc.want)
		}
	}
}

// argsTest needs -tags integration to build at all, -short, and -name
// seer after -args.
const argsTest = `//go:build integration

package recargs

import (
	"flag"
	"testing"
)

var name = flag.String("name", "", "")

func TestArgs(t *testing.T) {
	if *name != "seer" {
		t.Fatalf("-name %q", *name)
	}
	if !testing.Short() {
		t.Fatal("not short")
	}
}
`

// TestRecordGoTestFlags records a package that has files only with
// -tags integration, whose test passes only with -short (from GOFLAGS)
// and -args -name seer.
func TestRecordGoTestFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/recargs\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a_test.go"), []byte(argsTest), 0o644)
	for _, tc := range []struct {
		env  []string
		args []string
		code int
		want string
	}{
		{[]string{"GOFLAGS=-short"}, []string{"record", "-tags", "integration", "-o", "t.trace", ".", "-args", "-name", "seer"}, 0, "(pass)"},
		{nil, []string{"record", "-tags", "integration", "-o", "t.trace", ".", "-args", "-name", "seer"}, 3, "not short"},
		{[]string{"GOFLAGS=-short"}, []string{"record", "-o", "t.trace", "."}, 3, "does not build"},
		{[]string{"GOFLAGS=-short -tags=integration"}, []string{"check", ".", "-args", "-name", "seer"}, 0, "1 test (1 passed)"},
	} {
		cmd, _ := seerCmd(t, dir, tc.env, tc.args...)
		if out, stderr, code := runSeer(t, cmd); code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("%v %v: exit %d, want %d and %q:\n%s%s", tc.env, tc.args, code, tc.code, tc.want, out, stderr)
		}
	}
}
