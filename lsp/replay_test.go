// This file tests what the hover says of a replayed witness.

package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/report"
)

func TestReplayHover(t *testing.T) {
	race := func(confirmed, note string) report.Finding {
		return report.Finding{
			Test: "TestAudit", Kind: "race", Predicted: true, Count: 1, Variable: "a.note",
			Confirmed: confirmed, Replay: note,
			Accesses: []report.Access{
				{File: "/w/bank.go", Line: 21, Op: "write", Goroutine: 9, Event: 5},
				{File: "/w/bank.go", Line: 35, Op: "read", Goroutine: 10, Event: 9},
			},
		}
	}
	for _, tc := range []struct {
		confirmed, note string
		want            string // "" = no replay line
	}{
		{"", "", ""},
		{report.ConfirmedYes, "the replayed run left the accesses unordered", "- **Confirmed by replay**: seer ran the test again under the witness schedule, and the replayed run left the accesses unordered."},
		{report.ConfirmedNo, "g7 did not reach its step 3 (lock bank.go:32) within 2s", "- **Not confirmed by replay**: g7 did not reach its step 3 (lock bank.go:32) within 2s."},
		{report.ConfirmedNotTried, "goroutine 12 was started by the runtime, not a go statement", "- Replay not tried: goroutine 12 was started by the runtime, not a go statement."},
	} {
		f := race(tc.confirmed, tc.note)
		h := report.HoverMarkdown(&f, 0, base, func(string, int) string { return "" })
		has := strings.Contains(h, "by replay") || strings.Contains(h, "Replay not tried")
		switch {
		case tc.want == "" && has:
			t.Errorf("no replay, but the hover speaks of one:\n%s", h)
		case tc.want != "" && !strings.Contains(h, tc.want):
			t.Errorf("confirmed %q: hover lacks %q:\n%s", tc.confirmed, tc.want, h)
		}
	}
}

// TestReplayAction: the "Replay witness" action re-runs the finding's
// test with replay on; predicting from the lens does not replay.
func TestReplayAction(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, dir)}
	e := newEditor(t, dir, editorOptions{run: fr.run})
	u := e.open("bank_test.go")
	done := e.run(e.lens(u, "TestDeposit").Command)
	e.await("diagnostics on bank.go", wait, func() bool { return len(e.diagsOf("bank.go")) == 2 })
	if err := <-done; err != nil {
		t.Fatalf("seer.predict: %v", err)
	}
	if fr.last().Replay {
		t.Errorf("the lens's prediction replays")
	}
	e.mu.Lock()
	read := e.diagsOf("bank.go")[1]
	e.mu.Unlock()
	var actions []protocol.CodeAction
	e.call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.open("bank.go")},
		Range:        read.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{read}},
	}, &actions)
	var replay *protocol.CodeAction
	for i := range actions {
		if strings.HasPrefix(actions[i].Title, "Replay witness") {
			replay = &actions[i]
		}
	}
	if replay == nil {
		t.Fatalf("no Replay witness action among %d", len(actions))
	}
	e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: replay.Command.Command, Arguments: replay.Command.Arguments}, nil)
	if got := fr.last(); !got.Replay || got.Run != "^TestDeposit$" {
		t.Errorf("after Replay witness: check.Options = %+v, want Replay of ^TestDeposit$", got)
	}
}
