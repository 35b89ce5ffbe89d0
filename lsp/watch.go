// This file implements workspace/didChangeWatchedFiles: keeping the
// diagnostics of files that are not open on their text when the files
// change on disk (a checkout, a formatter, another editor), as didChange
// does for open ones.
//
// The stored marks of a file that is not open are positioned in the text
// that was on disk when they were placed or last moved (s.disk). When the
// client reports a change, the marks move along the line map from that
// text to the new one (lines.go), and a deleted file loses them. The
// server asks for the events by dynamic registration when the client
// supports it (VS Code does; Neovim 0.7 does not, and then marks of
// closed files stay where they were, as before).

package lsp

import (
	"bytes"
	"context"
	"os"

	"go.lsp.dev/protocol"
)

// registerWatchers asks the client to report changes to Go files.
func (s *server) registerWatchers() {
	s.mu.Lock()
	ok := s.caps.watchFiles
	s.mu.Unlock()
	if !ok {
		return
	}
	params := &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:     "seer-watch-go",
		Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
			Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*.go"}},
		},
	}}}
	if err := s.call(s.ctx, protocol.MethodClientRegisterCapability, params, nil); err != nil {
		s.log.Warn("registering file watchers", "error", err)
	}
}

// DidChangeWatchedFiles moves the marks of changed files that are not
// open onto their new text, and drops those of deleted files.
func (s *server) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range params.Changes {
		if c == nil {
			continue
		}
		path, err := uriPath(protocol.DocumentURI(c.URI))
		if err != nil {
			continue
		}
		if _, open := s.docs[path]; open || !s.store.involves(path) {
			continue // an open buffer is the text that counts
		}
		now, err := os.ReadFile(path)
		if c.Type == protocol.FileChangeTypeDeleted || err != nil {
			s.remap(path, func(int) (int, bool) { return 0, false })
			delete(s.disk, path)
			continue
		}
		was, known := s.disk[path]
		switch {
		case !known:
			// Where the marks sit is not known: do not guess.
			s.remap(path, func(int) (int, bool) { return 0, false })
		case !bytes.Equal(was, now):
			s.remap(path, lineMap(was, now))
		}
		s.disk[path] = now
	}
	return nil
}

// noteDisk records that the marks of path, which is not open, are now
// positioned in content. Called with s.mu held.
func (s *server) noteDisk(path string, content []byte) {
	if _, open := s.docs[path]; !open {
		s.disk[path] = content
	}
}
