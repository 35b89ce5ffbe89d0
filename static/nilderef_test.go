package static

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestNilUse checks NilStore and NilUse on the lines of
// testdata/src/nilderef marked "store:yes", "store:no", "use:deref",
// "use:index", "use:mapwrite" or "use:no".
func TestNilUse(t *testing.T) {
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
		if len(parts) != 2 || parts[0] != "store" && parts[0] != "use" {
			continue
		}
		n++
		frame := trace.Frame{Func: "example.com/seer.data/nilderef." + fn, File: file, Line: line}
		if parts[0] == "store" {
			if got, want := p.NilStore(frame), parts[1] == "yes"; got != want {
				t.Errorf("%s (line %d): NilStore = %v, want %v", fn, line, got, want)
			}
			continue
		}
		want, ok := map[string]NilUse{"deref": NilDeref, "index": NilIndex, "mapwrite": NilMapWrite, "no": NoNilUse}[parts[1]]
		if !ok {
			t.Fatalf("line %d: unknown mark %q", line, mark)
		}
		if got, _ := p.NilUse([]trace.Frame{frame}); got != want {
			t.Errorf("%s (line %d): NilUse = %v, want %v", fn, line, got, want)
		}
	}
	if n < 16 {
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
	watch := trace.Frame{Func: "example.com/seer.data/nilderef.(*watcher).watch", File: file, Line: lineOf("return w.c.n // use:deref")}
	guarded := trace.Frame{Func: "example.com/seer.data/nilderef.guarded", File: file, Line: lineOf("// guarded")}
	if use, name := p.NilUse([]trace.Frame{watch, {Func: "testing.tRunner", File: "/goroot/src/testing/testing.go", Line: 1}}); use != NilDeref || name != "w.c" {
		t.Errorf("watch called from the test runner: NilUse %v, %q, want a dereference of w.c", use, name)
	}
	if use, _ := p.NilUse([]trace.Frame{watch, guarded}); use != NoNilUse {
		t.Errorf("watch called from guarded, which recovers: NilUse %v, want none", use)
	}
}
