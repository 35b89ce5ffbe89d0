package static

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestSelectLeak checks SelectLeak on the selects of testdata/src/leak,
// each marked "leak:yes" or "leak:no" on its line.
func TestSelectLeak(t *testing.T) {
	p := loadTestdata(t)
	file := filepath.Join(testdataDir(t), "leak", "leak.go")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fn := ""
	n := 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if name, ok := strings.CutPrefix(text, "func "); ok {
			fn = name[:strings.IndexAny(name, "(")]
		}
		want := strings.Contains(text, "// leak:yes")
		if !want && !strings.Contains(text, "// leak:no") || !strings.HasPrefix(strings.TrimSpace(text), "select {") && !strings.HasPrefix(strings.TrimSpace(text), "case ") {
			continue
		}
		n++
		frame := trace.Frame{Func: "example.com/seer.data/leak." + fn, File: file, Line: line}
		got, ok := p.SelectLeak(frame)
		if ok != want {
			t.Errorf("%s (line %d): SelectLeak = %v, want %v", fn, line, ok, want)
		}
		if ok && (fn == "fetch" || fn == "withTimeout") && !got.Timer {
			t.Errorf("fetch: no timer found")
		}
		if ok && fn == "poll" && !got.Default {
			t.Errorf("poll: no default found")
		}
	}
	if n < 14 {
		t.Fatalf("found %d marked selects", n)
	}
}
