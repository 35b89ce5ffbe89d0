// This file implements the store of results: the findings of each test
// that was predicted, the build errors of each package that did not build,
// and the marks (positioned diagnostics) that show them in files.
//
// A result belongs to a scope, the package directory and test a
// prediction ran. Re-running a scope replaces its results; a run that
// builds replaces the package's build errors. Marks are kept by file and
// move with edits (remap); hover, code actions and publishing read them.

package lsp

import (
	"sort"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/report"
)

// A scope is what one prediction ran: the tests of the package in dir,
// or only test when it is not "".
type scope struct {
	dir  string
	test string
}

func (sc scope) String() string {
	if sc.test == "" {
		return "all tests in " + sc.dir
	}
	return sc.test + " in " + sc.dir
}

// A result is what the store holds for one test of one package (test
// buildKey holds the package's build errors, test "" the findings of a
// run of all tests that belong to no test).
type result struct {
	key      scope
	findings []*finding
	marks    []*mark
}

// A finding is a report.Finding the store holds, with a stable id that
// commands refer to.
type finding struct {
	id  int
	dir string
	report.Finding
}

// A mark is one diagnostic, positioned in the current text of its file.
type mark struct {
	path     string
	rng      protocol.Range
	severity protocol.DiagnosticSeverity
	code     string // "race", "atomicity", "build"
	message  string
	related  []related
	finding  *finding // nil for build errors
	access   int      // index in finding.Accesses (or why.Accesses)
	// why, when set, makes the mark a hover only (never published): an
	// access that seer proves race-free against another (whynorace.go).
	why   *report.Ordered
	owner *result
}

// A related location of a mark.
type related struct {
	path    string
	rng     protocol.Range
	message string
}

type store struct {
	results   map[scope]*result
	marks     map[string][]*mark // by path
	findings  map[int]*finding
	requested map[string]map[string]bool // dir -> tests the user predicted ("" = all)
	nextID    int
}

func newStore() *store {
	return &store{
		results:   map[scope]*result{},
		marks:     map[string][]*mark{},
		findings:  map[int]*finding{},
		requested: map[string]map[string]bool{},
	}
}

// request notes that the user asked for sc, for re-running on save.
func (st *store) request(sc scope) {
	if st.requested[sc.dir] == nil {
		st.requested[sc.dir] = map[string]bool{}
	}
	st.requested[sc.dir][sc.test] = true
}

// scopesIn returns the scopes the user predicted in dir (just the whole
// package if it was among them).
func (st *store) scopesIn(dir string) []scope {
	tests := st.requested[dir]
	if tests[""] {
		return []scope{{dir: dir}}
	}
	var out []scope
	for t := range tests {
		out = append(out, scope{dir, t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].test < out[j].test })
	return out
}

// newFinding wraps f with a fresh id.
func (st *store) newFinding(dir string, f report.Finding) *finding {
	st.nextID++
	return &finding{id: st.nextID, dir: dir, Finding: f}
}

// replace removes the results that a completed run of sc supersedes (all
// tests of sc.dir or just sc.test, and always the package's build
// errors) and adds results. It returns the files whose marks changed.
func (st *store) replace(sc scope, results []*result) []string {
	touched := map[string]bool{}
	for key, r := range st.results {
		if key.dir == sc.dir && (sc.test == "" || key.test == sc.test || key.test == buildKey) {
			st.drop(r, touched)
		}
	}
	for _, r := range results {
		if old := st.results[r.key]; old != nil {
			st.drop(old, touched)
		}
		st.results[r.key] = r
		for _, f := range r.findings {
			st.findings[f.id] = f
		}
		for _, m := range r.marks {
			m.owner = r
			st.marks[m.path] = append(st.marks[m.path], m)
			touched[m.path] = true
		}
	}
	return sortedKeys(touched)
}

func (st *store) drop(r *result, touched map[string]bool) {
	delete(st.results, r.key)
	for _, f := range r.findings {
		delete(st.findings, f.id)
	}
	for _, m := range r.marks {
		touched[m.path] = true
		st.marks[m.path] = without(st.marks[m.path], m)
	}
}

func without(marks []*mark, m *mark) []*mark {
	out := marks[:0]
	for _, x := range marks {
		if x != m {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// involves reports whether a mark, or a related location of one, lies in
// path: whether edits of path must move anything.
func (st *store) involves(path string) bool {
	if len(st.marks[path]) > 0 {
		return true
	}
	for _, marks := range st.marks {
		for _, m := range marks {
			for _, r := range m.related {
				if r.path == path {
					return true
				}
			}
		}
	}
	return false
}

// remap moves the marks of path, and related locations in path, along f,
// dropping those whose lines changed. It returns the files whose
// diagnostics changed.
func (st *store) remap(path string, f lineFunc) []string {
	touched := map[string]bool{}
	for _, m := range append([]*mark(nil), st.marks[path]...) {
		if r, ok := remapRange(m.rng, f); ok {
			if r != m.rng {
				m.rng = r
				touched[path] = true
			}
		} else {
			m.owner.marks = without(m.owner.marks, m)
			st.marks[path] = without(st.marks[path], m)
			touched[path] = true
		}
	}
	for p, marks := range st.marks {
		for _, m := range marks {
			kept := m.related[:0]
			for _, rel := range m.related {
				if rel.path == path {
					r, ok := remapRange(rel.rng, f)
					if !ok || r != rel.rng {
						touched[p] = true
					}
					if !ok {
						continue
					}
					rel.rng = r
				}
				kept = append(kept, rel)
			}
			m.related = kept
		}
	}
	return sortedKeys(touched)
}

func remapRange(r protocol.Range, f lineFunc) (protocol.Range, bool) {
	start, ok1 := f(int(r.Start.Line))
	end, ok2 := f(int(r.End.Line))
	if !ok1 || !ok2 {
		return r, false
	}
	r.Start.Line, r.End.Line = uint32(start), uint32(end)
	return r, true
}

// at returns the marks of path whose range holds pos (ends included, as
// a cursor just after a word is still on it).
func (st *store) at(path string, pos protocol.Position) []*mark {
	var out []*mark
	for _, m := range st.marks[path] {
		if !before(pos, m.rng.Start) && !before(m.rng.End, pos) {
			out = append(out, m)
		}
	}
	return out
}

// overlapping returns the marks of path that share a position with rng.
func (st *store) overlapping(path string, rng protocol.Range) []*mark {
	var out []*mark
	for _, m := range st.marks[path] {
		if !before(rng.End, m.rng.Start) && !before(m.rng.End, rng.Start) {
			out = append(out, m)
		}
	}
	return out
}

func before(p, q protocol.Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Character < q.Character
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
