package static

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestRecvValueFree checks RecvValueFree on the receives of
// testdata/src/recvvalue, each marked "free:yes" or "free:no".
func TestRecvValueFree(t *testing.T) {
	p := loadTestdata(t)
	file := filepath.Join(testdataDir(t), "recvvalue", "recvvalue.go")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fn, n := "", 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if name, ok := strings.CutPrefix(text, "func "); ok {
			fn = name[:strings.IndexAny(name, "(")]
		}
		want := strings.Contains(text, "// free:yes")
		if !want && !strings.Contains(text, "// free:no") {
			continue
		}
		n++
		frame := trace.Frame{Func: "example.com/seer.data/recvvalue." + fn, File: file, Line: line}
		if got := p.RecvValueFree(frame); got != want {
			t.Errorf("%s (line %d): RecvValueFree = %v, want %v", fn, line, got, want)
		}
	}
	if n < 10 {
		t.Fatalf("found %d marked receives", n)
	}
}
