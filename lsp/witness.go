// This file implements the command that opens the witness document: a
// finding's witness schedule as text, one row per step and one column per
// goroutine, with the source line of each step (report.WitnessText's
// LayoutColumns), or as a picture (report.WitnessPage).
//
// The document is a read-only file under the temporary directory, opened
// with window/showDocument and a file: URI. A custom URI scheme
// (seer-witness:) would need code in every client to serve its content;
// a file opens as it is in VS Code and in Neovim 0.7 alike.

package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/seer-tools/seer/predict/report"
)

// showWitness writes a finding's witness document and asks the client to
// open it; with args.HTML, it writes the witness's picture and answers it
// for the client to show (a webview cannot open a file: URI), without
// window/showDocument.
func (s *server) showWitness(ctx context.Context, args accessArgs) (any, error) {
	s.mu.Lock()
	f, ok := s.store.findings[args.Finding]
	if !ok {
		s.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: the finding is gone (was the test re-run?)")
	}
	short := func(p string) string { return shortPath(p, f.dir, s.folderOf(f.dir)) }
	if args.HTML {
		var page strings.Builder
		report.WitnessPage{Options: report.HTMLOptions{
			Rel:     short,
			Source:  s.sourceLine,
			Harness: func(file string) bool { return file != "" && !report.IsUserFile(file) },
		}}.Render(&page, report.One(&f.Finding))
		path, err := s.writeWitness(f, ".html", page.String())
		s.mu.Unlock()
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "seer: writing the witness: %v", err)
		}
		return shownDocument{URI: uri.File(path), HTML: page.String()}, nil
	}
	var text strings.Builder
	report.WitnessText{Layout: report.LayoutColumns, Rel: short, Source: s.sourceLine}.Render(&text, report.One(&f.Finding))
	path, err := s.writeWitness(f, ".txt", text.String())
	s.mu.Unlock()
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "seer: writing the witness: %v", err)
	}
	u := uri.File(path)
	if !s.showDocument(ctx, u, nil) {
		s.showMessage(protocol.MessageTypeInfo, "witness schedule written to %s", path)
	}
	return shownDocument{URI: u}, nil
}

// writeWitness writes text as a read-only file named for f, with
// extension ext. Called with s.mu held.
func (s *server) writeWitness(f *finding, ext, text string) (string, error) {
	if s.witnessDir == "" {
		dir, err := os.MkdirTemp("", "seer-witness-")
		if err != nil {
			return "", err
		}
		s.witnessDir = dir
	}
	name := f.Test
	if name == "" {
		name = "package"
	}
	path := filepath.Join(s.witnessDir, fmt.Sprintf("%s-%s-%d%s", name, f.Kind, f.id, ext))
	os.Remove(path)
	if err := os.WriteFile(path, []byte(text), 0o444); err != nil {
		return "", err
	}
	return path, nil
}
