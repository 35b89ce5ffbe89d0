// This file implements the test of the built binary over standard input and
// output.

package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"
)

// TestBinaryOverStdio builds cmd/seer and talks to `seer serve --stdio`
// as an editor would: initialize, codeLens, shutdown, exit.
func TestBinaryOverStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "seer")
	build := exec.Command("go", "build", "-o", bin, "../cmd/seer")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := writeTxtar(t, bankTxtar)
	cmd := exec.Command(bin, "serve", "--stdio")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, conn: stdin, msgs: make(chan rawMsg, 100)}
	go c.read(stdout)

	c.initialize(dir)
	test := uri.File(filepath.Join(dir, "bank_test.go"))
	c.request(2, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": test}})
	m := c.response("2")
	// Two tests: predict and explore each, and the package's lens.
	if m.Error != nil || strings.Count(string(m.Result), `"seer.predict"`) != 5 || strings.Count(string(m.Result), `"seer: explore"`) != 2 {
		t.Errorf("codeLens: %+v %s", m.Error, m.Result)
	}
	c.request(3, "shutdown", nil)
	if m := c.response("3"); m.Error != nil {
		t.Errorf("shutdown: %+v", m.Error)
	}
	c.notify("exit", nil)
	if err := cmd.Wait(); err != nil {
		t.Errorf("seer serve exited with %v; stderr:\n%s", err, stderr.String())
	}
	if _, ok := <-c.msgs; ok {
		t.Errorf("messages after exit")
	}
	if testing.Verbose() {
		os.Stderr.WriteString(stderr.String())
	}
}
