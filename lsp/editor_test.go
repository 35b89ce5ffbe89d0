// This file implements the fake editor that the integration tests drive:
// an in-process LSP client over net.Pipe that records what the server
// sends and lets tests wait for a condition on it, never sleeping.

package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

// progressEvent is one $/progress notification.
type progressEvent struct {
	token   string
	kind    string
	message string
	cancel  bool
}

type editor struct {
	t      testing.TB
	dir    string
	conn   jsonrpc2.Conn
	served chan error // Serve's result

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced at each event
	diags      map[string][]protocol.Diagnostic
	publishes  map[string]int
	nullDiags  int // publishes whose diagnostics were null
	progress   []progressEvent
	messages   []protocol.ShowMessageParams
	logs       []string
	shown      []protocol.ShowDocumentParams
	config     map[string]any // the "seer" section the editor answers
	configAsks int
	registered []string // methods registered by client/registerCapability
}

type editorOptions struct {
	run         func(context.Context, check.Options) (*report.Report, error)
	noProgress  bool // client without workDoneProgress
	noShowDoc   bool
	config      map[string]any
	initOptions any
}

// newEditor starts a server on a pipe and initializes it with dir as the
// workspace folder.
func newEditor(t testing.TB, dir string, o editorOptions) *editor {
	t.Helper()
	e := &editor{
		t:         t,
		dir:       dir,
		served:    make(chan error, 1),
		changed:   make(chan struct{}),
		diags:     map[string][]protocol.Diagnostic{},
		publishes: map[string]int{},
		config:    o.config,
	}
	serverEnd, clientEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		e.served <- Serve(ctx, serverEnd, Options{Run: o.run, Log: testLog(t)})
	}()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))
	e.conn.Go(ctx, e.handle)
	t.Cleanup(func() {
		cancel()
		e.conn.Close()
		<-e.served
	})
	caps := protocol.ClientCapabilities{
		Window: &protocol.WindowClientCapabilities{
			WorkDoneProgress: !o.noProgress,
			ShowDocument:     &protocol.ShowDocumentClientCapabilities{Support: !o.noShowDoc},
		},
		Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true,
			DidChangeWatchedFiles: &protocol.DidChangeWatchedFilesWorkspaceClientCapabilities{DynamicRegistration: true}},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{RelatedInformation: true},
			Hover:              &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.Markdown}},
		},
	}
	var res protocol.InitializeResult
	e.call(protocol.MethodInitialize, &protocol.InitializeParams{
		Capabilities:          caps,
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(uri.File(dir)), Name: "ws"}},
		InitializationOptions: o.initOptions,
	}, &res)
	e.notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	return e
}

// testLog sends the server's log to the test log when -v is given.
func testLog(t testing.TB) io.Writer {
	if testing.Verbose() {
		return os.Stderr
	}
	return io.Discard
}

// handle answers the server's requests and records its notifications.
// It returns no error: jsonrpc2.Conn panics when it records errors of two
// types (a failed reply at teardown, then a cancelled read).
func (e *editor) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	e.record(ctx, reply, req)
	return nil
}

func (e *editor) record(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	e.mu.Lock()
	defer func() {
		close(e.changed)
		e.changed = make(chan struct{})
		e.mu.Unlock()
	}()
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var raw struct {
			URI         string          `json:"uri"`
			Diagnostics json.RawMessage `json:"diagnostics"`
		}
		json.Unmarshal(req.Params(), &raw)
		if string(raw.Diagnostics) == "null" {
			e.nullDiags++
		}
		var diags []protocol.Diagnostic
		json.Unmarshal(raw.Diagnostics, &diags)
		path, _ := uriPath(protocol.DocumentURI(raw.URI))
		e.diags[path] = diags
		e.publishes[path]++
	case protocol.MethodProgress:
		var p struct {
			Token any `json:"token"`
			Value struct {
				Kind        string `json:"kind"`
				Message     string `json:"message"`
				Title       string `json:"title"`
				Cancellable bool   `json:"cancellable"`
			} `json:"value"`
		}
		json.Unmarshal(req.Params(), &p)
		msg := p.Value.Message
		if p.Value.Kind == "begin" {
			msg = p.Value.Title
			if p.Value.Message != "" {
				msg += ": " + p.Value.Message
			}
		}
		e.progress = append(e.progress, progressEvent{fmt.Sprint(p.Token), p.Value.Kind, msg, p.Value.Cancellable})
	case protocol.MethodWorkDoneProgressCreate:
		return reply(ctx, nil, nil)
	case protocol.MethodClientRegisterCapability:
		var p struct {
			Registrations []struct {
				Method          string          `json:"method"`
				RegisterOptions json.RawMessage `json:"registerOptions"`
			} `json:"registrations"`
		}
		json.Unmarshal(req.Params(), &p)
		for _, r := range p.Registrations {
			e.registered = append(e.registered, r.Method+" "+string(r.RegisterOptions))
		}
		return reply(ctx, nil, nil)
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		json.Unmarshal(req.Params(), &p)
		e.configAsks++
		out := make([]any, len(p.Items))
		for i := range out {
			out[i] = e.config
		}
		return reply(ctx, out, nil)
	case protocol.MethodShowDocument:
		var p protocol.ShowDocumentParams
		json.Unmarshal(req.Params(), &p)
		e.shown = append(e.shown, p)
		return reply(ctx, &protocol.ShowDocumentResult{Success: true}, nil)
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		json.Unmarshal(req.Params(), &p)
		e.messages = append(e.messages, p)
	case protocol.MethodWindowLogMessage:
		var p protocol.LogMessageParams
		json.Unmarshal(req.Params(), &p)
		e.logs = append(e.logs, p.Message)
	default:
		return reply(ctx, nil, jsonrpc2.ErrMethodNotFound)
	}
	return reply(ctx, nil, nil)
}

// call sends a request and fails the test on error.
func (e *editor) call(method string, params, result any) {
	e.t.Helper()
	if err := e.tryCall(method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

func (e *editor) tryCall(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := e.conn.Call(ctx, method, params, result)
	return err
}

func (e *editor) notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// await waits until cond (called with e.mu held) holds, failing after
// timeout. It wakes on each message from the server.
func (e *editor) await(what string, timeout time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		ok := cond()
		ch := e.changed
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			e.mu.Lock()
			defer e.mu.Unlock()
			e.t.Fatalf("timed out waiting for %s\nprogress: %v\nmessages: %v\ndiagnostics: %v", what, e.progress, e.messages, e.diags)
		}
	}
}

// progressEnded reports whether n progress bars have ended. Called with
// e.mu held.
// progressSaid counts the progress reports whose message is msg. Called
// with e.mu held.
func (e *editor) progressSaid(msg string) int {
	n := 0
	for _, p := range e.progress {
		if p.kind == "report" && p.message == msg {
			n++
		}
	}
	return n
}

func (e *editor) progressEnded(n int) bool {
	ends := 0
	for _, p := range e.progress {
		if p.kind == "end" {
			ends++
		}
	}
	return ends >= n
}

func (e *editor) lastProgressEnd() string {
	for i := len(e.progress) - 1; i >= 0; i-- {
		if e.progress[i].kind == "end" {
			return e.progress[i].message
		}
	}
	return ""
}

// open opens a workspace file in the editor.
func (e *editor) open(name string) protocol.DocumentURI {
	e.t.Helper()
	path := filepath.Join(e.dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	u := uri.File(path)
	e.notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: string(data)},
	})
	return u
}

// lenses returns the code lenses of a file.
func (e *editor) lenses(u protocol.DocumentURI) []protocol.CodeLens {
	e.t.Helper()
	var lenses []protocol.CodeLens
	e.call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &lenses)
	return lenses
}

// lens returns the predict lens whose command argument names test (""
// for the package lens).
func (e *editor) lens(u protocol.DocumentURI, test string) protocol.CodeLens {
	e.t.Helper()
	return e.lensOf(u, test, false)
}

// exploreLens returns test's explore lens.
func (e *editor) exploreLens(u protocol.DocumentURI, test string) protocol.CodeLens {
	e.t.Helper()
	return e.lensOf(u, test, true)
}

func (e *editor) lensOf(u protocol.DocumentURI, test string, explore bool) protocol.CodeLens {
	e.t.Helper()
	for _, l := range e.lenses(u) {
		args, _ := json.Marshal(l.Command.Arguments[0])
		var a predictArgs
		json.Unmarshal(args, &a)
		if a.Test == test && a.Explore == explore {
			return l
		}
	}
	e.t.Fatalf("no lens for %q (explore %v) in %s", test, explore, u)
	return protocol.CodeLens{}
}

// run executes a lens's command, in the background (it answers when the
// prediction ends). The channel receives the answer.
func (e *editor) run(cmd *protocol.Command) chan error {
	done := make(chan error, 1)
	go func() {
		var out any
		done <- e.tryCall(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments}, &out)
	}()
	return done
}

// diagsAt returns the diagnostics of a workspace file. Called with e.mu
// held.
func (e *editor) diagsOf(name string) []protocol.Diagnostic {
	return e.diags[filepath.Join(e.dir, name)]
}

// writeTxtar writes the files of a txtar archive under a new directory.
func writeTxtar(t testing.TB, archive string) string {
	t.Helper()
	dir := t.TempDir()
	writeTxtarTo(t, dir, archive)
	return dir
}

func writeTxtarTo(t testing.TB, dir, archive string) {
	t.Helper()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		path := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lineOf returns the one-based line of the first line of file (in dir)
// containing substr.
func lineOf(t testing.TB, dir, file, substr string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, substr) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line containing %q", file, substr)
	return 0
}
