// Tests of spool_remove.go: a spool removed in the background is removed,
// and Binary.Close returns only once it is.

package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSpoolRemovedBeforeClose(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spool-1")
	if err := os.WriteFile(path, []byte("records"), 0o600); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	removeFile = func(p string) error {
		<-release
		return os.Remove(p)
	}
	t.Cleanup(func() { removeFile = os.Remove })

	b := &Binary{}
	b.removeLater(path)
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned while the spool was still being removed")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the spool is still there after Close: %v", err)
	}
}
