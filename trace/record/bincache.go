// This file implements the kept test binaries: Build links each package's
// test binary into an entry of seer's cache that outlives the run, one per
// package, build flags and toolchain, and hands the run a hard link (or a
// copy) of it. The go command links again only when the binary there is
// not up to date, as go install does: it compares the build ID written in
// the binary with the one the link would give (which hashes everything
// the link reads), so a package whose code did not change is not linked
// again, while a binary it would link differently never stays.
//
// A package without test files is never built into an entry: go test -c
// then writes no binary, and would leave an earlier one in place (Build
// knows from go list whether it has test files). An entry is locked while
// it is built and linked out, so seer processes that build the same
// package take turns. An entry is removed when it was not used for
// binTrimAge, when the package's directory is gone (a test's temporary
// module), or, least recently used first, while the binaries kept pass
// binKeepBytes.

package record

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
)

// Kept binaries not used for binTrimAge are removed, and the least
// recently used past binKeepBytes, at most once per binTrimEvery; an
// entry's time is brought forward when it is used.
const (
	binTrimAge   = 3 * 24 * time.Hour
	binTrimEvery = 2 * time.Minute
	binKeepBytes = 1 << 30
)

// binDir is where tc's kept binaries are: under the toolchain's own
// directory, so that they go with it.
func binDir(tc *gocmd.Toolchain) string { return filepath.Join(tc.Dir, "bin") }

// keptBinary returns the path of the kept binary for building pkg (in
// directory dir) with the go test build flags and environment env,
// locked for this process until unlock is called. The key names the
// entry only; whether its binary is up to date is the go command's to say.
func keptBinary(tc *gocmd.Toolchain, pkg, dir string, flags, env []string) (path string, unlock func(), err error) {
	entry := keptEntry(tc, pkg, dir, flags, env)
	trimBinaries(binDir(tc), time.Now())
	return useEntry(entry, dir)
}

// keptEntry returns the directory of the kept binary for building pkg (in
// directory dir) with the go test build flags and environment env. The
// key names the package by its import path pkg after the flags, however
// the go command was given it (".", a directory), so that Build and
// BuildGroup share one entry per package.
func keptEntry(tc *gocmd.Toolchain, pkg, dir string, flags, env []string) string {
	args := append(flags[:len(flags):len(flags)], pkg)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", pkg, dir, strings.Join(args, "\x00"))
	for _, kv := range env {
		// What else the link reads: not a key of correctness (the build
		// ID is), but two settings used in turn would link each other's
		// entry again every time.
		for _, v := range []string{"GOFLAGS=", "GOEXPERIMENT=", "CGO_CFLAGS=", "CGO_LDFLAGS=", "CC=", "GOAMD64=", "GOARM64="} {
			if strings.HasPrefix(kv, v) {
				fmt.Fprintf(h, "%s\x00", kv)
			}
		}
	}
	return filepath.Join(binDir(tc), hex.EncodeToString(h.Sum(nil))[:24])
}

// useEntry locks the kept binary's entry (made if need be) for the
// package in directory dir, and returns the path of its binary and the
// unlock. A process that holds several entries at once takes them in the
// order of their paths (BuildGroup), so that two never wait on each other.
func useEntry(entry, dir string) (path string, unlock func(), err error) {
	lock, err := lockEntry(entry)
	if err != nil {
		return "", nil, err
	}
	now := time.Now()
	os.Chtimes(lock.Name(), now, now) // in use: not trimmed
	if _, err := os.Stat(filepath.Join(entry, "dir")); err != nil {
		os.WriteFile(filepath.Join(entry, "dir"), []byte(dir), 0o644) // for trimBinaries
	}
	return filepath.Join(entry, "pkg.test"), func() {
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}, nil
}

// lockEntry makes entry if it is not there and locks it. A lock taken on
// a file that another process's trimBinaries removed meanwhile is no
// lock: it is taken again on the entry made anew.
func lockEntry(entry string) (*os.File, error) {
	for try := 0; ; try++ {
		if err := os.MkdirAll(entry, 0o755); err != nil {
			return nil, err
		}
		lock, err := os.OpenFile(filepath.Join(entry, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			lock.Close()
			return nil, err
		}
		held, err1 := lock.Stat()
		named, err2 := os.Stat(lock.Name())
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return lock, nil
		}
		lock.Close()
		if err1 != nil || try == 3 {
			return nil, fmt.Errorf("kept binary %s: its lock was removed while taken", entry)
		}
	}
}

// trimBinaries removes, each only if no process holds it, the entries
// of root not used for binTrimAge or whose package directory is gone,
// then the least recently used while the binaries kept pass
// binKeepBytes.
func trimBinaries(root string, now time.Time) {
	mark := filepath.Join(root, "trim.txt")
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < binTrimEvery {
		return
	}
	os.WriteFile(mark, []byte(now.Format(time.RFC3339)+"\n"), 0o644)
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	type kept struct {
		path string
		used time.Time
		size int64
	}
	var live []kept
	total := int64(0)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		entry := filepath.Join(root, e.Name())
		fi, err := os.Stat(filepath.Join(entry, "lock"))
		making := err != nil
		if making {
			fi, err = os.Stat(entry) // made, its lock not yet
		}
		if err != nil {
			continue
		}
		gone := false
		if dir, err := os.ReadFile(filepath.Join(entry, "dir")); err == nil {
			_, err := os.Stat(string(dir))
			gone = errors.Is(err, fs.ErrNotExist)
		}
		if (gone || now.Sub(fi.ModTime()) > binTrimAge) && removeEntry(entry) {
			continue
		}
		k := kept{path: entry, used: fi.ModTime()}
		if bin, err := os.Stat(filepath.Join(entry, "pkg.test")); err == nil {
			k.size = bin.Size()
		}
		total += k.size
		if !making { // one being made is its maker's
			live = append(live, k)
		}
	}
	slices.SortFunc(live, func(a, b kept) int { return a.used.Compare(b.used) })
	for _, k := range live {
		if total <= binKeepBytes {
			break
		}
		if removeEntry(k.path) {
			total -= k.size
		}
	}
}

// removeEntry removes a kept binary's entry unless a process holds it,
// and reports whether it did.
func removeEntry(entry string) bool {
	lock, err := os.OpenFile(filepath.Join(entry, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return false
	}
	defer lock.Close()
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	// A process that opens the lock meanwhile finds, once it holds it,
	// that it is not the entry's lock, and makes the entry again
	// (lockEntry): RemoveAll removes in no order.
	os.RemoveAll(entry)
	return true
}

// linkOut makes dst, a new name, hold the kept binary src as it is now: a
// hard link, or a copy where one cannot be made. A later link of the
// entry writes a new file in its place and leaves dst's alone.
func linkOut(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
