// This file implements text synchronisation: the open documents, their
// edits, and keeping stored diagnostics on their text as documents change.

package lsp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/static"
)

// A document is the client's version of an open file.
type document struct {
	version int32
	content []byte
}

// content returns the text of path as the user sees it: the open
// buffer, else the file on disk. Called with s.mu held.
func (s *server) content(path string) ([]byte, error) {
	if d, ok := s.docs[path]; ok {
		return d.content, nil
	}
	return os.ReadFile(path)
}

// DidOpen starts tracking a document.
func (s *server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	path, err := s.notePath(params.TextDocument.URI)
	if err != nil {
		s.log.Debug("didOpen", "error", err)
		return nil
	}
	s.uris[path] = params.TextDocument.URI
	content := []byte(params.TextDocument.Text)
	if s.store.involves(path) {
		if disk, err := os.ReadFile(path); err == nil && !bytes.Equal(disk, content) {
			s.remap(path, lineMap(disk, content))
		}
	}
	s.docs[path] = &document{version: params.TextDocument.Version, content: content}
	delete(s.disk, path)
	if s.mentionsDirective(path, content) && s.inWorkspace(path) {
		go s.checkDirectives(filepath.Dir(path))
	}
	return nil
}

// DidChange is not called: the handler chain decodes
// textDocument/didChange itself (see intercept) and calls didChange.
func (s *server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	p := didChangeParams{TextDocument: params.TextDocument}
	for _, c := range params.ContentChanges {
		r := c.Range
		p.Changes = append(p.Changes, contentChange{Range: &r, Text: c.Text})
	}
	return s.didChange(p)
}

// didChange applies the edits in order and moves or drops the stored
// diagnostics of the document.
func (s *server) didChange(params didChangeParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	path, err := uriPath(params.TextDocument.URI)
	if err != nil {
		return nil
	}
	d, ok := s.docs[path]
	if !ok {
		s.log.Warn("didChange for a document that is not open", "path", path)
		return nil
	}
	marked := s.store.involves(path)
	for _, c := range params.Changes {
		next, err := applyChange(path, d.content, c)
		if err != nil {
			// The client and server disagree on the text: stop trusting
			// positions in this file until it is reopened.
			s.log.Error("didChange", "path", path, "error", err)
			s.remap(path, func(int) (int, bool) { return 0, false })
			return nil
		}
		if marked {
			s.remap(path, lineMap(d.content, next))
		}
		d.content = next
	}
	d.version = params.TextDocument.Version
	return nil
}

// applyChange returns content with one change applied.
func applyChange(path string, content []byte, c contentChange) ([]byte, error) {
	if c.Range == nil {
		return []byte(c.Text), nil
	}
	m := static.NewMapper(path, content)
	span, err := m.RangeSpan(static.Range{
		Start: static.Position(c.Range.Start),
		End:   static.Position(c.Range.End),
	})
	if err != nil {
		return nil, fmt.Errorf("applying edit %v: %w", c.Range, err)
	}
	out := make([]byte, 0, len(content)-span.Len()+len(c.Text))
	out = append(out, content[:span.Start.Offset]...)
	out = append(out, c.Text...)
	return append(out, content[span.End.Offset:]...), nil
}

// DidSave re-runs the predictions of the saved file's package when the
// configuration asks for it (once any configuration being fetched has
// arrived).
func (s *server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	path, err := uriPath(params.TextDocument.URI)
	if err != nil || !strings.HasSuffix(path, ".go") {
		return nil
	}
	s.mu.Lock()
	if content, err := os.ReadFile(path); err == nil && s.mentionsDirective(path, content) && s.inWorkspace(path) {
		go s.checkDirectives(filepath.Dir(path))
	}
	s.mu.Unlock()
	go func() {
		s.configReady(s.ctx, func() {})
		s.mu.Lock()
		dir := filepath.Dir(path)
		if !s.inWorkspace(path) || !s.configFor(dir).RunOnSave {
			s.mu.Unlock()
			return
		}
		scopes := s.store.scopesIn(dir)
		if len(scopes) == 0 && strings.HasSuffix(path, "_test.go") {
			scopes = []scope{{dir: dir}}
		}
		s.mu.Unlock()
		for _, sc := range scopes {
			s.startJob(sc, nil, "save")
		}
	}()
	return nil
}

// DidClose stops tracking a document. Its diagnostics stay (the findings
// are about the package, not the buffer), moved back onto the text on
// disk if the buffer was not saved.
func (s *server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	path, err := uriPath(params.TextDocument.URI)
	if err != nil {
		return nil
	}
	d, ok := s.docs[path]
	if !ok {
		return nil
	}
	delete(s.docs, path)
	if s.store.involves(path) {
		if disk, err := os.ReadFile(path); err == nil {
			if !bytes.Equal(disk, d.content) {
				s.remap(path, lineMap(d.content, disk))
			}
			s.disk[path] = disk
		}
	}
	return nil
}

// remap moves the stored diagnostics of path (and related locations in
// it) along f and republishes what changed. Called with s.mu held.
func (s *server) remap(path string, f lineFunc) {
	for _, p := range s.store.remap(path, f) {
		s.publishLocked(p)
	}
}
