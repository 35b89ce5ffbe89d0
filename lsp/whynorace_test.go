package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

const whyTxtar = `
-- go.mod --
module example.com/why

go 1.22
-- why_test.go --
package why

import (
	"sync"
	"testing"
)

var sink int

func TestHandoff(t *testing.T) {
	msg := 0
	ch := make(chan int)
	go func() {
		msg = 42
		ch <- 1
	}()
	<-ch
	sink = msg
}

func TestLocked(t *testing.T) {
	var mu sync.Mutex
	n := 0
	start, done := make(chan bool), make(chan bool)
	go func() {
		<-start
		mu.Lock()
		n++
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	n = 5
	mu.Unlock()
	start <- true
	<-done
}
`

// Through the real server and a real recording: hover on an access that
// another goroutine's access conflicts with, and that has no finding,
// says what orders them; nothing is published for it.
func TestRealWhyNoRace(t *testing.T) {
	if testing.Short() {
		t.Skip("records real test runs; skipped in -short mode")
	}
	dir := t.TempDir()
	writeTxtarTo(t, dir, whyTxtar)
	e := newEditor(t, dir, editorOptions{})
	u := e.open("why_test.go")
	done := e.run(e.lens(u, "").Command) // all tests of the package
	e.await("prediction", realWait, func() bool { return e.progressEnded(1) })
	if err := <-done; err != nil {
		t.Fatalf("seer.predict: %v", err)
	}
	e.mu.Lock()
	diags := e.diagsOf("why_test.go")
	e.mu.Unlock()
	if len(diags) != 0 {
		t.Errorf("race-free tests have diagnostics: %+v", diags)
	}
	hover := func(substr string, col uint32) string {
		var h protocol.Hover
		line := uint32(lineOf(t, dir, "why_test.go", substr) - 1)
		e.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: line, Character: col}}}, &h)
		t.Logf("hover on %q:\n%s", substr, h.Contents.Value)
		return h.Contents.Value
	}
	for _, tc := range []struct {
		line string
		col  uint32
		want []string
	}{
		{"sink = msg", 8, []string{"```go\nsink = msg\n```", "**No race** on `msg", "the **read** here", "write** at why_test.go:14",
			"1. Goroutine", "sends on ch at :15", "a receive comes after the send it takes", "then reads msg"}},
		{"n = 5", 1, []string{"**No race** on `n", "Both accesses hold mu", "two critical sections of one lock cannot overlap"}},
	} {
		got := hover(tc.line, tc.col)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("hover on %q lacks %q", tc.line, w)
			}
		}
	}
	// A line with no shared access has no hover.
	if got := hover("ch := make(chan int)", 1); got != "" {
		t.Errorf("hover on a local: %q", got)
	}
}
