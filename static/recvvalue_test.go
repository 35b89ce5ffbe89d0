package static

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// markedLine is a line of a testdata file with a "yes" or "no" mark.
type markedLine struct {
	fn   string // the function declared last above it
	line int
	text string
	want bool // the yes mark
}

// markedLines returns the lines of testdata file pkg/name that hold the
// comment "// "+mark+":yes" or ":no".
func markedLines(t *testing.T, pkg, name, mark string) ([]markedLine, string) {
	t.Helper()
	file := filepath.Join(testdataDir(t), pkg, name)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []markedLine
	fn := ""
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if name, ok := strings.CutPrefix(text, "func "); ok {
			fn = name[:strings.IndexAny(name, "(")]
		}
		yes := strings.Contains(text, "// "+mark+":yes")
		if yes || strings.Contains(text, "// "+mark+":no") {
			out = append(out, markedLine{fn, line, text, yes})
		}
	}
	return out, file
}

// TestRecvValueFree checks RecvValueFree on the receives of
// testdata/src/recvvalue, each marked "free:yes" or "free:no".
func TestRecvValueFree(t *testing.T) {
	p := loadTestdata(t)
	lines, file := markedLines(t, "recvvalue", "recvvalue.go", "free")
	for _, l := range lines {
		frame := trace.Frame{Func: "example.com/seer.data/recvvalue." + l.fn, File: file, Line: l.line}
		if got := p.RecvValueFree(frame); got != l.want {
			t.Errorf("%s (line %d): RecvValueFree = %v, want %v", l.fn, l.line, got, l.want)
		}
	}
	if len(lines) < 10 {
		t.Fatalf("found %d marked receives", len(lines))
	}
}
