// This file implements code lenses: "seer: predict" and "seer: explore"
// above each test function of a _test.go file and "seer: predict all
// tests" on its package clause.

package lsp

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/static"
)

// predictArgs are the arguments of seer.predict: the file and, unless
// the whole package is meant, the test; Explore asks for steered runs
// after the first (job.go's exploreRuns).
type predictArgs struct {
	URI     protocol.DocumentURI `json:"uri"`
	Test    string               `json:"test,omitempty"`
	Explore bool                 `json:"explore,omitempty"`
}

// The lenses' titles; the editors' tests click lenses by them.
const (
	titlePredict    = "seer: predict"
	titleExplore    = "seer: explore"
	titlePredictAll = "seer: predict all tests"
)

// CodeLens returns the lenses of a test file in the workspace.
func (s *server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	s.mu.Lock()
	path, err := s.notePath(params.TextDocument.URI)
	if err != nil || !strings.HasSuffix(path, "_test.go") || !s.inWorkspace(path) {
		s.mu.Unlock()
		return []protocol.CodeLens{}, nil
	}
	content, err := s.content(path)
	s.mu.Unlock()
	if err != nil {
		s.log.Debug("codeLens", "path", path, "error", err)
		return []protocol.CodeLens{}, nil
	}
	return testLenses(path, params.TextDocument.URI, content), nil
}

// testLenses returns the lenses of a test file's content. A file that
// does not parse still gets lenses for what parsed.
func testLenses(path string, u protocol.DocumentURI, content []byte) []protocol.CodeLens {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, path, content, parser.SkipObjectResolution)
	lenses := []protocol.CodeLens{}
	if f == nil || f.Name == nil {
		return lenses
	}
	tf := fset.File(f.Package)
	m := static.NewMapper(path, content)
	lens := func(from, to token.Pos, title string, args predictArgs) {
		span, err := m.PosSpan(tf, from, to)
		if err != nil {
			return
		}
		lenses = append(lenses, protocol.CodeLens{
			Range:   toRange(span.LSP()),
			Command: &protocol.Command{Title: title, Command: cmdPredict, Arguments: []any{args}},
		})
	}
	tests := 0
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && isTestFunc(fn, testingName(f)) {
			tests++
			lens(fn.Pos(), fn.Name.End(), titlePredict, predictArgs{URI: u, Test: fn.Name.Name})
			lens(fn.Pos(), fn.Name.End(), titleExplore, predictArgs{URI: u, Test: fn.Name.Name, Explore: true})
		}
	}
	if tests > 0 {
		lens(f.Package, f.Name.End(), titlePredictAll, predictArgs{URI: u})
	}
	return lenses
}

// testingName returns the name under which f imports "testing".
func testingName(f *ast.File) string {
	for _, imp := range f.Imports {
		if imp.Path != nil && imp.Path.Value == `"testing"` {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "testing"
		}
	}
	return ""
}

// isTestFunc reports whether fn is a test as go test sees one:
// func TestXxx(t *testing.T), Xxx not starting with a lower-case letter.
func isTestFunc(fn *ast.FuncDecl, testing string) bool {
	if fn.Recv != nil || fn.Name == nil || !isTestName(fn.Name.Name) || testing == "" || testing == "_" {
		return false
	}
	if fn.Type.TypeParams != nil || fn.Type.Results != nil && len(fn.Type.Results.List) > 0 {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && (x.Name == testing || testing == ".")
}

// isTestName reports whether name is Test or TestXxx with Xxx not
// starting with a lower-case letter (the rule of go test).
func isTestName(name string) bool {
	if !strings.HasPrefix(name, "Test") {
		return false
	}
	if len(name) == 4 {
		return true
	}
	r, _ := utf8.DecodeRuneInString(name[4:])
	return !unicode.IsLower(r)
}
