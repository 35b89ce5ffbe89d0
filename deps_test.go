// This file implements the dependency test of the module, in the manner of
// the Go tree's go/build/deps_test.go: a table (depsRules) states what
// every package of the module may import, and TestDependencies holds the
// packages, as the go command lists them, to it. The layering it keeps is
// described in docs/architecture.md.

package seer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// depsRules is the table. A line is one of
//
//	P: A B ...    P may import A, B ... and no other watched package
//	P !: A B ...  A, B ... are never among P's dependencies, however reached
//	P ^: A B ...  only A, B ... may import P
//
// where P names a package of the module by its path in the module ("."
// for the root) and the watched packages are the module's own, those of
// other modules (named by module path) and the standard library's
// notable ones (notableStd); any other standard package is allowed
// everywhere. A package of the module that has no "P:" line fails the
// test: add one. "#" starts a comment.
const depsRules = `
# The trace and its recorder. trace is the data (events, the file
# format, the recorder's spool and replay protocol) and imports no
# process plumbing; trace/record builds and runs test binaries and embeds
# the recorder's C source; internal/gocmd is the go command's plumbing
# (the shadow toolchain, owned processes, temporary directories, build
# errors).
internal/gocmd: os/exec
# The growth and copy of large slices in steps the collector can stop
# between (the conversion's and the analysis's large tables).
internal/bigslice:
trace: internal/bigslice
trace/record: trace internal/gocmd os/exec embed
trace/racesuite: os/exec
internal/gotext: trace
# Generated traces of Go programs at scale, for benchmarks and tests.
internal/synth: trace

# The independent witness checker imports only trace: nothing that starts
# a process or holds the recorder.
predict/witness: trace
predict/witness !: os/exec embed net internal/gocmd trace/record
trace !: os/exec embed net internal/gocmd trace/record

# The report model, kinds, sentences and renderers: the standard library
# only, and none of its process plumbing (it does not import go/build,
# which reaches os/exec).
predict/report:
predict/report !: os/exec net embed
# The SARIF 2.1.0 schema that the tests of report and check validate
# against.
predict/internal/sarifcheck: embed github.com/santhosh-tekuri/jsonschema/v6

# The analyses. predict may use report's typed Kind; it never imports the
# driver, the source model or the editor.
predict: trace internal/bigslice predict/witness predict/report github.com/go-air/gini
predict !: static predict/check lsp cmd/seer os/exec net
# The memory-model consistency checker, a product of its own.
predict/consistency: github.com/go-air/gini

# Source: names, positions and static facts, through go/packages and SSA.
static: trace internal/gocmd golang.org/x/tools
static !: predict predict/check lsp

# The driver of seer check.
predict/check: trace trace/record internal/gocmd predict predict/witness predict/report static os/exec

# The editor talks to the driver and the report, never to predict's
# internals (predict, predict/witness, the consistency checker) directly.
lsp: predict/check predict/report static internal/gocmd go.lsp.dev/jsonrpc2 go.lsp.dev/protocol go.lsp.dev/uri
lsp ^: cmd/seer

# The command.
cmd/seer: lsp predict predict/check predict/report predict/consistency trace trace/record internal/gocmd os/signal
cmd/seer ^:

# Neither imports anything watched: the editors' test, the example, and
# the module root, which holds only this test.
editors:
examples/bank:
.:
`

// notableStd are the standard packages the table watches: process
// plumbing, the network, and embedding (the recorder's C source).
var notableStd = []string{"os/exec", "os/signal", "net", "net/http", "embed"}

// A pkgDeps is a package of the module as the table sees it: its watched
// direct imports and its watched dependencies (transitive).
type pkgDeps struct {
	Path    string
	Imports []string
	Deps    []string
}

// rules is depsRules parsed.
type rules struct {
	allow map[string][]string // P: its allowed imports
	never map[string][]string // P !: never among its dependencies
	only  map[string][]string // P ^: its only importers
}

// parseRules parses the table's text.
func parseRules(text string) (*rules, error) {
	r := &rules{allow: map[string][]string{}, never: map[string][]string{}, only: map[string][]string{}}
	for i, line := range strings.Split(text, "\n") {
		if j := strings.Index(line, "#"); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		pkg, rest, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("depsRules line %d: %q has no colon", i+1, line)
		}
		pkg = strings.TrimSpace(pkg)
		table, what := r.allow, "P:"
		switch {
		case strings.HasSuffix(pkg, " !"):
			table, what, pkg = r.never, "P !:", strings.TrimSpace(strings.TrimSuffix(pkg, "!"))
		case strings.HasSuffix(pkg, " ^"):
			table, what, pkg = r.only, "P ^:", strings.TrimSpace(strings.TrimSuffix(pkg, "^"))
		}
		if pkg == "" || strings.ContainsAny(pkg, " \t") {
			return nil, fmt.Errorf("depsRules line %d: bad package %q", i+1, pkg)
		}
		if _, dup := table[pkg]; dup {
			return nil, fmt.Errorf("depsRules line %d: a second %q line for %s", i+1, what, pkg)
		}
		table[pkg] = strings.Fields(rest)
	}
	return r, nil
}

// allows reports whether the allowed list list admits the watched package
// dep: named in it, or a package of a module named in it.
func allows(list []string, dep string) bool {
	for _, a := range list {
		if dep == a || strings.Contains(a, ".") && strings.HasPrefix(dep, a+"/") {
			return true
		}
	}
	return false
}

// check holds pkgs to the rules and returns every violation, each a
// sentence that says what to change.
func (r *rules) check(pkgs []pkgDeps) []string {
	var bad []string
	for _, p := range pkgs {
		allowed, ok := r.allow[p.Path]
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s is not in depsRules (deps_test.go): add the line %q, with the layer it belongs to, and check that its imports keep the layering",
				p.Path, strings.TrimSpace(p.Path+": "+strings.Join(p.Imports, " "))))
			continue
		}
		for _, imp := range p.Imports {
			if !allows(allowed, imp) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which depsRules does not allow it", p.Path, imp))
			}
			if importers, ok := r.only[imp]; ok && !slices.Contains(importers, p.Path) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which only %s may import", p.Path, imp, orNothing(importers)))
			}
		}
		for _, dep := range p.Deps {
			if allows(r.never[p.Path], dep) {
				bad = append(bad, fmt.Sprintf("%s depends on %s, which depsRules says it never may, however reached", p.Path, dep))
			}
		}
	}
	return bad
}

func orNothing(pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing"
	}
	return strings.Join(pkgs, ", ")
}

// A listedPackage is what the table needs of go list -json's output.
type listedPackage struct {
	ImportPath string
	Standard   bool
	Module     *struct {
		Path string
		Main bool
	}
	Imports []string
	Deps    []string
}

// loadDeps lists the module's packages and their dependencies with go
// list -deps -json, as the table sees them.
func loadDeps(t *testing.T) []pkgDeps {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-json=ImportPath,Standard,Module,Imports,Deps", "./...").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]*listedPackage{}
	var order []*listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(listedPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		listed[p.ImportPath] = p
		order = append(order, p)
	}
	mainMod := ""
	for _, p := range order {
		if p.Module != nil && p.Module.Main {
			mainMod = p.Module.Path
			break
		}
	}
	if mainMod == "" {
		t.Fatal("go list listed no package of the main module")
	}
	watched := func(path string) (string, bool) {
		switch {
		case path == mainMod:
			return ".", true
		case strings.HasPrefix(path, mainMod+"/"):
			return strings.TrimPrefix(path, mainMod+"/"), true
		}
		if p := listed[path]; p == nil || p.Standard {
			return path, slices.Contains(notableStd, path)
		}
		return path, true // another module's: allows matches it by module path
	}
	filter := func(paths []string) []string {
		var out []string
		for _, path := range paths {
			if w, ok := watched(path); ok {
				out = append(out, w)
			}
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	var pkgs []pkgDeps
	for _, p := range order {
		if p.Module == nil || !p.Module.Main {
			continue
		}
		rel, _ := watched(p.ImportPath)
		pkgs = append(pkgs, pkgDeps{Path: rel, Imports: filter(p.Imports), Deps: filter(p.Deps)})
	}
	return pkgs
}

// TestDependencies holds every package of the module to depsRules.
func TestDependencies(t *testing.T) {
	r, err := parseRules(depsRules)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := loadDeps(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list listed %d packages of the module, too few: is the test running at the module's root?", len(pkgs))
	}
	for _, msg := range r.check(pkgs) {
		t.Error(msg)
	}
}

// TestDependencyRulesCatch feeds the checker import graphs that break the
// table, each in one way, and checks that it says so; and one that keeps
// it, which it must pass.
func TestDependencyRulesCatch(t *testing.T) {
	r, err := parseRules(depsRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pkgs []pkgDeps
		want []string // substrings of the violations, one each; none for a graph that keeps the rules
	}{
		{"witness imports trace", []pkgDeps{{Path: "predict/witness", Imports: []string{"trace"}, Deps: []string{"trace"}}}, nil},
		{"witness execs", []pkgDeps{{Path: "predict/witness", Imports: []string{"os/exec", "trace"}, Deps: []string{"os/exec", "trace"}}},
			[]string{"predict/witness imports os/exec, which depsRules does not allow it", "predict/witness depends on os/exec"}},
		{"witness links the recorder through trace", []pkgDeps{{Path: "predict/witness", Imports: []string{"trace"}, Deps: []string{"embed", "trace"}}},
			[]string{"predict/witness depends on embed"}},
		{"report imports trace", []pkgDeps{{Path: "predict/report", Imports: []string{"trace"}, Deps: []string{"trace"}}},
			[]string{"predict/report imports trace"}},
		{"predict imports static", []pkgDeps{{Path: "predict", Imports: []string{"static", "trace"}, Deps: []string{"golang.org/x/tools/go/ssa", "internal/gocmd", "os/exec", "static", "trace"}}},
			[]string{"predict imports static", "predict depends on os/exec", "predict depends on static"}},
		{"predict reaches check through another package", []pkgDeps{{Path: "predict", Imports: []string{"trace"}, Deps: []string{"predict/check", "trace"}}},
			[]string{"predict depends on predict/check"}},
		{"lsp imports predict", []pkgDeps{{Path: "lsp", Imports: []string{"predict", "predict/check"}, Deps: []string{"predict", "predict/check"}}},
			[]string{"lsp imports predict,"}},
		{"static imports lsp", []pkgDeps{{Path: "static", Imports: []string{"lsp", "trace"}, Deps: []string{"lsp", "trace"}}},
			[]string{"static imports lsp, which depsRules", "static imports lsp, which only cmd/seer may import", "static depends on lsp"}},
		{"a package of another module by module path", []pkgDeps{{Path: "static", Imports: []string{"golang.org/x/tools/go/ssa", "trace"}}}, nil},
		{"a module the table does not name", []pkgDeps{{Path: "static", Imports: []string{"golang.org/x/toolsy/ssa"}}},
			[]string{"static imports golang.org/x/toolsy/ssa"}},
		{"a package missing from the table", []pkgDeps{{Path: "predict/newthing", Imports: []string{"trace"}}},
			[]string{`package predict/newthing is not in depsRules (deps_test.go): add the line "predict/newthing: trace"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.check(tc.pkgs)
			if len(got) != len(tc.want) {
				t.Fatalf("%d violations, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("violation %d: %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

// TestParseRulesErrors: a table line the parser cannot read is an error
// that names the line.
func TestParseRulesErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"trace os/exec", "line 1: \"trace os/exec\" has no colon"},
		{"trace:\ntrace: os/exec", "line 2: a second \"P:\" line for trace"},
		{": trace", "line 1: bad package \"\""},
	} {
		if _, err := parseRules(tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseRules(%q): %v, want an error saying %q", tc.text, err, tc.want)
		}
	}
}
