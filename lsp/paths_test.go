package lsp

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"go.lsp.dev/uri"
)

// symlinkWorkspace makes a workspace ws with a package real/, and links
// inside it: out and rel -> a directory outside ws, in -> real,
// file_test.go -> a file outside ws, dangling -> a directory outside ws
// that does not exist, loop -> itself, and a link to ws itself from
// outside (wslink). It returns ws, the outside directory and wslink.
func symlinkWorkspace(t *testing.T) (ws, outside, wslink string) {
	t.Helper()
	base := t.TempDir()
	ws = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	writeTxtarTo(t, filepath.Join(ws, "real"), bankTxtar)
	writeTxtarTo(t, outside, bankTxtar)
	for link, target := range map[string]string{
		filepath.Join(ws, "out"):          outside,
		filepath.Join(ws, "in"):           filepath.Join(ws, "real"),
		filepath.Join(ws, "file_test.go"): filepath.Join(outside, "bank_test.go"),
		filepath.Join(ws, "rel"):          "../outside",
		filepath.Join(ws, "dangling"):     filepath.Join(outside, "later"),
		filepath.Join(ws, "loop"):         filepath.Join(ws, "loop"),
		filepath.Join(base, "wslink"):     ws,
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	return ws, outside, filepath.Join(base, "wslink")
}

// TestInWorkspaceSymlinks checks the workspace boundary on the paths
// that symbolic links resolve to.
func TestInWorkspaceSymlinks(t *testing.T) {
	ws, outside, wslink := symlinkWorkspace(t)
	for _, tc := range []struct {
		folder, path string
		want         bool
	}{
		{ws, filepath.Join(ws, "real", "bank_test.go"), true},
		{ws, filepath.Join(ws, "real", "new_test.go"), true}, // not on disk (yet)
		{ws, filepath.Join(ws, "in", "bank_test.go"), true},  // a link within ws
		{ws, filepath.Join(ws, "out", "bank_test.go"), false},
		{ws, filepath.Join(ws, "out", "new_test.go"), false},
		{ws, filepath.Join(ws, "out", "sub", "x_test.go"), false},
		{ws, filepath.Join(ws, "rel", "bank_test.go"), false},
		{ws, filepath.Join(ws, "file_test.go"), false},
		{ws, filepath.Join(ws, "dangling", "x_test.go"), false}, // outside once its target exists
		{ws, filepath.Join(ws, "loop", "x_test.go"), false},
		{ws, filepath.Join(outside, "bank_test.go"), false},
		// The folder named through a link: its files count by either name.
		{wslink, filepath.Join(wslink, "real", "bank_test.go"), true},
		{wslink, filepath.Join(ws, "real", "bank_test.go"), true},
		{ws, filepath.Join(wslink, "real", "bank_test.go"), true},
		{wslink, filepath.Join(wslink, "out", "bank_test.go"), false},
	} {
		s := newServer(Options{})
		s.folders = []string{tc.folder}
		if got := s.inWorkspace(tc.path); got != tc.want {
			t.Errorf("folder %s: inWorkspace(%s) = %v, want %v", tc.folder, tc.path, got, tc.want)
		}
	}
}

// TestPredictThroughSymlink asks for a prediction of a package that a
// link inside the workspace leads out of: it is refused and nothing is
// recorded, while the package inside is predicted.
func TestPredictThroughSymlink(t *testing.T) {
	ws, outside, _ := symlinkWorkspace(t)
	fr := &fakeRunner{answer: bankReport(t, outside)}
	c := newRawClient(t, Options{Run: fr.run})
	c.initialize(ws)
	for i, p := range []string{filepath.Join(ws, "out", "bank_test.go"), filepath.Join(ws, "file_test.go")} {
		id := 2 + 2*i
		c.request(id, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri.File(p)}})
		if m := c.response(strconv.Itoa(id)); m.Error != nil || string(m.Result) != "[]" {
			t.Errorf("codeLens on %s: %+v %s", p, m.Error, m.Result)
		}
		c.request(id+1, "workspace/executeCommand", map[string]any{"command": "seer.predict",
			"arguments": []any{map[string]any{"uri": uri.File(p), "test": "TestDeposit"}}})
		wantError(t, c.response(strconv.Itoa(id+1)), -32602)
	}
	if fr.count() != 0 {
		t.Fatalf("recorded %d times through a link out of the workspace (dir %s)", fr.count(), fr.last().Dir)
	}
	c.request(9, "workspace/executeCommand", map[string]any{"command": "seer.predict",
		"arguments": []any{map[string]any{"uri": uri.File(filepath.Join(ws, "real", "bank_test.go")), "test": "TestDeposit"}}})
	if m := c.response("9"); m.Error != nil {
		t.Errorf("seer.predict inside the workspace: %+v", m.Error)
	}
	if fr.count() != 1 {
		t.Errorf("recorded %d times, want 1", fr.count())
	}
}
