// This file implements the conversion between document URIs and file
// paths, the workspace boundary, and the short file names that messages
// show.
//
// The server keys everything by cleaned absolute path. Editors differ in
// how they escape URIs (VS Code escapes more characters than
// url.URL.String does), so the server answers in the client's own
// spelling of a file's URI whenever the client has named that file.

package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// uriPath returns the file path of a file: URI.
func uriPath(u protocol.DocumentURI) (string, error) {
	p, err := url.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("bad URI %q: %v", u, err)
	}
	if p.Scheme != uri.FileScheme {
		return "", fmt.Errorf("not a file URI: %q", u)
	}
	if p.Path == "" || !strings.HasPrefix(p.Path, "/") {
		return "", fmt.Errorf("not an absolute file URI: %q", u)
	}
	return filepath.Clean(filepath.FromSlash(p.Path)), nil
}

// pathURI returns the URI of a file path, spelled as the client spelled it
// if it ever named the file. Called with s.mu held.
func (s *server) pathURI(path string) protocol.DocumentURI {
	if u, ok := s.uris[path]; ok {
		return u
	}
	return uri.File(path)
}

// notePath records the client's URI for a file and returns its path.
// Called with s.mu held.
func (s *server) notePath(u protocol.DocumentURI) (string, error) {
	path, err := uriPath(u)
	if err != nil {
		return "", err
	}
	if _, ok := s.uris[path]; !ok {
		s.uris[path] = u
	}
	return path, nil
}

// inWorkspace reports whether path lies in a workspace folder: seer
// builds, runs and analyses only code there. No path does when the client
// named no folder (an editor started on a lone file): taking every path
// then would record whatever package a file is opened in, GOROOT's
// included.
//
// The check is on the paths that symbolic links lead to, for the path
// and for the folders alike: a link inside the workspace to a directory
// or file outside it does not bring that code in, and a folder opened
// through a link still holds its files. Called with s.mu held.
func (s *server) inWorkspace(path string) bool {
	if s.noWorkspace() {
		return false
	}
	real, ok := resolvePath(path)
	if !ok {
		return false
	}
	for _, f := range s.folders {
		if root, ok := resolvePath(f); ok && within(root, real) {
			return true
		}
	}
	return false
}

// resolvePath returns path with its symbolic links resolved
// (filepath.EvalSymlinks). A path that does not exist yet (a new file, a
// new directory) is resolved through its nearest existing ancestor. It
// reports false when a component exists but cannot be resolved: a
// dangling link, a loop, a directory it may not read.
func resolvePath(path string) (string, bool) {
	rest := ""
	for p := filepath.Clean(path); ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), true
		}
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// noWorkspace reports whether the session has no workspace folder, and
// the first time it has none, tells the user why seer does nothing.
// Called with s.mu held.
func (s *server) noWorkspace() bool {
	if len(s.folders) > 0 {
		return false
	}
	if !s.toldNoWorkspace {
		s.toldNoWorkspace = true
		s.showMessage(protocol.MessageTypeWarning, "%s", errNoWorkspace)
	}
	return true
}

// errNoWorkspace is what seer.predict answers without a workspace folder.
const errNoWorkspace = "no workspace folder: seer records and analyses only code in a workspace folder; open the module's folder"

// folderOf returns the innermost workspace folder holding path, or "".
// Called with s.mu held.
func (s *server) folderOf(path string) string {
	best := ""
	for _, f := range s.folders {
		if within(f, path) && len(f) > len(best) {
			best = f
		}
	}
	return best
}

// within reports whether path is dir or lies below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// shortPath names path for a message about a file in dir: the base name
// for files in the same directory, else relative to root when below it,
// else the whole path.
func shortPath(path, dir, root string) string {
	if filepath.Dir(path) == dir {
		return filepath.Base(path)
	}
	if root != "" && within(root, path) {
		if rel, err := filepath.Rel(root, path); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return path
}
