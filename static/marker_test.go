package static

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// Marker tests: a line of testdata says what Access and ReadFlow find on
// it, in a comment "//@" followed by items:
//
//	read(NAME)              Access(read) is exact, named NAME, and its range
//	                        is the text NAME without its capture explanation
//	read(NAME, TEXT)        ... and its range is the text TEXT
//	read(NAME, ambiguous)   Access(read) is not exact: NAME lists the
//	                        candidates and the range is the statement
//	write(...)              the same for Access(write)
//	noread, nowrite         Access finds no access of the kind
//	relevant, irrelevant    what ReadIrrelevant says
type marker struct {
	file string
	line int
	kind string   // read, write, noread, nowrite, relevant, irrelevant
	args []string // string arguments; "ambiguous" as is
}

// parseMarkers returns the markers of a file's content.
func parseMarkers(name string, src []byte) ([]marker, error) {
	var out []marker
	sc := bufio.NewScanner(bytes.NewReader(src))
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		i := strings.Index(text, "//@")
		if i < 0 {
			continue
		}
		var s scanner.Scanner
		fset := token.NewFileSet()
		body := []byte(text[i+3:])
		s.Init(fset.AddFile("", -1, len(body)), body, nil, 0)
		var cur *marker
		depth := 0
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF || tok == token.SEMICOLON && lit == "\n" {
				break
			}
			switch {
			case tok == token.IDENT && depth == 0:
				out = append(out, marker{file: name, line: line, kind: lit})
				cur = &out[len(out)-1]
			case tok == token.LPAREN:
				depth++
			case tok == token.RPAREN:
				depth--
			case tok == token.STRING && depth == 1:
				v, err := strconv.Unquote(lit)
				if err != nil {
					return nil, err
				}
				cur.args = append(cur.args, v)
			case tok == token.IDENT && depth == 1:
				cur.args = append(cur.args, lit)
			case tok == token.COMMA:
			case tok == token.SEMICOLON:
			default:
				return nil, fmt.Errorf("%s:%d: bad marker token %s %q", name, line, tok, lit)
			}
		}
	}
	return out, sc.Err()
}

// frameAt returns the trace frame of code at line of file fi, with the
// function name the runtime would give it.
func frameAt(p *Program, fi *file, line int) trace.Frame {
	var decl, lit ast.Node
	for _, n := range fi.funcs {
		if n.start <= line && line <= n.end {
			switch n.node.(type) {
			case *ast.FuncDecl:
				decl = n.node
			default:
				lit = n.node
			}
		}
	}
	name := escapePath(fi.pkg.path) + ".init"
	if decl != nil {
		fd := decl.(*ast.FuncDecl)
		name = RuntimeName(fi.pkg.info.Defs[fd.Name].(*types.Func))
		if lit != nil {
			name += ".func1"
		}
	}
	return trace.Frame{Func: name, File: fi.name, Line: line}
}

func TestMarkers(t *testing.T) {
	p := loadTestdata(t)
	n := 0
	for _, name := range p.Files() {
		fi := p.files[name]
		markers, err := parseMarkers(name, fi.mapper.Content)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markers {
			n++
			f := frameAt(p, fi, m.line)
			pos := fmt.Sprintf("%s:%d", shortName(name), m.line)
			switch m.kind {
			case "read", "write":
				checkAccess(t, p, fi, pos, f, m)
			case "noread", "nowrite":
				if site, ok := p.Access(f, m.kind == "nowrite", AccessHint{}); ok {
					t.Errorf("%s: %s, but Access found %q", pos, m.kind, site.Name)
				}
			case "relevant", "irrelevant":
				rf, ok := p.ReadFlow(f)
				if !ok {
					t.Errorf("%s: %s, but ReadFlow knows nothing", pos, m.kind)
				} else if rf.Relevant != (m.kind == "relevant") {
					t.Errorf("%s: want %s, got relevant=%v (%s), writes %v", pos, m.kind, rf.Relevant, rf.Reason, rf.Writes)
				}
				if m.kind == "irrelevant" && !p.ReadIrrelevant(f) {
					t.Errorf("%s: ReadIrrelevant is false", pos)
				}
			default:
				t.Errorf("%s: unknown marker %q", pos, m.kind)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d markers checked", n)
	}
}

func checkAccess(t *testing.T, p *Program, fi *file, pos string, f trace.Frame, m marker) {
	t.Helper()
	if len(m.args) == 0 {
		t.Errorf("%s: %s marker without a name", pos, m.kind)
		return
	}
	site, ok := p.Access(f, m.kind == "write", AccessHint{})
	if !ok {
		t.Errorf("%s: no %s access found, want %q", pos, m.kind, m.args[0])
		return
	}
	if site.Name != m.args[0] {
		t.Errorf("%s: %s named %q, want %q", pos, m.kind, site.Name, m.args[0])
	}
	ambiguous := len(m.args) > 1 && m.args[1] == "ambiguous"
	if site.Exact == ambiguous {
		t.Errorf("%s: %s %q: Exact = %v", pos, m.kind, site.Name, site.Exact)
	}
	text := string(fi.mapper.Content[site.Range.Start.Offset:site.Range.End.Offset])
	switch {
	case ambiguous:
		if site.Range != site.Stmt || site.Object != "" {
			t.Errorf("%s: ambiguous %s: range %q is not the statement, or object %q set", pos, m.kind, text, site.Object)
		}
	case len(m.args) > 1:
		if text != m.args[1] {
			t.Errorf("%s: %s range is %q, want %q", pos, m.kind, text, m.args[1])
		}
	default:
		if text != baseName(m.args[0]) {
			t.Errorf("%s: %s range is %q, want %q", pos, m.kind, text, baseName(m.args[0]))
		}
	}
	if !site.Stmt.Contains(site.Range) {
		t.Errorf("%s: statement %v does not contain range %v", pos, site.Stmt, site.Range)
	}
	if site.Range.Start.Line != f.Line && site.Stmt.Start.Line > f.Line {
		t.Errorf("%s: range %v is not on the line", pos, site.Range)
	}
}

func shortName(name string) string {
	if i := strings.Index(name, "testdata/"); i >= 0 {
		return name[i+len("testdata/"):]
	}
	return name
}
