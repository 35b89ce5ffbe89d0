package record

import (
	"reflect"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestPanicStack: the scanner of a test binary's output keeps the stack
// of the goroutine whose panic ended the run, innermost first, every
// frame as printed and its "created by" line last, and no other
// goroutine's.
func TestPanicStack(t *testing.T) {
	out := `=== RUN   TestDoubleStop
--- FAIL: TestDoubleStop (0.00s)
panic: close of closed channel [recovered, repanicked]

goroutine 7 [running]:
testing.tRunner.func1.2({0x5e8540, 0x624e90})
	/cache/goroot/src/testing/testing.go:1974 +0x419
panic({0x5e8540?, 0x624e90?})
	/cache/goroot/src/runtime/panic.go:860 +0x13a
example.com/cc.(*server).Stop(...)
	/tmp/cc/cc_test.go:12
example.com/cc.TestDoubleStop(0xc000134248?)
	/tmp/cc/cc_test.go:23 +0x17d
created by testing.(*T).Run in goroutine 1
	/cache/goroot/src/testing/testing.go:2101 +0xb13

goroutine 8 [chan receive]:
example.com/cc.other()
	/tmp/cc/cc_test.go:40 +0x1
`
	var s outputScan
	for _, line := range strings.Split(out, "\n") {
		s.note(line)
	}
	want := []trace.Frame{
		{Func: "testing.tRunner.func1.2", File: "/cache/goroot/src/testing/testing.go", Line: 1974},
		{Func: "panic", File: "/cache/goroot/src/runtime/panic.go", Line: 860},
		{Func: "example.com/cc.(*server).Stop", File: "/tmp/cc/cc_test.go", Line: 12},
		{Func: "example.com/cc.TestDoubleStop", File: "/tmp/cc/cc_test.go", Line: 23},
		{Func: "created by testing.(*T).Run", File: "/cache/goroot/src/testing/testing.go", Line: 2101},
	}
	if !reflect.DeepEqual(s.panicStack, want) {
		t.Errorf("stack %+v, want %+v", s.panicStack, want)
	}
	if s.firstPanic != "close of closed channel [recovered, repanicked]" {
		t.Errorf("first panic %q", s.firstPanic)
	}
}
