// This file runs the VS Code extension's end-to-end test in a real VS Code
// (editors/vscode/e2e/e2e.mjs: code-server driven by headless Chromium).

package editors

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// chromiumPath is Debian's chromium, which the end-to-end test drives.
const chromiumPath = "/usr/bin/chromium"

// TestVSCodeEndToEnd installs the packaged extension into code-server,
// opens examples/bank in headless Chromium, clicks TestAudit's lens and
// checks the diagnostics, the hover, every quick fix and the witness
// webview (e2e/e2e.mjs says how). A failure logs the step, a screenshot's
// path and the "seer" output channel.
func TestVSCodeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the end-to-end test starts code-server and Chromium")
	}
	ext := filepath.Join(root(t), "editors", "vscode")
	e2e := filepath.Join(ext, "e2e")
	const install = "editors/vscode/e2e/install.sh (after apt-get install -y chromium ripgrep libkrb5-dev and npm ci in editors/vscode)"
	if _, err := os.Stat(filepath.Join(ext, "node_modules")); err != nil {
		missing(t, "editors/vscode/node_modules is not installed", "(cd editors/vscode && npm ci)")
	}
	if _, err := os.Stat(filepath.Join(e2e, "node_modules", "code-server", "lib", "vscode", "node_modules")); err != nil {
		missing(t, "code-server is not installed for the end-to-end test", install)
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		missing(t, chromiumPath+" is missing", "apt-get install -y chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH", "apt-get install -y nodejs (Node 20)")
	}
	trackInputs(t)
	bin := seer(t)
	t.Setenv("CHROMIUM", chromiumPath)
	run(t, e2e, bin, node, "e2e.mjs")
}
