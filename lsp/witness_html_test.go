package lsp

import (
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// seer.showWitness with html set answers the witness's picture and its
// file, and leaves the showing to the client.
func TestShowWitnessHTML(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	e := newEditor(t, dir, editorOptions{run: (&fakeRunner{answer: bankReport(t, dir)}).run})
	e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
	e.await("diagnostics", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 })
	e.mu.Lock()
	write := e.diagsOf("bank.go")[0]
	e.mu.Unlock()
	var actions []protocol.CodeAction
	e.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.open("bank.go")},
		Range:        write.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{write}},
	}, &actions)
	var cmd *protocol.Command
	for _, a := range actions {
		if a.Title == "Show witness schedule" {
			cmd = a.Command
		}
	}
	if cmd == nil {
		t.Fatalf("no Show witness schedule action among %v", actions)
	}
	args, ok := cmd.Arguments[0].(map[string]any)
	if !ok {
		t.Fatalf("argument %#v", cmd.Arguments[0])
	}
	if _, set := args["html"]; set {
		t.Errorf("the code action asks for HTML itself: %v", args)
	}
	args["html"] = true
	var shown shownDocument
	e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: []any{args}}, &shown)
	path, err := uriPath(shown.URI)
	if err != nil || !strings.HasSuffix(path, ".html") {
		t.Fatalf("answer %v: want an .html file", shown.URI)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != shown.HTML {
		t.Errorf("the answer's page and the file differ")
	}
	for _, want := range []string{"<!DOCTYPE html>", `data-bug-access="write"`, `data-bug-access="read"`, "bank.go:12", "goroutine 7", "goroutine 8", "a.balance += n"} {
		if !strings.Contains(shown.HTML, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.shown) != 0 {
		t.Errorf("the server called window/showDocument for the picture: %v", e.shown)
	}
}
