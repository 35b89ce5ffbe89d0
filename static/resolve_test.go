package static

import (
	"bufio"
	"bytes"
	"context"
	"go/ast"
	"go/types"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestResolveRuntimeFrames runs the testdata's TestFrames, which records
// the runtime's frame at each call of here() (closures, nested and
// inlined closures, methods, generic code, func init and variable
// initializers, range-over-func bodies), and checks that resolve finds
// the function whose code is there.
func TestResolveRuntimeFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	t.Parallel()
	cmd := exec.CommandContext(context.Background(), "go", "test", "-count=1", "-run=^TestFrames$", "-v", ".")
	cmd.Dir = testdataDir(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in testdata: %v\n%s", err, out)
	}
	p := loadTestdata(t)

	var frames []trace.Frame
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 4 || fields[0] != "FRAME" {
			continue
		}
		line, _ := strconv.Atoi(fields[3])
		frames = append(frames, trace.Frame{Func: fields[1], File: fields[2], Line: line})
	}
	if len(frames) < 25 {
		t.Fatalf("only %d frames recorded:\n%s", len(frames), out)
	}

	seenLines := make(map[int]bool)
	for _, f := range frames {
		fi, fns, ok := p.resolve(f)
		if !ok {
			t.Errorf("resolve(%v) failed", f)
			continue
		}
		want := innermostAt(fi, f.Line)
		if want == nil {
			t.Fatalf("no function around %v", f)
		}
		if fns[0] != want.fn {
			t.Errorf("resolve(%v) = %v, want %v first", f, fns, want.fn)
		}
		if fd, ok := want.node.(*ast.FuncDecl); ok {
			if len(fns) != 1 {
				t.Errorf("resolve(%v) = %v, want only %v", f, fns, want.fn)
			}
			// The runtime's name of a declared function is RuntimeName.
			obj := fi.pkg.info.Defs[fd.Name].(*types.Func)
			if fd.Name.Name != "init" && RuntimeName(obj) != f.Func {
				t.Errorf("RuntimeName(%v) = %q, runtime says %q", obj, RuntimeName(obj), f.Func)
			}
		}
		if strings.HasSuffix(f.File, "names.go") {
			seenLines[f.Line] = true
		}
	}

	// Every call of here() in names.go was recorded.
	fi, _ := p.lookupFile(frames[0].File)
	for i, line := range strings.Split(string(fi.mapper.Content), "\n") {
		if strings.Contains(line, "here()") && !strings.Contains(line, "func here()") && !seenLines[i+1] {
			t.Errorf("names.go:%d: here() not recorded", i+1)
		}
	}

	// Frames of other packages, of unknown files and of lines outside any
	// function resolve to nothing.
	for _, f := range []trace.Frame{
		{Func: "sync.(*Mutex).Lock", File: frames[0].File, Line: frames[0].Line},
		{Func: frames[0].Func, File: "/nonexistent/names.go", Line: frames[0].Line},
		{Func: frames[0].Func, File: frames[0].File, Line: 100000},
		{Func: frames[0].Func, File: frames[0].File, Line: 0},
		{Func: "example.com/seer%2edata.W", File: frames[0].File, Line: 1},
	} {
		if fns := p.Functions(f); fns != nil {
			t.Errorf("Functions(%v) = %v, want none", f, fns)
		}
	}
}

// innermostAt returns the innermost function node of fi around line.
func innermostAt(fi *file, line int) *funcNode {
	var best *funcNode
	for i := range fi.funcs {
		n := &fi.funcs[i]
		if n.start <= line && line <= n.end && (best == nil || n.node.Pos() >= best.node.Pos()) {
			best = n
		}
	}
	return best
}
