package static

import (
	"context"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"strings"
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

// srcLine is a line of a testdata file, with the function it is in.
type srcLine struct {
	line     int
	fn, text string // fn as a frame names it after the package: "f", "(*T).m"
}

// fileLines returns the lines of file, each with its function.
func fileLines(t testing.TB, file string) []srcLine {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []srcLine
	fn := ""
	for k, text := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(text, "func "); ok {
			recv := ""
			if strings.HasPrefix(name, "(") {
				end := strings.Index(name, ")")
				fields := strings.Fields(name[1:end])
				recv = "(" + fields[len(fields)-1] + ")."
				name = strings.TrimSpace(name[end+1:])
			}
			fn = recv + name[:strings.IndexAny(name, "([")]
		}
		out = append(out, srcLine{line: k + 1, fn: fn, text: text})
	}
	return out
}
