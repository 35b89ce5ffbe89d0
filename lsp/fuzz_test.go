package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

// paramTypes are the params protocol.ServerHandler decodes for each method
// (protocol v0.12.0's serverDispatch), with its decoder. The fuzz target
// decodes a request's params the same way to know that the server must
// answer InvalidParams.
var paramTypes = map[string]any{
	protocol.MethodInitialized:                        protocol.InitializedParams{},
	protocol.MethodWorkDoneProgressCancel:             protocol.WorkDoneProgressCancelParams{},
	protocol.MethodLogTrace:                           protocol.LogTraceParams{},
	protocol.MethodSetTrace:                           protocol.SetTraceParams{},
	protocol.MethodTextDocumentCodeAction:             protocol.CodeActionParams{},
	protocol.MethodTextDocumentCodeLens:               protocol.CodeLensParams{},
	protocol.MethodCodeLensResolve:                    protocol.CodeLens{},
	protocol.MethodTextDocumentColorPresentation:      protocol.ColorPresentationParams{},
	protocol.MethodTextDocumentCompletion:             protocol.CompletionParams{},
	protocol.MethodCompletionItemResolve:              protocol.CompletionItem{},
	protocol.MethodTextDocumentDeclaration:            protocol.DeclarationParams{},
	protocol.MethodTextDocumentDefinition:             protocol.DefinitionParams{},
	protocol.MethodWorkspaceDidChangeConfiguration:    protocol.DidChangeConfigurationParams{},
	protocol.MethodWorkspaceDidChangeWatchedFiles:     protocol.DidChangeWatchedFilesParams{},
	protocol.MethodWorkspaceDidChangeWorkspaceFolders: protocol.DidChangeWorkspaceFoldersParams{},
	protocol.MethodTextDocumentDidClose:               protocol.DidCloseTextDocumentParams{},
	protocol.MethodTextDocumentDidOpen:                protocol.DidOpenTextDocumentParams{},
	protocol.MethodTextDocumentDidSave:                protocol.DidSaveTextDocumentParams{},
	protocol.MethodTextDocumentDocumentColor:          protocol.DocumentColorParams{},
	protocol.MethodTextDocumentDocumentHighlight:      protocol.DocumentHighlightParams{},
	protocol.MethodTextDocumentDocumentLink:           protocol.DocumentLinkParams{},
	protocol.MethodDocumentLinkResolve:                protocol.DocumentLink{},
	protocol.MethodTextDocumentDocumentSymbol:         protocol.DocumentSymbolParams{},
	protocol.MethodWorkspaceExecuteCommand:            protocol.ExecuteCommandParams{},
	protocol.MethodTextDocumentFoldingRange:           protocol.FoldingRangeParams{},
	protocol.MethodTextDocumentFormatting:             protocol.DocumentFormattingParams{},
	protocol.MethodTextDocumentHover:                  protocol.HoverParams{},
	protocol.MethodTextDocumentImplementation:         protocol.ImplementationParams{},
	protocol.MethodTextDocumentOnTypeFormatting:       protocol.DocumentOnTypeFormattingParams{},
	protocol.MethodTextDocumentPrepareRename:          protocol.PrepareRenameParams{},
	protocol.MethodTextDocumentRangeFormatting:        protocol.DocumentRangeFormattingParams{},
	protocol.MethodTextDocumentReferences:             protocol.ReferenceParams{},
	protocol.MethodTextDocumentRename:                 protocol.RenameParams{},
	protocol.MethodTextDocumentSignatureHelp:          protocol.SignatureHelpParams{},
	protocol.MethodWorkspaceSymbol:                    protocol.WorkspaceSymbolParams{},
	protocol.MethodTextDocumentTypeDefinition:         protocol.TypeDefinitionParams{},
	protocol.MethodTextDocumentWillSave:               protocol.WillSaveTextDocumentParams{},
	protocol.MethodTextDocumentWillSaveWaitUntil:      protocol.WillSaveTextDocumentParams{},
	protocol.MethodShowDocument:                       protocol.ShowDocumentParams{},
	protocol.MethodWillCreateFiles:                    protocol.CreateFilesParams{},
	protocol.MethodDidCreateFiles:                     protocol.CreateFilesParams{},
	protocol.MethodWillRenameFiles:                    protocol.RenameFilesParams{},
	protocol.MethodDidRenameFiles:                     protocol.RenameFilesParams{},
	protocol.MethodWillDeleteFiles:                    protocol.DeleteFilesParams{},
	protocol.MethodDidDeleteFiles:                     protocol.DeleteFilesParams{},
	protocol.MethodTextDocumentPrepareCallHierarchy:   protocol.CallHierarchyPrepareParams{},
	protocol.MethodCallHierarchyIncomingCalls:         protocol.CallHierarchyIncomingCallsParams{},
	protocol.MethodCallHierarchyOutgoingCalls:         protocol.CallHierarchyOutgoingCallsParams{},
	protocol.MethodSemanticTokensFull:                 protocol.SemanticTokensParams{},
	protocol.MethodSemanticTokensFullDelta:            protocol.SemanticTokensDeltaParams{},
	protocol.MethodSemanticTokensRange:                protocol.SemanticTokensRangeParams{},
	protocol.MethodLinkedEditingRange:                 protocol.LinkedEditingRangeParams{},
	protocol.MethodMoniker:                            protocol.MonikerParams{},
}

// decodeFails reports whether the server cannot decode params for method,
// as far as the test knows (unknown methods and methods without params:
// false).
func decodeFails(method string, params []byte) bool {
	switch method {
	case protocol.MethodInitialize:
		return !isObject(params)
	case protocol.MethodTextDocumentDidChange:
		var p didChangeParams
		return json.Unmarshal(params, &p) != nil
	}
	v, ok := paramTypes[method]
	if !ok {
		return false
	}
	p := reflect.New(reflect.TypeOf(v)).Interface()
	return segjson.NewDecoder(bytes.NewReader(params)).Decode(p) != nil
}

// rpcCodes are the error codes the server may answer with: JSON-RPC's
// and the LSP's. InternalError is not among them: the server answers it
// only for a panic in a method.
var rpcCodes = map[int]bool{
	-32700: true, // ParseError
	-32600: true, // InvalidRequest
	-32601: true, // MethodNotFound
	-32602: true, // InvalidParams
	-32002: true, // ServerNotInitialized
	-32001: true, // UnknownErrorCode
	-32800: true, // RequestCancelled
	-32801: true, // ContentModified
}

// FuzzRequest sends one request with an arbitrary method and params to
// an initialized server (to a new one for initialize) over a real
// connection: the server must answer it, with a result or an error whose
// code is a JSON-RPC or LSP code, answer InvalidParams when the params do
// not decode, and never panic. In the params, $WS stands for the
// workspace folder's URI. `go test` runs the seeds;
// `go test -fuzz FuzzRequest ./lsp/` fuzzes.
func FuzzRequest(f *testing.F) {
	for _, seed := range []struct{ method, params string }{
		{"initialize", `{"processId":1,"rootUri":"$WS","capabilities":{"window":{"workDoneProgress":true}}}`},
		{"initialize", `{"processId":1,"rootUri":42,"capabilities":{}}`},
		{"initialize", `{"capabilities":{"textDocument":{"hover":{"contentFormat":"markdown"}}},"workspaceFolders":[{"uri":"$WS","name":"ws"}]}`},
		{"textDocument/hover", `{"textDocument":{"uri":"$WS/bank.go"},"position":{"line":9,"character":4}}`},
		{"textDocument/hover", `5`},
		{"textDocument/codeLens", `{"textDocument":{"uri":"$WS/bank_test.go"}}`},
		{"textDocument/codeAction", `{"textDocument":{"uri":"$WS/bank.go"},"range":{"start":{"line":9,"character":0},"end":{"line":9,"character":3}},"context":{"diagnostics":[]}}`},
		{"workspace/executeCommand", `{"command":"seer.predict","arguments":[{"uri":"$WS/bank_test.go","test":"TestDeposit"}]}`},
		{"workspace/executeCommand", `{"command":"seer.showWitness","arguments":[{"finding":1,"access":0}]}`},
		{"textDocument/didOpen", `{"textDocument":{"uri":"$WS/bank.go","languageId":"go","version":1,"text":"package bank\n"}}`},
		{"textDocument/didChange", `{"textDocument":{"uri":"$WS/bank.go","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}},"text":"x"}]}`},
		{"workspace/didChangeWorkspaceFolders", `{"event":{"added":[],"removed":[{"uri":"$WS","name":"ws"}]}}`},
		{"$/cancelRequest", `{"id":7}`},
		{"shutdown", ``},
		{"exit", `null`},
		{"seer/unknown", `{}`},
		{"", `{}`},
	} {
		f.Add(seed.method, []byte(seed.params))
	}
	ws := writeTxtar(f, bankTxtar)
	wsURI := string(uri.File(ws))
	run := (&fakeRunner{answer: func(int, check.Options) *report.Report { return &report.Report{} }}).run

	f.Fuzz(func(t *testing.T, method string, params []byte) {
		params = bytes.ReplaceAll(params, []byte("$WS"), []byte(wsURI))
		if !utf8.Valid(params) {
			params = []byte(strings.ToValidUTF8(string(params), "\uFFFD"))
		}
		if len(params) > 0 && !json.Valid(params) {
			// Not a request: keep the bytes, as a JSON string.
			params, _ = json.Marshal(string(params))
		}
		m, _ := json.Marshal(method)
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%s`, m)
		if len(params) > 0 {
			msg += fmt.Sprintf(`,"params":%s`, params)
		}
		msg += "}"

		c := newRawClient(t, Options{Run: run})
		if method != protocol.MethodInitialize {
			c.initialize(ws)
		}
		c.send(msg)
		r := fuzzResponse(t, c, msg)
		if r.Error == nil {
			return
		}
		if !rpcCodes[r.Error.Code] {
			t.Errorf("%s: error code %d (%s) is not a JSON-RPC code", msg, r.Error.Code, r.Error.Message)
		}
		if decodeFails(method, params) && r.Error.Code != -32602 {
			t.Errorf("%s: params that do not decode got code %d (%s), want -32602", msg, r.Error.Code, r.Error.Message)
		}
	})
}

// fuzzResponse waits for the answer to request 7, or to a message that
// could not be read as a request at all (id null).
func fuzzResponse(t *testing.T, c *rawClient, msg string) rawMsg {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				t.Fatalf("%s: the connection closed before the answer", msg)
			}
			if m.Method == "" && (string(m.ID) == "7" || string(m.ID) == "null") {
				return m
			}
		case <-timeout:
			t.Fatalf("%s: no answer", msg)
		}
	}
}
