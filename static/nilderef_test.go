package static

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestNilDeref checks NilStore and NilDeref on the lines of
// testdata/src/nilderef marked "store:yes", "store:no", "deref:yes" or
// "deref:no".
func TestNilDeref(t *testing.T) {
	p := loadTestdata(t)
	file := filepath.Join(testdataDir(t), "nilderef", "nilderef.go")
	n := 0
	for _, l := range fileLines(t, file) {
		line, fn, text := l.line, l.fn, l.text
		_, mark, ok := strings.Cut(text, "// ")
		if !ok {
			continue
		}
		parts := strings.Split(mark, ":")
		if len(parts) != 2 || parts[0] != "store" && parts[0] != "deref" {
			continue
		}
		n++
		want := parts[1] == "yes"
		frame := trace.Frame{Func: "example.com/seer.data/nilderef." + fn, File: file, Line: line}
		var got bool
		if parts[0] == "store" {
			got = p.NilStore(frame)
		} else {
			got = p.NilDeref([]trace.Frame{frame})
		}
		if got != want {
			t.Errorf("%s (line %d): %s = %v, want %v", fn, line, parts[0], got, want)
		}
	}
	if n < 11 {
		t.Fatalf("found %d marked lines", n)
	}
	// watch's dereference is recovered when guarded calls it.
	lines := fileLines(t, file)
	lineOf := func(mark string) int {
		for _, l := range lines {
			if strings.HasSuffix(l.text, mark) {
				return l.line
			}
		}
		t.Fatalf("no line marked %q", mark)
		return 0
	}
	watch := trace.Frame{Func: "example.com/seer.data/nilderef.(*watcher).watch", File: file, Line: lineOf("return w.c.n // deref:yes")}
	guarded := trace.Frame{Func: "example.com/seer.data/nilderef.guarded", File: file, Line: lineOf("// guarded")}
	if !p.NilDeref([]trace.Frame{watch, {Func: "testing.tRunner", File: "/goroot/src/testing/testing.go", Line: 1}}) {
		t.Errorf("watch called from the test runner: NilDeref false, want true")
	}
	if p.NilDeref([]trace.Frame{watch, guarded}) {
		t.Errorf("watch called from guarded, which recovers: NilDeref true, want false")
	}
}
