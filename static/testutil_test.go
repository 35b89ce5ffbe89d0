package static

import (
	"context"
	"go/ast"
	"go/token"
	"path/filepath"
	"sync"
	"testing"
)

// identsOf returns the identifiers of f in order.
func identsOf(f *ast.File) []*ast.Ident {
	var ids []*ast.Ident
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			ids = append(ids, id)
		}
		return true
	})
	return ids
}

// The testdata module is loaded once and shared by every test: loading
// is the slow part.
var (
	testProgOnce sync.Once
	testProg     *Program
	testProgErr  error
)

// testdataDir is the directory of the testdata module.
func testdataDir(t testing.TB) string {
	dir, err := filepath.Abs(filepath.Join("testdata", "src"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadTestdata returns the Program of every package of the testdata
// module.
func loadTestdata(t testing.TB) *Program {
	t.Helper()
	testProgOnce.Do(func() {
		testProg, testProgErr = Load(context.Background(), testdataDir(t), "./...")
	})
	if testProgErr != nil {
		t.Fatalf("loading testdata: %v", testProgErr)
	}
	return testProg
}

func tokenPos(n int) token.Pos { return token.Pos(n) }
