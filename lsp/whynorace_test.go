package lsp

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
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

// Without recording: a report's Ordered pairs become hovers on both
// accesses, never diagnostics, and a finding's hover wins where both are.
func TestWhyNoRaceHover(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	bank, test := filepath.Join(dir, "bank.go"), filepath.Join(dir, "bank_test.go")
	decl := lineOf(t, dir, "bank_test.go", "var a Account")
	spawn := lineOf(t, dir, "bank_test.go", "a.Deposit(1)")
	write := lineOf(t, dir, "bank.go", "a.balance += n")
	step := func(g int, op, file string, line int, text string) report.Step {
		return report.Step{Goroutine: g, Op: op, File: file, Line: line, Text: text}
	}
	ordered := report.Ordered{
		Test: "TestDeposit", Variable: "a",
		Accesses: [2]report.Access{
			{File: test, Line: decl, Op: "write", Goroutine: 6, Variable: "a"},
			{File: bank, Line: write, Op: "write", Goroutine: 7, Variable: "a.balance"},
		},
		Chain: []report.Link{
			{Rule: "program order", From: step(6, "write", test, decl, "writes a"), To: step(6, "go", test, spawn, "starts goroutine 7")},
			{Rule: "go", From: step(6, "go", test, spawn, "starts goroutine 7"), To: step(7, "start", "", 0, "begins")},
			{Rule: "program order", From: step(7, "start", "", 0, "begins"), To: step(7, "write", bank, write, "writes a.balance")},
		},
	}
	base := bankReport(t, dir)
	fr := &fakeRunner{answer: func(n int, o check.Options) *report.Report {
		rep := base(n, o)
		rep.Ordered = []report.Ordered{ordered}
		return rep
	}}
	e := newEditor(t, dir, editorOptions{run: fr.run})
	u := e.open("bank_test.go")
	done := e.run(e.lens(u, "TestDeposit").Command)
	e.await("diagnostics on bank.go", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !fr.last().WhyNoRace {
		t.Errorf("the server does not ask for Report.Ordered: %+v", fr.last())
	}
	e.mu.Lock()
	if d := e.diagsOf("bank_test.go"); len(d) != 0 {
		t.Errorf("a race-free pair is published: %+v", d)
	}
	e.mu.Unlock()
	hover := func(uri protocol.DocumentURI, line int) string {
		var h protocol.Hover
		e.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: uint32(line - 1), Character: 2}}}, &h)
		return h.Contents.Value
	}
	want := "```go\nvar a Account\n```\n\n" +
		"**No race** on `a` between the **write** here (goroutine 6) and the **write** at bank.go:12 (goroutine 7): every schedule orders them.\n\n" +
		"1. Goroutine 6 writes a at bank_test.go:9, then starts goroutine 7 at :12\n" +
		"2. The go statement at :12 starts goroutine 7\n" +
		"3. Goroutine 7 then writes a.balance at bank.go:12\n"
	if got := hover(u, decl); got != want {
		t.Errorf("hover on the declaration:\n got %q\nwant %q", got, want)
	}
	// On the write, the finding's story, not the pair's.
	b := e.open("bank.go")
	if got := hover(b, write); !strings.Contains(got, "**data race**") || strings.Contains(got, "No race") {
		t.Errorf("hover on an access with a finding:\n%s", got)
	}
}
