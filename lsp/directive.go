// This file implements diagnostics for misused seer directives: a
// //seer:atomic that is not in a function declaration's doc comment, has
// arguments or is repeated, and unknown //seer: directives. They come from
// package static and are checked when a Go file that mentions a directive
// is opened or saved, without recording anything.

package lsp

import (
	"bytes"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/static"
)

// checkDirectives loads the package in dir (through the shared cache,
// with the folder's build flags and environment, as a check builds it)
// and replaces the directive diagnostics of its files. It runs in the
// background.
func (s *server) checkDirectives(dir string) {
	s.mu.Lock()
	cfg := s.configFor(dir)
	s.mu.Unlock()
	prog, err := s.static.ProgramEnvFlags(s.ctx, dir, cfg.Env, cfg.BuildFlags, ".")
	var diags []static.Diagnostic
	if err == nil {
		diags = prog.DirectiveErrors()
	} else {
		s.log.Debug("directives", "dir", dir, "error", err)
	}
	byFile := map[string][]protocol.Diagnostic{}
	for _, d := range diags {
		byFile[d.File] = append(byFile[d.File], protocol.Diagnostic{
			Range:    toRange(d.Range.LSP()),
			Severity: protocol.DiagnosticSeverityWarning,
			Source:   "seer",
			Code:     d.Code,
			Message:  d.Message,
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	touched := map[string]bool{}
	for path := range s.directives {
		if filepath.Dir(path) == dir {
			delete(s.directives, path)
			touched[path] = true
		}
	}
	for path, ds := range byFile {
		s.directives[path] = ds
		touched[path] = true
	}
	for _, path := range sortedKeys(touched) {
		s.publishLocked(path)
	}
}

// mentionsDirective reports whether Go source content uses a seer
// directive (or did, in which case its old diagnostics must go).
func (s *server) mentionsDirective(path string, content []byte) bool {
	if !strings.HasSuffix(path, ".go") {
		return false
	}
	if bytes.Contains(content, []byte("//seer:")) {
		return true
	}
	_, had := s.directives[path]
	return had
}
