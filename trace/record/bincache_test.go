// This file tests the kept test binaries (bincache.go): a second build of
// an unchanged package is not linked again (named as "." or by its import
// path), a changed one is, without
// touching the binary an earlier Build handed out; a package whose test
// files are gone is not answered with the binary they made; and old
// entries are trimmed unless in use.

package record

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestKeptBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/kept\n\ngo 1.26\n")
	const test = "package kept\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) { t.Log(\"version %s\") }\n"
	write("v_test.go", strings.Replace(test, "%s", "one", 1))
	build := func() *Binary {
		t.Helper()
		b, err := Build(context.Background(), RecordOptions{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	says := func(b *Binary) string {
		t.Helper()
		out, _ := exec.Command(b.Path, "-test.v", "-test.run=TestV").CombinedOutput()
		_, v, _ := strings.Cut(string(out), "version ")
		v, _, _ = strings.Cut(v, "\n")
		return v
	}
	first := build()
	if first.kept == "" || !strings.HasPrefix(first.kept, binDir(first.tc)) {
		t.Fatalf("kept binary %q, want one in %s", first.kept, binDir(first.tc))
	}
	kept := first.kept
	if inodeOf(t, first.Path) != inodeOf(t, kept) {
		t.Errorf("the run's binary is not a link of the kept one")
	}
	before := inodeOf(t, kept)
	second := build()
	if second.kept != kept || inodeOf(t, kept) != before {
		t.Error("an unchanged package was linked again")
	}
	if second.ID != first.ID || says(second) != "one" {
		t.Errorf("second build: ID %s (first %s), says %q", second.ID, first.ID, says(second))
	}
	// The package named by its import path, as seer check and BuildGroup
	// name it, is the same entry as "." (seer record's): not a second
	// binary linked beside it.
	byPath, err := Build(context.Background(), RecordOptions{Dir: dir, Package: "example.com/kept"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { byPath.Close() })
	if byPath.kept != kept || inodeOf(t, kept) != before {
		t.Errorf("the package by its import path: kept binary %s (linked again: %v), want %s", byPath.kept, inodeOf(t, kept) != before, kept)
	}
	write("v_test.go", strings.Replace(test, "%s", "two", 1))
	third := build()
	if inodeOf(t, kept) == before || third.ID == first.ID {
		t.Error("a changed package was not linked again")
	}
	if got := says(third); got != "two" {
		t.Errorf("the changed package's binary says %q, want two", got)
	}
	if got := says(second); got != "one" {
		t.Errorf("the binary handed out before the change says %q, want one", got)
	}

	// Its test files gone, the package has none: the kept binary of the
	// tests it had must not stand in.
	os.Remove(filepath.Join(dir, "v_test.go"))
	write("v.go", "package kept\n")
	if b, err := Build(context.Background(), RecordOptions{Dir: dir}); err == nil {
		b.Close()
		t.Error("a package without test files built a test binary")
	} else if !strings.Contains(err.Error(), "no test files") {
		t.Errorf("error %v, want no test files", err)
	}
}

func TestTrimBinaries(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	old := now.Add(-binTrimAge - time.Hour)
	entry := func(name string, used time.Time) string {
		e := filepath.Join(root, name)
		os.MkdirAll(e, 0o755)
		os.WriteFile(filepath.Join(e, "pkg.test"), []byte("binary"), 0o755)
		lock := filepath.Join(e, "lock")
		os.WriteFile(lock, nil, 0o644)
		os.Chtimes(lock, used, used)
		return e
	}
	stale := entry("stale", old)
	// An entry just made, its lock file not yet: kept.
	fresh := filepath.Join(root, "fresh")
	os.MkdirAll(fresh, 0o755)
	os.WriteFile(filepath.Join(fresh, "pkg.test"), []byte("binary"), 0o755)
	recent := entry("recent", now.Add(-time.Hour))
	held := entry("held", old)
	holdEntry(t, held)
	trimBinaries(root, now)
	if _, err := os.Stat(filepath.Join(root, "trim.txt")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		entry string
		kept  bool
	}{{stale, false}, {recent, true}, {held, true}, {fresh, true}} {
		_, err := os.Stat(filepath.Join(tc.entry, "pkg.test"))
		if kept := err == nil; kept != tc.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(tc.entry), kept, tc.kept)
		}
	}
	// Trimmed at most once per binTrimEvery.
	again := entry("again", old)
	trimBinaries(root, now.Add(time.Minute))
	if _, err := os.Stat(filepath.Join(again, "pkg.test")); err != nil {
		t.Error("trimmed twice within binTrimEvery")
	}
}

// TestTrimBinariesGoneAndSize checks the other two reasons to remove an
// entry: its package's directory is gone (a test's temporary module), or
// the binaries kept pass binKeepBytes, the least recently used going
// first; an entry in use or being made stays either way.
func TestTrimBinariesGoneAndSize(t *testing.T) {
	root := t.TempDir()
	pkgs := t.TempDir()
	now := time.Now()
	entry := func(name, dir string, used time.Time, size int64) string {
		t.Helper()
		e := filepath.Join(root, name)
		if err := os.MkdirAll(e, 0o755); err != nil {
			t.Fatal(err)
		}
		bin, err := os.Create(filepath.Join(e, "pkg.test"))
		if err != nil {
			t.Fatal(err)
		}
		bin.Truncate(size) // sparse: its size is what counts
		bin.Close()
		os.WriteFile(filepath.Join(e, "dir"), []byte(dir), 0o644)
		lock := filepath.Join(e, "lock")
		os.WriteFile(lock, nil, 0o644)
		os.Chtimes(lock, used, used)
		return e
	}
	here := filepath.Join(pkgs, "here")
	os.MkdirAll(here, 0o755)
	gone := filepath.Join(pkgs, "gone")
	const gib = binKeepBytes
	entries := map[string]bool{ // kept?
		entry("gone", gone, now, 10): false,
		entry("here", here, now, 10): true,
		// 1.875 GiB of binaries: the two oldest go, the rest fit.
		entry("oldest", here, now.Add(-5*time.Hour), gib/2): false,
		entry("older", here, now.Add(-4*time.Hour), gib/2):  false,
		entry("old", here, now.Add(-3*time.Hour), gib/2):    true,
		entry("new", here, now.Add(-2*time.Hour), gib/4):    true,
		entry("newest", here, now.Add(-time.Hour), gib/8):   true,
	}
	// Held by a process: stays though its directory is gone and it is
	// the oldest of all.
	held := entry("held", gone, now.Add(-6*time.Hour), 10)
	entries[held] = true
	holdEntry(t, held)
	trimBinaries(root, now)
	for e, want := range entries {
		_, err := os.Stat(filepath.Join(e, "pkg.test"))
		if kept := err == nil; kept != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(e), kept, want)
		}
	}
}

// TestLockEntryRemoved checks that a lock whose entry another process
// trimmed while it waited is taken again on the entry made anew.
func TestLockEntryRemoved(t *testing.T) {
	entry := filepath.Join(t.TempDir(), "e")
	first, err := lockEntry(entry)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *os.File)
	go func() {
		l, err := lockEntry(entry)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	time.Sleep(50 * time.Millisecond) // the second waits in Flock
	os.RemoveAll(entry)               // as removeEntry does, holding the lock
	first.Close()
	second := <-got
	if second == nil {
		return
	}
	defer second.Close()
	held, _ := second.Stat()
	named, err := os.Stat(filepath.Join(entry, "lock"))
	if err != nil || !os.SameFile(held, named) {
		t.Errorf("the lock taken is not the entry's lock file (%v)", err)
	}
}

// inodeOf returns the inode of the file at path.
func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// holdEntry locks entry as a seer process building it does, until the
// test ends.
func holdEntry(t *testing.T, entry string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(entry, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
}
