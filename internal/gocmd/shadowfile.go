// This file implements the Go files that the shadow GOROOT adds to the
// standard library beside the recorder (trace/record's hang watcher, a
// file of package runtime): each is part of the toolchain's cache key,
// and is added only where the real GOROOT has what it uses.

package gocmd

import (
	"os"
	"path/filepath"
	"strings"
)

// A ShadowFile is a Go file that the shadow GOROOT adds to a package of
// the standard library.
type ShadowFile struct {
	Path   string // relative to GOROOT, e.g. "src/runtime/seer_hangwatch.go"
	Source []byte
	// Needs are declarations, as their source spells them, that the file
	// uses from its package: when one is missing from the package's files
	// in the real GOROOT (another Go release), the file is left out,
	// rather than the shadow standard library not compiling.
	Needs []string
}

// addShadowFiles writes each of files whose needs the real GOROOT src
// meets into the shadow GOROOT dst.
func addShadowFiles(src, dst string, files []ShadowFile) error {
	for _, f := range files {
		ok, err := shadowFileFits(src, f)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		p := filepath.Join(dst, f.Path)
		// The package's directory is a link to the real one unless the
		// shadow already replaces a file in it: make it real.
		if err := unlinkDir(dst, filepath.Dir(f.Path)); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Source, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// shadowFileFits reports whether the package of f in GOROOT src declares
// everything f needs.
func shadowFileFits(src string, f ShadowFile) (bool, error) {
	names, err := filepath.Glob(filepath.Join(src, filepath.Dir(f.Path), "*.go"))
	if err != nil {
		return false, err
	}
	var all strings.Builder
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return false, err
		}
		all.Write(b)
	}
	for _, need := range f.Needs {
		if !strings.Contains(all.String(), need) {
			return false, nil
		}
	}
	return true, nil
}

// unlinkDir makes the directory rel of the shadow GOROOT dst, and each
// directory above it, a real directory of links to the entries of the
// one it linked to.
func unlinkDir(dst, rel string) error {
	if rel == "." || rel == "" {
		return nil
	}
	if err := unlinkDir(dst, filepath.Dir(rel)); err != nil {
		return err
	}
	p := filepath.Join(dst, rel)
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	target, err := os.Readlink(p)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		return err
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(target, e.Name()), filepath.Join(p, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
