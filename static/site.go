// This file implements Program.Access: from a trace frame and the kind of
// an access to the exact expression it accessed and a name for it.

package static

import (
	"strings"

	"github.com/seer-tools/seer/trace"
)

// A Site is the source of one memory access of a trace.
type Site struct {
	// File is the absolute name of the file.
	File string

	// Range is the accessed expression: "acct.balance" in
	// "acct.balance += n", "s[i]", "m[key]", "hits", "*p". When the line
	// has several accesses of the kind to different memory and no hint
	// decides (Exact is false), it is the statement, as Stmt.
	Range Span

	// Name is what people call the accessed memory: the expression
	// ("acct.balance", "s[i]", "m[key]", "hits", "*p", "elements of s"),
	// followed, for a local variable that function literals capture, by
	// where ("x (captured by the closure at line 17)", "cfg.n (cfg
	// captured by the closure at line 17)"). When the access is ambiguous
	// it lists the candidates: "x or y", "a, b or c".
	Name string

	// Object identifies the memory, so that two sites can be compared
	// without their names (which depend on the variable names in each
	// function): "example.com/bank.hits" (a package variable),
	// "example.com/bank.Account.balance" (a field), "[]int element",
	// "map[string]int", "*int" (through a pointer), "var x at
	// /abs/file.go:12:2" (a local variable). It is "" when ambiguous.
	// Pass it in the AccessHint of the other access of a finding.
	Object string

	// Stmt is the statement that makes the access. For compound
	// statements it stops before the body ("if c > 0", "case x:"), so
	// that it never covers a block; when the candidates of an ambiguous
	// access are in several statements, it is the line.
	Stmt Span

	// Exact reports whether Range is the one accessed expression.
	Exact bool
}

// An AccessHint helps Access choose between several accesses of the same
// kind on one line. Each field is optional; they are tried in order.
type AccessHint struct {
	// Object is the Site.Object of the other access of the finding, or
	// the symbol name of a global ("example.com/bank.hits"; escaped
	// forms such as "example.com/na%2emes.hits" are understood).
	Object string

	// Size is the number of bytes the access touched (trace.Event.Size),
	// compared with the size of each candidate's type; 0 means unknown.
	Size int64

	// Name is the Site.Name of the other access, compared with the
	// candidates' names without their capture explanations.
	Name string
}

// Access returns the site of an access of the given kind (write, or read)
// that the trace recorded at frame f. It fails when the frame is not in
// the Program's code (another package, the standard library, a file that
// has changed since loading) or when no access of the kind is on that
// line; callers then fall back to the line (LineSite).
//
// Candidates are the accesses on the line that the race runtime records:
// loads and stores of package variables, of variables captured by
// reference, and through pointers, slices and maps; not those of local
// variables kept in the frame or captured by value. When several are on
// the line, the hint chooses; failing that, a line whose candidates all
// name the same memory ("x = x + x") is exact, and any other gives the
// statement and a name listing the candidates.
func (p *Program) Access(f trace.Frame, write bool, hint AccessHint) (Site, bool) {
	fi, cands := p.candidates(f, true, func(a *access) bool { return a.write == write })
	if len(cands) == 0 {
		return Site{}, false
	}
	groups := groupByName(cands)
	if g, ok := chooseGroup(groups, hint); ok {
		c := g[0]
		site := Site{File: fi.name, Name: c.a.name, Object: c.a.object, Exact: true}
		var err error
		if site.Range, err = fi.mapper.NodeSpan(fi.tok, c.a.expr); err != nil {
			return Site{}, false
		}
		if site.Stmt, err = p.stmtSpan(fi, c); err != nil {
			return Site{}, false
		}
		return site, true
	}

	// Ambiguous: the statement, or the line.
	var names []string
	stmt, _ := cands[0].ff.nodes.stmt(cands[0].a.expr)
	for _, g := range groups {
		if g[0].a.secondary && hasPrimary(groups) {
			continue
		}
		names = append(names, g[0].a.name)
		if s, _ := g[0].ff.nodes.stmt(g[0].a.expr); s != stmt {
			stmt = nil
		}
	}
	site := Site{File: fi.name, Name: joinOr(names, "or")}
	var err error
	if stmt != nil {
		site.Stmt, err = p.stmtSpan(fi, cands[0])
	} else {
		site.Stmt, err = fi.mapper.LineSpan(f.Line)
	}
	if err != nil {
		return Site{}, false
	}
	site.Range = site.Stmt
	return site, true
}

// LineSite returns the site of frame f when only its line is known: the
// text of the line, without a name. It fails when the file is not part of
// the Program or is shorter than the line.
func (p *Program) LineSite(f trace.Frame) (Site, bool) {
	fi, ok := p.lookupFile(f.File)
	if !ok {
		return Site{}, false
	}
	s, err := fi.mapper.LineSpan(f.Line)
	if err != nil {
		return Site{}, false
	}
	return Site{File: fi.name, Range: s, Stmt: s}, true
}

// candidate is an access with the function facts it belongs to.
type candidate struct {
	ff *funcFacts
	a  *access
}

// candidates returns the accesses selected by keep that frame f's line
// may have executed. If none is on the line itself and spanning is set,
// it takes those whose statement spans the line (the compiler may
// attribute an access of a statement written over several lines to
// another of them): good enough for a name, not for a proof.
func (p *Program) candidates(f trace.Frame, spanning bool, keep func(*access) bool) (*file, []candidate) {
	fi, fns, ok := p.resolve(f)
	if !ok {
		return nil, nil
	}
	var onLine, spans []candidate
	for _, fn := range fns {
		ff := p.facts(fi, fn)
		for i := range ff.accesses {
			a := &ff.accesses[i]
			if !keep(a) {
				continue
			}
			if fi.tok.Line(a.pos) == f.Line {
				onLine = append(onLine, candidate{ff, a})
				continue
			}
			stmt, end := ff.nodes.stmt(a.expr)
			if spanning && fi.tok.Line(stmt.Pos()) <= f.Line && f.Line <= fi.tok.Line(end-1) {
				spans = append(spans, candidate{ff, a})
			}
		}
	}
	if len(onLine) > 0 {
		return fi, onLine
	}
	return fi, spans
}

// groupByName groups candidates that name the same memory, keeping the
// order of their first occurrences (by position).
func groupByName(cands []candidate) [][]candidate {
	index := make(map[string]int)
	var groups [][]candidate
	for _, c := range sortedByPos(cands) {
		key := c.a.name + "\x00" + c.a.object
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

func sortedByPos(cands []candidate) []candidate {
	out := append([]candidate(nil), cands...)
	for i := 1; i < len(out); i++ { // insertion sort: lines have few accesses
		for j := i; j > 0 && out[j].a.expr.Pos() < out[j-1].a.expr.Pos(); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func hasPrimary(groups [][]candidate) bool {
	for _, g := range groups {
		if !g[0].a.secondary {
			return true
		}
	}
	return false
}

// chooseGroup picks the one group that the hint, or the absence of
// competitors, designates.
func chooseGroup(groups [][]candidate, hint AccessHint) ([]candidate, bool) {
	narrow := func(pred func(a *access) bool) bool {
		var keep [][]candidate
		for _, g := range groups {
			if pred(g[0].a) {
				keep = append(keep, g)
			}
		}
		if len(keep) > 0 {
			groups = keep
		}
		return len(groups) == 1
	}
	if len(groups) == 1 {
		return groups[0], true
	}
	if hint.Object != "" {
		want := normObject(hint.Object)
		if narrow(func(a *access) bool { return normObject(a.object) == want }) {
			return groups[0], true
		}
	}
	if hint.Size > 0 {
		if narrow(func(a *access) bool { return a.size == hint.Size }) {
			return groups[0], true
		}
	}
	if hint.Name != "" {
		want := baseName(hint.Name)
		if narrow(func(a *access) bool { return baseName(a.name) == want }) {
			return groups[0], true
		}
	}
	if narrow(func(a *access) bool { return !a.secondary }) {
		return groups[0], true
	}
	return nil, false
}

// normObject undoes the linker's escaping of import paths in symbol names.
func normObject(s string) string {
	if u, err := unescapePath(s); err == nil {
		return u
	}
	return s
}

// baseName strips the capture explanation from a name.
func baseName(name string) string {
	if i := strings.Index(name, " ("); i >= 0 {
		return name[:i]
	}
	return name
}

// stmtSpan returns the span of the statement of candidate c, without a
// compound statement's body.
func (p *Program) stmtSpan(fi *file, c candidate) (Span, error) {
	stmt, end := c.ff.nodes.stmt(c.a.expr)
	span, err := fi.mapper.PosSpan(fi.tok, stmt.Pos(), end)
	if err != nil {
		return Span{}, err
	}
	return trimSpan(fi.mapper, span)
}

// trimSpan removes the white space at the end of s.
func trimSpan(m *Mapper, s Span) (Span, error) {
	end := s.End.Offset
	for end > s.Start.Offset && strings.IndexByte(" \t\r\n", m.Content[end-1]) >= 0 {
		end--
	}
	return m.OffsetSpan(s.Start.Offset, end)
}
