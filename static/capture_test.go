package static

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestCaptureMatchesCompiler compares captureFacts with the compiler's
// own decisions, printed by -gcflags=-m=2 for the testdata package
// capture. Where the compiler captures by reference seer must too (or
// it would miss accesses the race runtime records); where the compiler
// captures by value, seer should too (or it sees accesses that do not
// happen).
func TestCaptureMatchesCompiler(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	t.Parallel()
	cmd := exec.Command("go", "build", "-gcflags=example.com/seer.data/capture=-m=2", "./capture")
	cmd.Dir = testdataDir(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	p := loadTestdata(t)
	fi, ok := p.lookupFile(filepath.Join(testdataDir(t), "capture", "capture.go"))
	if !ok {
		t.Fatal("capture.go not loaded")
	}
	caps := fi.pkg.captures(p.sizes)

	re := regexp.MustCompile(`^capture/capture.go:(\d+):(\d+): \S+ capturing by (value|ref): (\w+) `)
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		pos := fi.tok.LineStart(line) + tokenPos(col-1)
		v := fi.pkg.localVar(pos, m[4])
		if v == nil {
			v = caseVar(fi, pos) // the compiler places a type switch's variables at their clauses
		}
		if v == nil {
			t.Errorf("capture.go:%d:%d: no variable %s", line, col, m[4])
			continue
		}
		n++
		switch {
		case !caps.captured(v):
			t.Errorf("capture.go:%d:%d: %s: compiler captures it, seer thinks not", line, col, v.Name())
		case m[3] == "ref" && !caps.byRef[v]:
			t.Errorf("capture.go:%d:%d: %s: compiler captures by reference, seer by value", line, col, v.Name())
		case m[3] == "value" && caps.byRef[v]:
			t.Errorf("capture.go:%d:%d: %s: compiler captures by value, seer by reference", line, col, v.Name())
		}
	}
	if n < 30 {
		t.Errorf("only %d capture decisions compared:\n%s", n, out)
	}

	// Variables the compiler does not report (their closures are inlined
	// or generic) are conservatively by reference when assigned.
	for _, name := range []string{"n2", "u"} {
		found := false
		for v := range caps.closures {
			if v.Name() == name {
				found = true
				if !caps.byRef[v] {
					t.Errorf("%s: seer captures by value", name)
				}
			}
		}
		if !found {
			t.Errorf("%s: not seen as captured", name)
		}
	}
}

// caseVar returns the variable of the type switch clause at pos.
func caseVar(fi *file, pos token.Pos) *types.Var {
	var v *types.Var
	ast.Inspect(fi.ast, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CaseClause); ok && fi.tok.Line(cc.Pos()) == fi.tok.Line(pos) {
			v, _ = fi.pkg.info.Implicits[cc].(*types.Var)
		}
		return v == nil
	})
	return v
}
