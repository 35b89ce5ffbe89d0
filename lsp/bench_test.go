// This file implements the benchmarks: hover latency on a stored finding and a
// warm prediction from lens to diagnostics.

package lsp

import (
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/report"
)

// BenchmarkHover measures hover on a stored finding, from the request
// leaving the editor to the answer arriving (JSON-RPC over a pipe).
func BenchmarkHover(b *testing.B) {
	dir := writeTxtar(b, bankTxtar)
	e := newEditor(b, dir, editorOptions{run: (&fakeRunner{answer: bankReport(b, dir)}).run})
	e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
	e.await("diagnostics", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 })
	params := &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.open("bank.go")}, Position: protocol.Position{Line: 18, Character: 5}}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var h protocol.Hover
		e.call(protocol.MethodTextDocumentHover, params, &h)
		if h.Contents.Value == "" {
			b.Fatal("empty hover")
		}
	}
}

// BenchmarkHoverMarkdown measures the pure function behind hover.
func BenchmarkHoverMarkdown(b *testing.B) {
	dir := writeTxtar(b, bankTxtar)
	f := bankFinding(b, dir)
	src := func(string, int) string { return "return a.balance" }
	for i := 0; i < b.N; i++ {
		report.HoverMarkdown(&f, 1, filepath.Base, src)
	}
}

// BenchmarkLensToDiagnostics measures a warm prediction from the lens
// command to the diagnostics: recording TestPredicted of the shared
// workspace with check.Run, analysing, publishing.
func BenchmarkLensToDiagnostics(b *testing.B) {
	dir := shopWorkspace(b)
	e := newEditor(b, dir, editorOptions{})
	cmd := e.lens(e.open("shop_test.go"), "TestPredicted").Command
	e.run(cmd) // warm: the toolchain and the build cache
	e.await("warm-up", realWait, func() bool { return e.progressEnded(1) })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := 0
		e.mu.Lock()
		before = e.publishes[filepath.Join(dir, "shop_test.go")]
		e.mu.Unlock()
		if err := <-e.run(cmd); err != nil {
			b.Fatal(err)
		}
		e.await("diagnostics", realWait, func() bool {
			return e.publishes[filepath.Join(dir, "shop_test.go")] > before && len(e.diagsOf("shop_test.go")) >= 2
		})
	}
}
