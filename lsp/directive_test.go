package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const directiveTxtar = `
-- go.mod --
module example.com/dir

go 1.26
-- dir.go --
package dir

//seer:atomic
var counter int

// Inc is a transaction.
//
//seer:atomic
func Inc() { counter++ }
`

// TestDirectiveDiagnostics checks that a misplaced //seer:atomic is a
// diagnostic on opening, and that fixing it (and saving) clears it.
func TestDirectiveDiagnostics(t *testing.T) {
	dir := writeTxtar(t, directiveTxtar)
	e := newEditor(t, dir, editorOptions{})
	e.open("dir.go")
	e.await("directive diagnostic", wait, func() bool { return len(e.diagsOf("dir.go")) == 1 })
	d := e.diagsOf("dir.go")[0]
	if d.Source != "seer" || d.Code != "directive" || d.Range.Start.Line != 2 || !strings.Contains(d.Message, "//seer:atomic") {
		t.Errorf("diagnostic: %+v", d)
	}
	// Remove the misplaced directive and save: the diagnostic goes.
	path := filepath.Join(dir, "dir.go")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "//seer:atomic\nvar", "var", 1)), 0o644)
	e.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
	})
	e.await("directive diagnostic cleared", wait, func() bool { return len(e.diagsOf("dir.go")) == 0 })
}
