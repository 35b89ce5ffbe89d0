package editors

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Each editor's suite records examples/bank's TestAudit: about a minute
// the first time on a cold cache, seconds after.
const suiteTimeout = 8 * time.Minute

// missing skips t for a missing prerequisite, or fails it under CI, where
// .ci/run must install what the editors' tests need.
func missing(t *testing.T, what, install string) {
	t.Helper()
	msg := what + ": .ci/run must install it with: " + install
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI set: not skipping)")
	}
	t.Skip(msg)
}

// root is the repository's root (the test runs in editors/).
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	buildOnce sync.Once
	seerBin   string
	buildErr  error
	buildOut  []byte
	binDir    string
)

// seer builds cmd/seer once for the package's tests.
func seer(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		binDir, buildErr = os.MkdirTemp("", "seer-editors-")
		if buildErr != nil {
			return
		}
		seerBin = filepath.Join(binDir, "seer")
		cmd := exec.Command(goTool, "build", "-o", seerBin, "./cmd/seer")
		cmd.Dir = root(t)
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building seer: %v\n%s", buildErr, buildOut)
	}
	return seerBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// trackInputs reads the sources that the editors' tests depend on but
// that go test cannot see (Lua, TypeScript, and the Go of the server,
// which the test builds), so that a change to any of them invalidates
// go test's cached result.
func trackInputs(t *testing.T) {
	t.Helper()
	r := root(t)
	err := filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// editors/testdata holds the kernels the editors' tests open.
			if path != r && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "out" || name == "dist" || name == "testdata" && path != filepath.Join(r, "editors", "testdata")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".lua", ".ts", ".mjs", ".json", ".mod", ".sum", ".c", ".h", ".s":
			_, err := os.ReadFile(path)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// run runs cmd with SEER_BIN set, logs its output, and fails t if it fails.
func run(t *testing.T, dir, bin string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), suiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SEER_BIN="+bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s (%.1fs):\n%s", filepath.Base(name), strings.Join(args, " "), time.Since(start).Seconds(), stdout.String())
	if stderr.Len() > 0 {
		t.Logf("standard error:\n%s", stderr.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("timed out after %v", suiteTimeout)
	}
	if err != nil {
		t.Fatalf("%s failed: %v", filepath.Base(name), err)
	}
}

// TestNeovim runs editors/nvim/test/run.lua in headless Neovim.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		missing(t, "nvim is not on PATH", "apt-get install -y neovim")
	}
	trackInputs(t)
	bin := seer(t)
	run(t, root(t), bin, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
		"-c", "set rtp+=editors/nvim", "-c", "luafile editors/nvim/test/run.lua")
}

// TestVSCode runs `npm test` in editors/vscode: type-check, unit tests with
// a stubbed vscode module, and seer serve driven over stdio.
func TestVSCode(t *testing.T) {
	dir := filepath.Join(root(t), "editors", "vscode")
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		missing(t, "editors/vscode/node_modules is not installed", "(cd editors/vscode && npm ci)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		missing(t, "npm is not on PATH", "apt-get install -y nodejs npm (Node 20 or later), then (cd editors/vscode && npm ci)")
	}
	trackInputs(t)
	bin := seer(t)
	run(t, dir, bin, npm, "test")
}
