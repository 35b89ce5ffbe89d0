package static

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestSelectLeak checks SelectLeak on the selects of testdata/src/leak,
// each marked "leak:yes" or "leak:no" on its line.
func TestSelectLeak(t *testing.T) {
	p := loadTestdata(t)
	lines, file := markedLines(t, "leak", "leak.go", "leak")
	n := 0
	for _, l := range lines {
		if text := strings.TrimSpace(l.text); !strings.HasPrefix(text, "select {") && !strings.HasPrefix(text, "case ") {
			continue
		}
		n++
		fn := l.fn
		frame := trace.Frame{Func: "example.com/seer.data/leak." + fn, File: file, Line: l.line}
		got, ok := p.SelectLeak(frame)
		if ok != l.want {
			t.Errorf("%s (line %d): SelectLeak = %v, want %v", fn, l.line, ok, l.want)
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
