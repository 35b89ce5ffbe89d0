// This file implements tests of the server with real recordings through
// check.Run, on one workspace shared by the test binary: a test with a race
// only another schedule shows, a test that does not compile, and a test
// that hangs. The first recording builds seer's recording toolchain (about
// a minute, once per machine); later ones take seconds. -short skips them.

package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

const realWait = 4 * time.Minute // the first recording builds the toolchain

const shopTxtar = `
-- go.mod --
module example.com/shop

go 1.22
-- shop.go --
package shop

import "sync"

// A Counter counts under a lock, but Peek reads without it.
type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *Counter) Peek() int {
	return c.n
}
-- shop_test.go --
package shop

import (
	"sync"
	"testing"
	"time"
)

var sink int

// TestPredicted has a race the run hides: the second goroutine waits, so
// the run orders the write before the read through mu; a schedule that
// runs the critical sections the other way round races.
func TestPredicted(t *testing.T) {
	var mu sync.Mutex
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		x = 1
		mu.Lock()
		mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		mu.Unlock()
		sink = x
	}()
	wg.Wait()
}

func TestCounter(t *testing.T) {
	var c Counter
	done := make(chan bool)
	go func() { c.Add(); done <- true }()
	sink = c.Peek()
	<-done
}
-- broken/broken_test.go --
package broken

import "testing"

func TestBroken(t *testing.T) {
	undefinedThing()
}
-- hang/hang_test.go --
package hang

import (
	"sync"
	"testing"
	"time"
)

var sink int

func TestHang(t *testing.T) {
	var mu sync.Mutex
	x := 0
	go func() {
		x = 1
		mu.Lock()
		mu.Unlock()
	}()
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	mu.Unlock()
	sink = x
	time.Sleep(time.Hour)
}
`

var (
	shopOnce sync.Once
	shopDir  string
)

// shopWorkspace returns the shared workspace, writing it once.
func shopWorkspace(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("records real test runs; skipped in -short mode")
	}
	shopOnce.Do(func() {
		dir, err := os.MkdirTemp("", "seer-lsp-shop-")
		if err != nil {
			t.Fatal(err)
		}
		writeTxtarTo(t, dir, shopTxtar)
		shopDir = dir
	})
	return shopDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shopDir != "" {
		os.RemoveAll(shopDir)
	}
	os.Exit(code)
}

func TestRealPrediction(t *testing.T) {
	dir := shopWorkspace(t)
	e := newEditor(t, dir, editorOptions{})
	u := e.open("shop_test.go")
	done := e.run(e.lens(u, "TestPredicted").Command)
	e.await("prediction", realWait, func() bool { return e.progressEnded(1) })
	if err := <-done; err != nil {
		t.Fatalf("seer.predict: %v", err)
	}
	e.mu.Lock()
	var stages []string
	for _, p := range e.progress {
		stages = append(stages, p.message)
	}
	diags := e.diagsOf("shop_test.go")
	e.mu.Unlock()
	t.Logf("progress: %q", stages)
	joined := strings.Join(stages, "|")
	for _, want := range []string{"building", "running", "analysing"} { // the SAT stage is part of analysing
		if !strings.Contains(joined, want) {
			t.Errorf("no %q progress in %q", want, joined)
		}
	}
	write := lineOf(t, dir, "shop_test.go", "x = 1") - 1
	read := lineOf(t, dir, "shop_test.go", "sink = x") - 1
	lines := map[uint32]protocol.Diagnostic{}
	for _, d := range diags {
		t.Logf("%d:%d-%d:%d %s", d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character, d.Message)
		lines[d.Range.Start.Line] = d
	}
	w, okW := lines[uint32(write)]
	r, okR := lines[uint32(read)]
	if !okW || !okR {
		t.Fatalf("want diagnostics on the write (line %d) and the read (line %d)", write+1, read+1)
	}
	for _, d := range []protocol.Diagnostic{w, r} {
		if d.Code != "race" || !strings.Contains(d.Message, "(predicted") || !strings.Contains(d.Message, "goroutine") {
			t.Errorf("diagnostic %q (code %v): want a predicted race naming goroutines", d.Message, d.Code)
		}
	}

	var hover protocol.Hover
	e.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: r.Range.Start}}, &hover)
	for _, want := range []string{"```go\nsink = x\n```", "**data race**", "Witness schedule", "was created at shop_test.go:"} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}
	t.Logf("hover:\n%s", hover.Contents.Value)

	var actions []protocol.CodeAction
	e.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: r.Range,
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{r}}}, &actions)
	if len(actions) != 4 || !strings.HasPrefix(actions[3].Title, "Replay witness") {
		t.Fatalf("code actions: %+v", actions)
	}
	e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: actions[1].Command.Command, Arguments: actions[1].Command.Arguments}, nil)
	e.mu.Lock()
	shown := e.shown
	e.mu.Unlock()
	if len(shown) != 1 {
		t.Fatalf("witness not shown: %v", shown)
	}
	path, _ := uriPath(shown[0].URI)
	text, _ := os.ReadFile(path)
	t.Logf("witness:\n%s", text)
	if !strings.Contains(string(text), "<==") {
		t.Errorf("witness does not mark the accesses")
	}
}

func TestRealBuildError(t *testing.T) {
	dir := shopWorkspace(t)
	e := newEditor(t, dir, editorOptions{})
	u := e.open("broken/broken_test.go")
	e.run(e.lens(u, "TestBroken").Command)
	e.await("build error", realWait, func() bool { return e.progressEnded(1) })
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.diagsOf("broken/broken_test.go")
	if len(d) != 1 || d[0].Severity != protocol.DiagnosticSeverityError || !strings.Contains(d[0].Message, "undefined: undefinedThing") ||
		d[0].Range.Start.Line != 5 || d[0].Range.Start.Character != 1 || d[0].Range.End.Character != 15 {
		t.Errorf("build diagnostics: %+v (messages %v)", d, e.messages)
	}
}

func TestRealHangTimesOutThenCancel(t *testing.T) {
	dir := shopWorkspace(t)
	e := newEditor(t, dir, editorOptions{config: map[string]any{"timeout": "3s"}})
	u := e.open("hang/hang_test.go")

	// With a 3s timeout the hanging test ends, and what it did before
	// is analysed.
	start := time.Now()
	e.run(e.lens(u, "TestHang").Command)
	e.await("timeout", realWait, func() bool { return e.progressEnded(1) })
	t.Logf("timed out run took %v", time.Since(start))
	e.mu.Lock()
	msgs := e.messages
	diags := e.diagsOf("hang/hang_test.go")
	e.mu.Unlock()
	if len(msgs) == 0 || !strings.Contains(msgs[0].Message, "timed out") {
		t.Errorf("no timeout message: %v", msgs)
	}
	t.Logf("partial findings: %v", diags)

	// Cancelling a run mid-way ends it; the server goes on.
	e.mu.Lock()
	e.config = map[string]any{"timeout": "5m"}
	e.mu.Unlock()
	e.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{})
	done := e.run(e.lens(u, "TestHang").Command)
	e.await("running", realWait, func() bool {
		return len(e.progress) > 0 && e.progress[len(e.progress)-1].message == "running"
	})
	e.mu.Lock()
	token := e.progress[len(e.progress)-1].token
	e.mu.Unlock()
	start = time.Now()
	e.notify(protocol.MethodWorkDoneProgressCancel, &protocol.WorkDoneProgressCancelParams{Token: *protocol.NewProgressToken(token)})
	e.await("cancelled", realWait, func() bool { return e.progressEnded(2) })
	<-done
	t.Logf("cancel took %v", time.Since(start))
	if got := e.lastProgressEnd(); got != "cancelled" {
		t.Errorf("progress ended %q", got)
	}
	if l := e.lenses(u); len(l) != 3 { // TestHang's predict and explore, and the package's
		t.Errorf("server not answering after cancel: %v", l)
	}
	_ = filepath.Join
}
