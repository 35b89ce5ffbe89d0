// This file tests LoadEach (loadeach.go) against Load, differentially:
// for every package of the testdata module and of a module whose packages
// import each other, the Program LoadEach makes answers every query on
// every line of every function as the Program of the package loaded alone
// does, and holds the same files and errors.

package static

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestLoadEach(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	// a's type and function are used by b's code and by c's external
	// test, which also imports b: loaded together, a and b are
	// type-checked from source for the others, loaded alone from export
	// data.
	mod := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":      "module example.com/each\n\ngo 1.26\n",
		"a/a.go":      "package a\n\ntype T struct{ N int }\n\nfunc Inc(t *T) { t.N++ }\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tv := &T{}\n\tgo Inc(v)\n\tInc(v)\n}\n",
		"b/b.go":      "package b\n\nimport \"example.com/each/a\"\n\nvar Shared a.T\n\nfunc Bump() {\n\tShared.N++\n\ta.Inc(&Shared)\n}\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {\n\tdone := make(chan bool)\n\tgo func() { Bump(); done <- true }()\n\tselect {\n\tcase <-done:\n\t}\n\tif Shared.N > 0 {\n\t\tBump()\n\t}\n}\n",
		"c/c.go":      "package c\n",
		"c/c_test.go": "package c_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/each/a\"\n\t\"example.com/each/b\"\n)\n\nfunc TestC(t *testing.T) {\n\tvar x a.T\n\tgo a.Inc(&x)\n\tb.Bump()\n\tx.N = 2\n}\n",
	} {
		name = filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dir   string
		paths []string
	}{
		{mod, []string{"example.com/each/a", "example.com/each/b", "example.com/each/c"}},
		{testdataDir(t), []string{"example.com/seer.data", "example.com/seer.data/atomic", "example.com/seer.data/bank",
			"example.com/seer.data/capture", "example.com/seer.data/leak", "example.com/seer.data/nilderef",
			"example.com/seer.data/recvvalue", "example.com/seer.data/selectcases"}},
	} {
		each, err := LoadEach(context.Background(), tc.dir, nil, nil, tc.paths)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range tc.paths {
			alone, err := LoadEnvFlags(context.Background(), tc.dir, nil, nil, path)
			if err != nil {
				t.Fatal(err)
			}
			got := each[path]
			if got == nil {
				t.Errorf("%s: no Program from LoadEach", path)
				continue
			}
			if !slices.Equal(got.Files(), alone.Files()) || !slices.Equal(got.Errors, alone.Errors) {
				t.Errorf("%s: files %v errors %v, alone %v %v", path, got.Files(), got.Errors, alone.Files(), alone.Errors)
				continue
			}
			if len(alone.Files()) == 0 {
				t.Errorf("%s: no files", path)
			}
			if d := answersDiffer(got, alone); d != "" {
				t.Errorf("%s: %s", path, d)
			}
		}
	}
}

// answersDiffer returns the first query that p and q answer differently,
// asked of every line of every function of p, or "".
func answersDiffer(p, q *Program) string {
	if !reflect.DeepEqual(p.AtomicFuncs(), q.AtomicFuncs()) {
		return fmt.Sprintf("atomic functions %v and %v", p.AtomicFuncs(), q.AtomicFuncs())
	}
	for _, name := range p.Files() {
		fi := p.files[name]
		for _, fn := range fi.funcs {
			for line := fn.start; line <= fn.end; line++ {
				f := frameAt(p, fi, line)
				for _, query := range []struct {
					name string
					ask  func(*Program) any
				}{
					{"read", func(p *Program) any { s, ok := p.Access(f, false, AccessHint{}); return fmt.Sprint(s, ok) }},
					{"write", func(p *Program) any { s, ok := p.Access(f, true, AccessHint{}); return fmt.Sprint(s, ok) }},
					{"irrelevant", func(p *Program) any { return p.ReadIrrelevant(f) }},
					{"flow", func(p *Program) any { r, ok := p.ReadFlow(f); return fmt.Sprint(r, ok) }},
					{"recv", func(p *Program) any { return p.RecvValueFree(f) }},
					{"nil store", func(p *Program) any { return p.NilStore(f) }},
					{"select cases", func(p *Program) any { c, ok := p.SelectCases(f); return fmt.Sprint(c, ok) }},
					{"select leak", func(p *Program) any { l, ok := p.SelectLeak(f); return fmt.Sprint(l, ok) }},
				} {
					if a, b := query.ask(p), query.ask(q); !reflect.DeepEqual(a, b) {
						return fmt.Sprintf("%s:%d: %s: %v, alone %v", name, line, query.name, a, b)
					}
				}
			}
		}
	}
	return ""
}
