// This file tests the link flags of recorded test binaries (linkflags.go):
// -w joins the user's linker flags or is left out where adding it would
// replace them, and a binary Build links has no DWARF but keeps the symbol
// table that names globals, with the user's -X still applied.

package record

import (
	"context"
	"debug/elf"
	"slices"
	"strings"
	"testing"
)

func TestWithoutDWARF(t *testing.T) {
	for _, tc := range []struct {
		name    string
		goFlags []string
		goflags string // GOFLAGS
		want    []string
	}{
		{"none", nil, "", []string{"-ldflags=-w"}},
		{"other flags", []string{"-tags=x", "-gcflags=-l"}, "-mod=mod", []string{"-tags=x", "-gcflags=-l", "-ldflags=-w"}},
		{"joins the user's", []string{"-ldflags=-X main.v=1"}, "", []string{"-ldflags=-w -X main.v=1"}},
		{"double dash", []string{"--ldflags=-s"}, "", []string{"--ldflags=-w -s"}},
		{"empty value", []string{"-ldflags="}, "", []string{"-ldflags=-w"}},
		{"quoted value", []string{"-ldflags=-X 'main.v=a b'"}, "", []string{"-ldflags=-w -X 'main.v=a b'"}},
		{"per package", []string{"-ldflags=example.com/p=-X=main.v=1"}, "", []string{"-ldflags=example.com/p=-X=main.v=1"}},
		{"two words", []string{"-ldflags", "-X=main.v=1"}, "", []string{"-ldflags", "-X=main.v=1"}},
		{"several", []string{"-ldflags=-s", "-ldflags=-X=main.v=1"}, "", []string{"-ldflags=-s", "-ldflags=-X=main.v=1"}},
		{"in GOFLAGS", nil, "-ldflags=-X=main.v=1", nil},
		{"in GOFLAGS, quoted", []string{"-tags=x"}, `"-ldflags=-X main.v=1"`, []string{"-tags=x"}},
		{"in both", []string{"-ldflags=-s"}, "-ldflags=-X=main.v=1", []string{"-ldflags=-s"}},
		{"a tag named so", []string{"-tags=noldflags"}, "", []string{"-tags=noldflags", "-ldflags=-w"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.goFlags)
			got := withoutDWARF(tc.goFlags, tc.goflags)
			if !slices.Equal(got, tc.want) {
				t.Errorf("withoutDWARF(%q, %q) = %q, want %q", tc.goFlags, tc.goflags, got, tc.want)
			}
			if !slices.Equal(tc.goFlags, in) {
				t.Errorf("withoutDWARF changed its argument to %q", tc.goFlags)
			}
		})
	}
}

// TestBuildWithoutDWARF builds a test binary with a -X of the user's: it
// has no DWARF, keeps the global's symbol, and the -X took effect.
func TestBuildWithoutDWARF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := testModule(t, "example.com/linkt", map[string]string{"v_test.go": `package linkt

import "testing"

var Version = "unset"

var Counter int

func TestVersion(t *testing.T) {
	Counter++
	if Version != "set" {
		t.Fatalf("Version %q", Version)
	}
}
`})
	b, err := Build(context.Background(), RecordOptions{Dir: dir, GoFlags: []string{"-ldflags=-X example.com/linkt.Version=set"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	f, err := elf.Open(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			t.Errorf("the binary has DWARF section %s", s.Name)
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("symbol table: %v", err)
	}
	found := false
	for _, s := range syms {
		found = found || s.Name == "example.com/linkt.Counter"
	}
	if !found {
		t.Error("the binary's symbol table has no example.com/linkt.Counter")
	}
	res, err := b.Run(context.Background(), RecordOptions{NoFile: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Result != "pass" {
		t.Errorf("outcome %+v: the user's -X was lost", res.Outcome)
	}
}
