// This file implements tests of the editor's view of a prediction with a
// fake check.Run: lens, progress, diagnostics on both accesses, hover,
// code actions, edits that move diagnostics, re-runs that clear them,
// cancellation.

package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

const wait = 20 * time.Second // for in-process events; real recordings wait longer

func TestLensesOfTestFile(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	e := newEditor(t, dir, editorOptions{run: (&fakeRunner{answer: bankReport(t, dir)}).run})
	u := e.open("bank_test.go")
	lenses := e.lenses(u)
	var got []string
	for _, l := range lenses {
		var args []predictArgs
		data, _ := json.Marshal(l.Command.Arguments)
		json.Unmarshal(data, &args)
		got = append(got, fmt.Sprintf("%d:%d-%d:%d %s %s %+v", l.Range.Start.Line, l.Range.Start.Character,
			l.Range.End.Line, l.Range.End.Character, l.Command.Title, l.Command.Command, args))
	}
	want := []string{
		"7:0-7:16 seer: predict seer.predict [{URI:" + string(u) + " Test:TestDeposit Explore:false}]",
		"7:0-7:16 seer: explore seer.predict [{URI:" + string(u) + " Test:TestDeposit Explore:true}]",
		"16:0-16:14 seer: predict seer.predict [{URI:" + string(u) + " Test:TestOther Explore:false}]",
		"16:0-16:14 seer: explore seer.predict [{URI:" + string(u) + " Test:TestOther Explore:true}]",
		"0:0-0:12 seer: predict all tests seer.predict [{URI:" + string(u) + " Test: Explore:false}]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lenses:\n%s\nwant (helper is not a test):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if l := e.lenses(e.open("bank.go")); len(l) != 0 {
		t.Errorf("non-test file has lenses: %v", l)
	}
}

func TestPredictFlow(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, dir)}
	e := newEditor(t, dir, editorOptions{run: fr.run})
	u := e.open("bank_test.go")
	done := e.run(e.lens(u, "TestDeposit").Command)

	// Progress: begin, the stages, end; then diagnostics on both accesses.
	e.await("progress end", wait, func() bool { return e.progressEnded(1) })
	e.await("diagnostics on bank.go", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 })
	if err := <-done; err != nil {
		t.Fatalf("seer.predict: %v", err)
	}
	e.mu.Lock()
	var stages []string
	for _, p := range e.progress {
		if p.message == stageWaitingSettings {
			continue // the configuration asked for on opening may still be on its way
		}
		stages = append(stages, p.kind+":"+p.message)
		if p.kind != "end" && !p.cancel {
			t.Errorf("progress %v is not cancellable", p)
		}
	}
	diags := e.diagsOf("bank.go")
	e.mu.Unlock()
	wantStages := "begin:seer: predicting TestDeposit|report:listing the package|report:building|report:running|report:analysing 1234 events|report:solving|end:1 finding in TestDeposit"
	if got := strings.Join(stages, "|"); got != wantStages {
		t.Errorf("progress:\n got %s\nwant %s", got, wantStages)
	}
	if got := fr.last(); got.Run != "^TestDeposit$" || got.Dir != dir || !got.Atomicity {
		t.Errorf("check.Options = %+v", got)
	}

	write, read := diags[0], diags[1]
	wantWrite := "data race on a.balance: write by goroutine 7 (created at bank_test.go:12) and read at bank.go:19 by goroutine 8 (created at bank_test.go:13) (predicted)"
	if write.Message != wantWrite {
		t.Errorf("primary message:\n got %s\nwant %s", write.Message, wantWrite)
	}
	if want := "data race on a.balance: read by goroutine 8 (created at bank_test.go:13) and write at bank.go:12 by goroutine 7 (created at bank_test.go:12) (predicted; see details)"; read.Message != want {
		t.Errorf("secondary message:\n got %s\nwant %s", read.Message, want)
	}
	if got, want := write.Range, (protocol.Range{Start: protocol.Position{Line: 11, Character: 1}, End: protocol.Position{Line: 11, Character: 10}}); got != want {
		t.Errorf("write range %v, want %v (the exact columns)", got, want)
	}
	if got, want := read.Range, (protocol.Range{Start: protocol.Position{Line: 18, Character: 1}, End: protocol.Position{Line: 18, Character: 17}}); got != want {
		t.Errorf("read range %v, want %v (the line's text)", got, want)
	}
	for _, d := range diags {
		if d.Severity != protocol.DiagnosticSeverityWarning || d.Source != "seer" || d.Code != "race" ||
			d.CodeDescription == nil || string(d.CodeDescription.Href) != report.DocURL+"#race" {
			t.Errorf("diagnostic %+v: want warning, source seer, code race, doc link", d)
		}
		var rel []string
		for _, r := range d.RelatedInformation {
			rel = append(rel, fmt.Sprintf("%s:%d %s", filepath.Base(string(r.Location.URI)), r.Location.Range.Start.Line, r.Message))
		}
		joined := strings.Join(rel, "\n")
		for _, want := range []string{"goroutine 7 is created here", "goroutine 8 is created here", "In the recorded run goroutine 7's critical section on a.mu at bank.go:11 ran before goroutine 8's at :17; the witness runs goroutine 8's first, and nothing else orders them"} {
			if !strings.Contains(joined, want) {
				t.Errorf("related information of %q lacks %q:\n%s", d.Message, want, joined)
			}
		}
	}

	// Hover on the read explains the story.
	var hover protocol.Hover
	e.call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.open("bank.go")}, Position: protocol.Position{Line: 18, Character: 5}}}, &hover)
	for _, want := range []string{"```go\nreturn a.balance\n```", "**data race** on `a.balance` (predicted)", "---",
		"goroutine 7 was created at bank_test.go:12", "in the recorded run goroutine 7's critical section on a.mu at bank.go:11 ran before goroutine 8's at :17; the witness runs goroutine 8's first",
		"Nothing else orders the accesses",
		"**Witness schedule** (synchronisation and the accesses, 7 of 7 steps", "6. **goroutine 7 writes `a.balance` at bank.go:12**"} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}

	// Code actions on the read: jump, witness, re-run.
	var actions []protocol.CodeAction
	e.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.open("bank.go")},
		Range:        read.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{read}},
	}, &actions)
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
		if a.Kind != protocol.QuickFix || len(a.Diagnostics) != 1 {
			t.Errorf("action %q: kind %q, %d diagnostics", a.Title, a.Kind, len(a.Diagnostics))
		}
	}
	if got, want := strings.Join(titles, "|"), "Go to the other access (write at bank.go:12)|Show witness schedule|Re-run prediction of TestDeposit|Replay witness (re-run TestDeposit under it)"; got != want {
		t.Fatalf("actions:\n got %s\nwant %s", got, want)
	}
	e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: actions[0].Command.Command, Arguments: actions[0].Command.Arguments}, nil)
	e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: actions[1].Command.Command, Arguments: actions[1].Command.Arguments}, nil)
	e.mu.Lock()
	shown := append([]protocol.ShowDocumentParams(nil), e.shown...)
	e.mu.Unlock()
	if len(shown) != 2 {
		t.Fatalf("showDocument calls: %v", shown)
	}
	if p, _ := uriPath(shown[0].URI); p != filepath.Join(dir, "bank.go") || shown[0].Selection == nil || *shown[0].Selection != write.Range {
		t.Errorf("go to other access showed %v %v, want bank.go %v", shown[0].URI, shown[0].Selection, write.Range)
	}
	wpath, _ := uriPath(shown[1].URI)
	text, err := os.ReadFile(wpath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"goroutine 6", "goroutine 7", "goroutine 8", "writes a.balance bank.go:12", "a.balance += n   <== write"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("witness document lacks %q:\n%s", want, text)
		}
	}
	if fi, err := os.Stat(wpath); err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Errorf("witness document is writable: %v %v", fi.Mode(), err)
	}

	// Re-running the test with no findings clears them with [].
	fr.answer = func(int, check.Options) *report.Report {
		return &report.Report{Tests: []report.Test{{Name: "TestDeposit", Outcome: "pass"}}}
	}
	e.run(actions[2].Command)
	e.await("cleared diagnostics", wait, func() bool { return e.progressEnded(2) && len(e.diagsOf("bank.go")) == 0 })
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.nullDiags != 0 {
		t.Errorf("%d publishes sent null diagnostics", e.nullDiags)
	}
	if got := e.lastProgressEnd(); got != "no races or atomicity violations in TestDeposit" {
		t.Errorf("last progress end %q", got)
	}
}

func TestEditsMoveDiagnostics(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	e := newEditor(t, dir, editorOptions{run: (&fakeRunner{answer: bankReport(t, dir)}).run})
	bank := e.open("bank.go")
	e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
	e.await("diagnostics", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 })
	publishes := func() int { e.mu.Lock(); defer e.mu.Unlock(); return e.publishes[filepath.Join(dir, "bank.go")] }
	before := publishes()

	// Two lines inserted above both accesses move them down by two.
	insert := &protocol.Range{Start: protocol.Position{Line: 2, Character: 0}, End: protocol.Position{Line: 2, Character: 0}}
	e.notify(protocol.MethodTextDocumentDidChange, &didChangeParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: bank}, Version: 2},
		Changes:      []contentChange{{Range: insert, Text: "// one\n// two\n"}},
	})
	e.await("moved diagnostics", wait, func() bool { return e.publishes[filepath.Join(dir, "bank.go")] > before })
	e.mu.Lock()
	d := e.diagsOf("bank.go")
	e.mu.Unlock()
	if len(d) != 2 || d[0].Range.Start.Line != 13 || d[1].Range.Start.Line != 20 {
		t.Fatalf("after inserting two lines: %v", d)
	}
	if d[0].RelatedInformation[0].Location.Range.Start.Line != 20 {
		t.Errorf("related location did not move: %v", d[0].RelatedInformation[0])
	}

	// Editing the write's line drops its diagnostic, and the pointer to
	// it from the read's.
	before = publishes()
	edit := &protocol.Range{Start: protocol.Position{Line: 13, Character: 12}, End: protocol.Position{Line: 13, Character: 15}}
	e.notify(protocol.MethodTextDocumentDidChange, &didChangeParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: bank}, Version: 3},
		Changes:      []contentChange{{Range: edit, Text: "= 2 * n"}},
	})
	e.await("dropped diagnostic", wait, func() bool { return e.publishes[filepath.Join(dir, "bank.go")] > before })
	e.mu.Lock()
	d = e.diagsOf("bank.go")
	e.mu.Unlock()
	if len(d) != 1 || d[0].Range.Start.Line != 20 {
		t.Fatalf("after editing the write: %v", d)
	}
	for _, r := range d[0].RelatedInformation {
		if r.Message == "write by goroutine 7" {
			t.Errorf("related information still points at the edited write: %v", r)
		}
	}

	// A whole-document change (no range) that keeps the read's line.
	before = publishes()
	content, _ := os.ReadFile(filepath.Join(dir, "bank.go"))
	e.notify(protocol.MethodTextDocumentDidChange, &didChangeParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: bank}, Version: 4},
		Changes:      []contentChange{{Text: string(content)}},
	})
	e.await("full change", wait, func() bool { return e.publishes[filepath.Join(dir, "bank.go")] > before })
	e.mu.Lock()
	d = e.diagsOf("bank.go")
	e.mu.Unlock()
	if len(d) != 1 || d[0].Range.Start.Line != 18 {
		t.Fatalf("after reverting the text: %v", d)
	}

	// A run with an unsaved line at the top: the recorded positions (on
	// disk) land one line lower in the buffer, and the user is told.
	e.notify(protocol.MethodTextDocumentDidChange, &didChangeParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: bank}, Version: 5},
		Changes:      []contentChange{{Range: &protocol.Range{}, Text: "// unsaved\n"}},
	})
	e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
	e.await("diagnostics of the second run", wait, func() bool { return e.progressEnded(2) && len(e.diagsOf("bank.go")) == 2 })
	e.mu.Lock()
	d = e.diagsOf("bank.go")
	msgs := e.messages
	e.mu.Unlock()
	if d[0].Range.Start.Line != 12 || d[1].Range.Start.Line != 19 {
		t.Errorf("with an unsaved line above: %v", d)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0].Message, "the changes to bank.go are not saved") {
		t.Errorf("messages: %v", msgs)
	}

	// Editing the file that holds only related locations (where the
	// goroutines are created) moves them too.
	created := func() uint32 {
		for _, r := range e.diagsOf("bank.go")[0].RelatedInformation {
			if r.Message == "goroutine 7 is created here" {
				return r.Location.Range.Start.Line
			}
		}
		return 0
	}
	e.mu.Lock()
	was := created()
	e.mu.Unlock()
	e.notify(protocol.MethodTextDocumentDidChange, &didChangeParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: e.open("bank_test.go")}, Version: 2},
		Changes:      []contentChange{{Range: &protocol.Range{}, Text: "// unsaved\n"}},
	})
	e.await("moved related location", wait, func() bool { return created() == was+1 })
}

func TestCancelPrediction(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, dir), block: func(int) bool { return true }}
	e := newEditor(t, dir, editorOptions{run: fr.run})
	u := e.open("bank_test.go")

	// Cancel through the progress bar.
	done := e.run(e.lens(u, "TestDeposit").Command)
	// Waits for the stage, not a count of progress events: what comes
	// before "building" depends on whether the settings had arrived.
	e.await("building", wait, func() bool { return e.progressSaid("building") >= 1 })
	// Other requests go on while the prediction runs.
	if l := e.lenses(u); len(l) != 5 { // predict and explore per test, and the package's
		t.Errorf("lenses during a prediction: %v", l)
	}
	e.mu.Lock()
	token := e.progress[0].token
	e.mu.Unlock()
	e.notify(protocol.MethodWorkDoneProgressCancel, &protocol.WorkDoneProgressCancelParams{Token: *protocol.NewProgressToken(token)})
	e.await("cancelled", wait, func() bool { return e.progressEnded(1) })
	if err := <-done; err != nil {
		t.Errorf("seer.predict after cancelling its progress: %v", err)
	}
	if got := e.lastProgressEnd(); got != "cancelled" {
		t.Errorf("progress ended with %q", got)
	}

	// Cancel through $/cancelRequest, numeric id (what conn.Call sends
	// after its context ends).
	ctx, cancel := context.WithCancel(context.Background())
	callDone := make(chan struct{})
	go func() {
		cmd := e.lens(u, "TestDeposit").Command
		id, _ := e.conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments}, nil)
		e.conn.Notify(context.Background(), protocol.MethodCancelRequest, &protocol.CancelParams{ID: &id})
		close(callDone)
	}()
	e.await("second run building", wait, func() bool { return fr.count() == 2 && e.progressSaid("building") >= 2 })
	cancel()
	<-callDone
	e.await("second cancel", wait, func() bool { return e.progressEnded(2) })
	if got := e.lastProgressEnd(); got != "cancelled" {
		t.Errorf("progress ended with %q", got)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.diagsOf("bank.go")) != 0 {
		t.Errorf("cancelled runs published diagnostics")
	}
}

func TestBuildErrorsBecomeDiagnostics(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	testFile := filepath.Join(dir, "bank_test.go")
	fr := &fakeRunner{answer: func(int, check.Options) *report.Report {
		return &report.Report{Tests: []report.Test{{Package: "example.com/bank", Outcome: "build-error",
			Errors: []string{testFile + ":9:6: declared and not used: a", "go: something without a position"}}}}
	}}
	e := newEditor(t, dir, editorOptions{run: fr.run})
	e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
	e.await("build error", wait, func() bool { return len(e.diagsOf("bank_test.go")) == 1 && len(e.messages) > 0 })
	e.mu.Lock()
	d := e.diagsOf("bank_test.go")[0]
	msg := e.messages[len(e.messages)-1].Message
	e.mu.Unlock()
	if d.Severity != protocol.DiagnosticSeverityError || d.Code != "build" ||
		d.Range != (protocol.Range{Start: protocol.Position{Line: 8, Character: 5}, End: protocol.Position{Line: 8, Character: 6}}) ||
		!strings.HasPrefix(d.Message, "declared and not used: a") {
		t.Errorf("build diagnostic %+v", d)
	}
	if !strings.Contains(msg, "something without a position") {
		t.Errorf("unpositioned error not shown: %q", msg)
	}
	// Once it builds, the build errors go.
	fr.answer = bankReport(t, dir)
	e.run(e.lens(e.open("bank_test.go"), "TestOther").Command)
	e.await("build error cleared", wait, func() bool { return len(e.diagsOf("bank_test.go")) == 0 && len(e.diagsOf("bank.go")) == 2 })
}

func TestEndedTestKeepsPartialFindings(t *testing.T) {
	for _, tc := range []struct {
		outcome string
		want    string
	}{
		{"timeout", "TestDeposit timed out (seer.timeout is 7s)"},
		{"exit", "TestDeposit exited the test binary (os.Exit)"},
		{"not-run", "TestDeposit did not run"},
		{"fail", "TestDeposit failed; the findings come from what it recorded:\n    bank_test.go:12: balance 0, want 10"},
	} {
		t.Run(tc.outcome, func(t *testing.T) {
			dir := writeTxtar(t, bankTxtar)
			fr := &fakeRunner{answer: func(int, check.Options) *report.Report {
				r := bankReport(t, dir)(0, check.Options{})
				r.Tests[0].Outcome = tc.outcome
				switch tc.outcome {
				case "timeout":
					r.Tests[0].Errors = []string{"panic: test timed out after 7s"}
				case "fail":
					r.Tests[0].Output = []string{"    bank_test.go:12: balance 0, want 10"}
				}
				return r
			}}
			e := newEditor(t, dir, editorOptions{run: fr.run, config: map[string]any{"timeout": "7s"}})
			e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
			e.await("partial results", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 && len(e.messages) > 0 })
			if got := fr.last().Timeout; got != 7*time.Second {
				t.Errorf("timeout %v, want 7s from the configuration", got)
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			if msg := e.messages[0].Message; !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want %q", msg, tc.want)
			}
		})
	}
}

func TestConfiguration(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, dir)}
	e := newEditor(t, dir, editorOptions{run: fr.run, config: map[string]any{
		"atomicity": false, "timeout": 90.0, "buildFlags": []any{"-tags=x"}, "env": map[string]any{"A": "b"},
	}})
	u := e.open("bank_test.go")
	e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: cmdPredict, Arguments: []any{predictArgs{URI: u}}}, nil)
	got := fr.last()
	if got.Atomicity || got.Timeout != 90*time.Second || strings.Join(got.GoFlags, " ") != "-tags=x" || strings.Join(got.Env, " ") != "A=b" || got.Run != "" {
		t.Errorf("options from configuration: %+v", got)
	}

	// didChangeConfiguration re-fetches; runOnSave re-runs what was asked.
	e.mu.Lock()
	e.config = map[string]any{"runOnSave": true, "atomicity": true}
	e.mu.Unlock()
	e.notify(protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{})
	e.await("configuration fetched again", wait, func() bool { return e.configAsks >= 2 })
	e.notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: e.open("bank.go")}})
	e.await("run on save", wait, func() bool { return fr.count() == 2 && e.progressEnded(2) })
	if got := fr.last(); !got.Atomicity || got.Run != "" {
		t.Errorf("run on save: %+v", got)
	}
}

func TestClientWithoutProgress(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	e := newEditor(t, dir, editorOptions{run: (&fakeRunner{answer: bankReport(t, dir)}).run, noProgress: true, noShowDoc: true})
	e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
	e.await("messages", wait, func() bool { return len(e.messages) >= 2 && len(e.diagsOf("bank.go")) == 2 })
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.progress) != 0 {
		t.Errorf("$/progress sent to a client without support: %v", e.progress)
	}
	if got := e.messages[0].Message + "|" + e.messages[1].Message; got != "seer: predicting TestDeposit|seer: predicting TestDeposit: 1 finding in TestDeposit" {
		t.Errorf("messages: %s", got)
	}
	if len(e.logs) < 4 {
		t.Errorf("stages not logged: %v", e.logs)
	}
}

// TestWatchedFilesMoveDiagnostics: the server registers for changes to Go
// files; a file that is not open and changes on disk keeps its
// diagnostics on the moved lines, and a deleted one loses them.
func TestWatchedFilesMoveDiagnostics(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	e := newEditor(t, dir, editorOptions{run: (&fakeRunner{answer: bankReport(t, dir)}).run})
	e.await("registration", wait, func() bool { return len(e.registered) > 0 })
	e.mu.Lock()
	reg := strings.Join(e.registered, "\n")
	e.mu.Unlock()
	if !strings.Contains(reg, `workspace/didChangeWatchedFiles {"watchers":[{"globPattern":"**/*.go"}]}`) {
		t.Errorf("registered %q, want the Go files watched", reg)
	}
	e.run(e.lens(e.open("bank_test.go"), "TestDeposit").Command)
	e.await("diagnostics", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 })
	path := filepath.Join(dir, "bank.go")
	publishes := func() int { e.mu.Lock(); defer e.mu.Unlock(); return e.publishes[path] }

	// bank.go is not open: two lines written above both accesses on disk.
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfterN(string(content), "\n", 3)
	moved := lines[0] + lines[1] + "// one\n// two\n" + lines[2]
	if err := os.WriteFile(path, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	before := publishes()
	e.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{
		Changes: []*protocol.FileEvent{{Type: protocol.FileChangeTypeChanged, URI: uri.File(path)}},
	})
	e.await("moved diagnostics", wait, func() bool { return e.publishes[path] > before })
	e.mu.Lock()
	d := e.diagsOf("bank.go")
	e.mu.Unlock()
	if len(d) != 2 || d[0].Range.Start.Line != 13 || d[1].Range.Start.Line != 20 {
		t.Fatalf("after two lines were written on disk: %v", d)
	}

	// Deleted: nothing left to point at.
	os.Remove(path)
	before = publishes()
	e.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{
		Changes: []*protocol.FileEvent{{Type: protocol.FileChangeTypeDeleted, URI: uri.File(path)}},
	})
	e.await("dropped diagnostics", wait, func() bool { return e.publishes[path] > before })
	e.mu.Lock()
	d = e.diagsOf("bank.go")
	e.mu.Unlock()
	if len(d) != 0 {
		t.Fatalf("after deleting the file: %v", d)
	}
}
