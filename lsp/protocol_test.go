// This file implements tests of the server at the wire: malformed messages,
// the life cycle, unknown methods, every protocol method, files outside the
// workspace and numeric $/cancelRequest. A raw client writes and reads
// frames itself, so nothing is hidden by a JSON-RPC library.

package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type rawClient struct {
	t      *testing.T
	conn   io.Writer
	msgs   chan rawMsg
	served chan error
	notes  []rawMsg // notifications that response skipped
}

// newRawClient serves on one end of a pipe and talks on the other.
func newRawClient(t *testing.T, opts Options) *rawClient {
	serverEnd, clientEnd := net.Pipe()
	c := &rawClient{t: t, conn: clientEnd, msgs: make(chan rawMsg, 100), served: make(chan error, 1)}
	opts.Log = testLog(t)
	go func() { c.served <- Serve(context.Background(), serverEnd, opts) }()
	go c.read(clientEnd)
	t.Cleanup(func() {
		clientEnd.Close()
		<-c.served
	})
	return c
}

// read decodes frames; it answers the server's own requests (progress,
// configuration) with null. Anything but a frame fails the test.
func (c *rawClient) read(in io.Reader) {
	defer close(c.msgs)
	r := textproto.NewReader(bufio.NewReader(in))
	for {
		h, err := r.ReadMIMEHeader()
		if err != nil {
			if err != io.EOF && !strings.Contains(err.Error(), "closed") {
				c.t.Errorf("reading a frame header: %v", err)
			}
			return
		}
		if len(h) != 1 || h.Get("Content-Length") == "" {
			c.t.Errorf("unexpected headers %v", h)
		}
		n, _ := strconv.Atoi(h.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(r.R, body); err != nil {
			return
		}
		var m rawMsg
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server sent invalid JSON: %s", body)
			continue
		}
		if m.Method != "" && m.ID != nil {
			go c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
			continue
		}
		c.msgs <- m
	}
}

func (c *rawClient) send(body string) {
	fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

func (c *rawClient) request(id int, method string, params any) {
	p, _ := json.Marshal(params)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, p))
}

func (c *rawClient) notify(method string, params any) {
	p, _ := json.Marshal(params)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, p))
}

// response waits for the response whose id is id (JSON text), skipping
// notifications.
func (c *rawClient) response(id string) rawMsg {
	c.t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("connection closed waiting for response %s", id)
			}
			if m.Method == "" && string(m.ID) == id {
				return m
			}
			if m.Method != "" {
				c.notes = append(c.notes, m)
			}
		case <-timeout:
			c.t.Fatalf("no response %s", id)
		}
	}
}

func (c *rawClient) initialize(dir string) {
	c.t.Helper()
	c.request(1, "initialize", map[string]any{
		"processId": nil, "capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}},
		"workspaceFolders": []any{map[string]any{"uri": string(uri.File(dir)), "name": "ws"}},
	})
	if m := c.response("1"); m.Error != nil || m.Result == nil {
		c.t.Fatalf("initialize: %+v", m)
	}
	c.notify("initialized", map[string]any{})
}

func wantError(t *testing.T, m rawMsg, code int) {
	t.Helper()
	if m.Error == nil || m.Error.Code != code {
		t.Errorf("response %s: got %+v %s, want error code %d", m.ID, m.Error, m.Result, code)
	}
}

func TestMalformedMessages(t *testing.T) {
	c := newRawClient(t, Options{})
	c.send(`{not json`)
	wantError(t, c.response("null"), -32700)
	c.send(`{"jsonrpc":"2.0","id":7,"method":5}`)
	wantError(t, c.response("7"), -32600)
	c.send(`[1,2,3]`)
	wantError(t, c.response("null"), -32600)
	c.send(`{"jsonrpc":"2.0","id":9,"method":""}`) // jsonrpc2 takes it for a response
	wantError(t, c.response("9"), -32601)
	fmt.Fprintf(c.conn, "X-Nonsense: 1\r\n\r\n")     // a frame without Content-Length
	fmt.Fprintf(c.conn, "Content-Length: x\r\n\r\n") // a bad one
	c.request(8, "shutdown", nil)
	wantError(t, c.response("8"), -32002) // still up: not initialized yet
	c.initialize(t.TempDir())
}

func TestLifeCycle(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	c := newRawClient(t, Options{Run: (&fakeRunner{answer: bankReport(t, dir)}).run})
	c.request(2, "textDocument/hover", map[string]any{})
	wantError(t, c.response("2"), -32002)
	c.initialize(dir)
	c.request(3, "initialize", map[string]any{"capabilities": map[string]any{}})
	wantError(t, c.response("3"), -32600)

	c.request(4, "seer/unknown", nil)
	wantError(t, c.response("4"), -32601)
	c.notify("$/unknownNotification", nil)
	c.send(`{"jsonrpc":"2.0","id":"str-5","method":"$/unknown"}`)
	wantError(t, c.response(`"str-5"`), -32601)

	// Every method of protocol.Server answers (or, for notifications,
	// is accepted) without ending the session.
	id := 100
	for m := range knownMethods {
		switch m {
		case protocol.MethodInitialize, protocol.MethodShutdown, protocol.MethodExit:
			continue
		}
		id++
		c.request(id, m, map[string]any{})
		if r := c.response(strconv.Itoa(id)); r.Error != nil && r.Error.Code == -32603 {
			t.Errorf("%s: internal error %s", m, r.Error.Message)
		}
	}

	c.send(`{"jsonrpc":"2.0","id":9,"method":"shutdown","params":null}`)
	if m := c.response("9"); m.Error != nil || string(m.Result) != "null" {
		t.Errorf("shutdown: %+v", m)
	}
	c.request(10, "textDocument/hover", map[string]any{})
	wantError(t, c.response("10"), -32600)
	c.notify("exit", nil)
	if err := <-c.served; err != nil {
		t.Errorf("Serve after shutdown and exit: %v", err)
	}
	c.served <- nil // for Cleanup
}

func TestExitWithoutShutdown(t *testing.T) {
	c := newRawClient(t, Options{})
	c.initialize(t.TempDir())
	c.notify("exit", nil)
	if err := <-c.served; err != ErrExitWithoutShutdown {
		t.Errorf("Serve: %v, want ErrExitWithoutShutdown", err)
	}
	c.served <- nil
}

// TestExitRequest sends exit as a request (it is a notification): the
// server answers before it closes the connection.
func TestExitRequest(t *testing.T) {
	c := newRawClient(t, Options{})
	c.initialize(t.TempDir())
	c.request(2, "shutdown", nil)
	c.response("2")
	c.request(3, "exit", nil)
	if m := c.response("3"); m.Error != nil || string(m.Result) != "null" {
		t.Errorf("exit as a request: %+v %s", m.Error, m.Result)
	}
	if err := <-c.served; err != nil {
		t.Errorf("Serve after shutdown and exit: %v", err)
	}
	c.served <- nil
}

func TestOutsideWorkspace(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	other := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, other)}
	c := newRawClient(t, Options{Run: fr.run})
	c.initialize(dir)
	outside := uri.File(filepath.Join(other, "bank_test.go"))
	doc := map[string]any{"uri": outside}
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": outside, "languageId": "go", "version": 1, "text": "package bank\n"}})
	c.request(2, "textDocument/codeLens", map[string]any{"textDocument": doc})
	if m := c.response("2"); m.Error != nil || string(m.Result) != "[]" {
		t.Errorf("codeLens outside the workspace: %+v %s", m.Error, m.Result)
	}
	c.request(3, "textDocument/hover", map[string]any{"textDocument": doc, "position": map[string]any{"line": 0, "character": 0}})
	if m := c.response("3"); m.Error != nil || string(m.Result) != "null" {
		t.Errorf("hover outside the workspace: %+v %s", m.Error, m.Result)
	}
	c.request(4, "workspace/executeCommand", map[string]any{"command": "seer.predict", "arguments": []any{map[string]any{"uri": outside, "test": "TestDeposit"}}})
	wantError(t, c.response("4"), -32602)
	c.request(5, "workspace/executeCommand", map[string]any{"command": "seer.predict", "arguments": []any{map[string]any{"uri": "untitled:Untitled-1"}}})
	wantError(t, c.response("5"), -32602)
	c.request(6, "workspace/executeCommand", map[string]any{"command": "seer.predict", "arguments": []any{map[string]any{"uri": uri.File(filepath.Join(dir, "bank_test.go")), "test": "TestX|.*"}}})
	wantError(t, c.response("6"), -32602)
	c.request(7, "workspace/executeCommand", map[string]any{"command": "seer.showWitness", "arguments": []any{map[string]any{"finding": 99}}})
	wantError(t, c.response("7"), -32602)
	if fr.count() != 0 {
		t.Errorf("recorded %d times", fr.count())
	}
	c.request(8, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri.File(filepath.Join(dir, "bank_test.go"))}})
	if m := c.response("8"); m.Error != nil || len(m.Result) < 10 {
		t.Errorf("codeLens inside the workspace: %+v %s", m.Error, m.Result)
	}
}

func TestCancelRequestNumericID(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, dir), block: func(int) bool { return true }}
	c := newRawClient(t, Options{Run: fr.run})
	c.initialize(dir)
	c.request(42, "workspace/executeCommand", map[string]any{"command": "seer.predict",
		"arguments": []any{map[string]any{"uri": uri.File(filepath.Join(dir, "bank_test.go")), "test": "TestDeposit"}}})
	// The prediction does not hold up other requests.
	c.request(43, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri.File(filepath.Join(dir, "bank_test.go"))}})
	if m := c.response("43"); m.Error != nil {
		t.Fatalf("codeLens during a prediction: %+v", m.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":42}}`)
	wantError(t, c.response("42"), -32800)
	c.request(44, "shutdown", nil)
	if m := c.response("44"); m.Error != nil {
		t.Errorf("shutdown: %+v", m.Error)
	}
}

// TestInitializeFromRealClients sends initialize as VS Code and Neovim
// 0.7 do (abridged), plus a capability of a shape protocol v0.12.0 does
// not expect.
func TestInitializeFromRealClients(t *testing.T) {
	dir := t.TempDir()
	for name, params := range map[string]string{
		"vscode": `{"processId":4242,"clientInfo":{"name":"Visual Studio Code","version":"1.95.0"},"locale":"en",
			"rootPath":"` + dir + `","rootUri":"` + string(uri.File(dir)) + `",
			"capabilities":{"workspace":{"applyEdit":true,"workspaceEdit":{"documentChanges":true,"resourceOperations":["create","rename","delete"],
			"failureHandling":"textOnlyTransactional","normalizesLineEndings":true,"changeAnnotationSupport":{"groupsOnLabel":true}},
			"configuration":true,"didChangeWatchedFiles":{"dynamicRegistration":true,"relativePatternSupport":true},
			"symbol":{"dynamicRegistration":true,"symbolKind":{"valueSet":[1,2,3]},"tagSupport":{"valueSet":[1]},"resolveSupport":{"properties":["location.range"]}},
			"codeLens":{"refreshSupport":true},"executeCommand":{"dynamicRegistration":true},"didChangeConfiguration":{"dynamicRegistration":true},
			"workspaceFolders":true,"foldingRange":{"refreshSupport":true},"semanticTokens":{"refreshSupport":true},
			"fileOperations":{"dynamicRegistration":true,"didCreate":true},"inlineValue":{"refreshSupport":true},"inlayHint":{"refreshSupport":true},
			"diagnostics":{"refreshSupport":true}},
			"textDocument":{"publishDiagnostics":{"relatedInformation":true,"versionSupport":false,"tagSupport":{"valueSet":[1,2]},"codeDescriptionSupport":true,"dataSupport":true},
			"synchronization":{"dynamicRegistration":true,"willSave":true,"willSaveWaitUntil":true,"didSave":true},
			"hover":{"dynamicRegistration":true,"contentFormat":["markdown","plaintext"]},
			"codeAction":{"dynamicRegistration":true,"isPreferredSupport":true,"disabledSupport":true,"dataSupport":true,"resolveSupport":{"properties":["edit"]},
			"codeActionLiteralSupport":{"codeActionKind":{"valueSet":["","quickfix","refactor"]}},"honorsChangeAnnotations":true},
			"codeLens":{"dynamicRegistration":true},"semanticTokens":{"dynamicRegistration":true,"tokenTypes":["namespace"],"tokenModifiers":["declaration"],
			"formats":["relative"],"requests":{"range":true,"full":{"delta":true}},"multilineTokenSupport":false,"overlappingTokenSupport":false,
			"serverCancelSupport":true,"augmentsSyntaxTokens":true},"diagnostic":{"dynamicRegistration":true,"relatedDocumentSupport":false},
			"inlayHint":{"dynamicRegistration":true,"resolveSupport":{"properties":["tooltip"]}}},
			"window":{"showMessage":{"messageActionItem":{"additionalPropertiesSupport":true}},"showDocument":{"support":true},"workDoneProgress":true},
			"general":{"staleRequestSupport":{"cancel":true,"retryOnContentModified":["textDocument/semanticTokens/full"]},
			"regularExpressions":{"engine":"ECMAScript","version":"ES2020"},"markdown":{"parser":"marked","version":"1.1.0"},"positionEncodings":["utf-16"]},
			"notebookDocument":{"synchronization":{"dynamicRegistration":true}}},
			"trace":"off","workspaceFolders":[{"uri":"` + string(uri.File(dir)) + `","name":"ws"}]}`,
		"neovim-0.7": `{"processId":77,"rootPath":"` + dir + `","rootUri":"` + string(uri.File(dir)) + `","clientInfo":{"name":"Neovim","version":"0.7.2"},
			"initializationOptions":{"seer":{"timeout":"1m"}},"trace":"off","workspaceFolders":[{"uri":"` + string(uri.File(dir)) + `","name":"` + dir + `"}],
			"capabilities":{"textDocument":{"synchronization":{"dynamicRegistration":false,"willSave":false,"willSaveWaitUntil":false,"didSave":true},
			"codeAction":{"dynamicRegistration":false,"codeActionLiteralSupport":{"codeActionKind":{"valueSet":["","quickfix","refactor","source"]}},
			"isPreferredSupport":true,"dataSupport":true,"resolveSupport":{"properties":["edit"]}},
			"hover":{"dynamicRegistration":false,"contentFormat":["markdown","plaintext"]},
			"publishDiagnostics":{"relatedInformation":true,"tagSupport":{"valueSet":[1,2]}}},
			"window":{"workDoneProgress":true,"showMessage":{"messageActionItem":{"additionalPropertiesSupport":false}},"showDocument":{"support":false}},
			"workspace":{"symbol":{"dynamicRegistration":false},"workspaceFolders":true,"applyEdit":true,"configuration":true,
			"workspaceEdit":{"resourceOperations":["rename","create","delete"]}}}}`,
		"odd-shape": `{"processId":null,"rootUri":null,"capabilities":{"window":{"workDoneProgress":"yes","showDocument":{"support":true}},
			"textDocument":{"semanticTokens":{"requests":{"range":{}}}}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			c := newRawClient(t, Options{})
			c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`)
			m := c.response("1")
			if m.Error != nil || !strings.Contains(string(m.Result), `"codeLensProvider"`) {
				t.Errorf("initialize: %+v %s", m.Error, m.Result)
			}
		})
	}
}

// TestInvalidParams sends requests whose params do not decode into the
// method's parameter type: each must be answered with InvalidParams
// (-32602), not with an error without a code, and the session goes on.
func TestInvalidParams(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	c := newRawClient(t, Options{Run: (&fakeRunner{answer: bankReport(t, dir)}).run})
	c.initialize(dir)
	file := string(uri.File(filepath.Join(dir, "bank_test.go")))
	for i, tc := range []struct{ method, params string }{
		{"textDocument/hover", `5`},
		{"textDocument/hover", `[]`},
		{"textDocument/hover", `"x"`},
		{"textDocument/hover", ``}, // no params at all
		{"textDocument/hover", `{"textDocument":{"uri":5},"position":{"line":0,"character":0}}`},
		{"textDocument/hover", `{"textDocument":{"uri":"` + file + `"},"position":{"line":"0","character":0}}`},
		{"textDocument/hover", `{"textDocument":{"uri":"` + file + `"},"position":{"line":-1,"character":0}}`},
		{"textDocument/codeLens", `{"textDocument":[]}`},
		{"textDocument/codeAction", `{"textDocument":{"uri":"` + file + `"},"range":true}`},
		{"workspace/executeCommand", `{"command":5}`},
		{"workspace/executeCommand", `{"command":"seer.predict","arguments":{}}`},
		{"textDocument/didOpen", `{"textDocument":{"uri":"` + file + `","version":"1"}}`},
		{"textDocument/didChange", `{"contentChanges":5}`},
		{"workspace/didChangeWorkspaceFolders", `{"event":{"added":"x"}}`},
		{"workspace/didChangeConfiguration", `3`},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.method, i), func(t *testing.T) {
			id := 100 + i
			if tc.params == "" {
				c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, tc.method))
			} else {
				c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, tc.method, tc.params))
			}
			wantError(t, c.response(strconv.Itoa(id)), -32602)
		})
	}
	c.request(2, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": file}})
	if m := c.response("2"); m.Error != nil || len(m.Result) < 10 {
		t.Errorf("codeLens after invalid params: %+v %s", m.Error, m.Result)
	}
}

// TestInitializeMalformed sends initialize requests with params of the
// wrong shape outside the capabilities: each is refused with
// InvalidParams, and a valid initialize after it is accepted.
func TestInitializeMalformed(t *testing.T) {
	dir := t.TempDir()
	for name, params := range map[string]string{
		"rootUri number":     `{"processId":1,"rootUri":42,"capabilities":{}}`,
		"rootPath object":    `{"processId":1,"rootPath":{},"capabilities":{}}`,
		"folders string":     `{"processId":1,"workspaceFolders":"x","capabilities":{}}`,
		"folder uri number":  `{"processId":1,"workspaceFolders":[{"uri":1,"name":"ws"}],"capabilities":{}}`,
		"processId string":   `{"processId":"1","capabilities":{}}`,
		"capabilities array": `{"processId":1,"capabilities":[]}`,
		"not an object":      `42`,
		"an array":           `[{"processId":1,"capabilities":{}}]`,
		"null":               `null`,
		// A capability of an unexpected shape is tolerated, but must not
		// hide a malformed field decoded after it.
		"odd capability then rootUri": `{"processId":1,"capabilities":{"window":{"workDoneProgress":"yes"}},"rootUri":42}`,
	} {
		t.Run(name, func(t *testing.T) {
			c := newRawClient(t, Options{})
			c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`)
			wantError(t, c.response("1"), -32602)
			c.request(2, "textDocument/hover", map[string]any{})
			wantError(t, c.response("2"), -32002) // still not initialized
			c.request(3, "initialize", map[string]any{"processId": 1, "capabilities": map[string]any{},
				"rootUri": string(uri.File(dir))})
			if m := c.response("3"); m.Error != nil || !strings.Contains(string(m.Result), `"codeLensProvider"`) {
				t.Errorf("valid initialize after a malformed one: %+v %s", m.Error, m.Result)
			}
		})
	}
}

// TestNoWorkspace initializes without a workspace folder (no rootUri,
// rootPath or workspaceFolders): the server records and analyses
// nothing, offers no lenses, refuses seer.predict saying why, and tells
// the user once.
func TestNoWorkspace(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, dir)}
	c := newRawClient(t, Options{Run: fr.run})
	c.request(1, "initialize", map[string]any{"processId": nil, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"seer": map[string]any{"runOnSave": true}}})
	if m := c.response("1"); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	c.notify("initialized", map[string]any{})
	test := uri.File(filepath.Join(dir, "bank_test.go"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": test, "languageId": "go", "version": 1,
		"text": "package bank\n\n//seer:ignore\nfunc TestX(t *testing.T) {}\n"}})
	c.request(2, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": test}})
	if m := c.response("2"); m.Error != nil || string(m.Result) != "[]" {
		t.Errorf("codeLens without a workspace: %+v %s", m.Error, m.Result)
	}
	for id := 3; id <= 4; id++ {
		c.request(id, "workspace/executeCommand", map[string]any{"command": "seer.predict",
			"arguments": []any{map[string]any{"uri": test, "test": "TestDeposit"}}})
		m := c.response(strconv.Itoa(id))
		wantError(t, m, -32602)
		if m.Error != nil && !strings.Contains(m.Error.Message, "workspace folder") {
			t.Errorf("seer.predict without a workspace: the error does not say why: %q", m.Error.Message)
		}
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": test}})
	c.request(5, "shutdown", nil)
	if m := c.response("5"); m.Error != nil {
		t.Errorf("shutdown: %+v", m.Error)
	}
	if fr.count() != 0 {
		t.Errorf("recorded %d times without a workspace (%+v)", fr.count(), fr.last())
	}
	var shown []string
	for _, m := range c.notes {
		if m.Method == "window/showMessage" {
			var p struct{ Message string }
			json.Unmarshal(m.Params, &p)
			if strings.Contains(p.Message, "workspace folder") {
				shown = append(shown, p.Message)
			}
		}
	}
	if len(shown) != 1 {
		t.Errorf("told the user %d times about the missing workspace folder, want once: %q", len(shown), shown)
	}
}
