// This file implements the tests' temporary module: a go.mod and the
// given files in a directory of the test's own.

package record

import (
	"os"
	"path/filepath"
	"testing"
)

// testModule writes a module of import path path holding files (name to
// contents; a name may hold directories) into a temporary directory and
// returns the directory.
func testModule(t *testing.T, path string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+path+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		name = filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
