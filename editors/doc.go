// Package editors holds seer's editor integrations, which are not Go: a
// VS Code extension (vscode/, TypeScript on vscode-languageclient) and a
// Neovim plugin (nvim/, Lua). Both start `seer serve`, seer's language
// server (package lsp). See README.md in this directory.
//
// The package has no Go code of its own. Its test is the one entry point
// that `go test ./...` reaches: it builds seer and runs each editor's own
// tests against the real server, the headless Neovim test when nvim is on
// PATH, `npm test` in vscode/ when its node_modules are installed, and
// (TestVSCodeEndToEnd, not with -short) the extension in a real VS Code,
// vscode/e2e/e2e.mjs, when code-server is installed there.
// Under CI (env CI set) a missing prerequisite fails the test instead of
// skipping it.
package editors
