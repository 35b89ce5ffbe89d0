// This file implements seer's temporary directories: each is locked by
// the process that made it, so that the next seer removes the ones a
// killed process left behind.

package gocmd

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// lockName is the file in each of seer's temporary directories that the
// process owning the directory holds a lock on while it lives.
const lockName = ".seer-lock"

var sweepOnce sync.Once

// TempDir creates a temporary directory for this process's work, named
// like os.MkdirTemp("", pattern); remove removes it. The process holds a
// lock on a file in it while it lives, so that a directory left behind by
// a seer process that died without removing it (killed by SIGKILL, say)
// is removed by the next seer process that calls TempDir. pattern should
// start with "seer-".
func TempDir(pattern string) (dir string, remove func() error, err error) {
	sweepOnce.Do(sweepTempDirs)
	dir, err = os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	// The lock is taken under another name and renamed into place, so
	// that a sweeper never finds lockName unlocked in a live directory.
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			err = os.Rename(tmp, filepath.Join(dir, lockName))
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	var once sync.Once
	remove = func() error {
		var err error
		once.Do(func() {
			err = os.RemoveAll(dir)
			f.Close()
		})
		return err
	}
	return dir, remove, nil
}

// sweepTempDirs removes the temporary directories of seer processes that
// are gone: those whose lock nobody holds.
func sweepTempDirs() {
	locks, _ := filepath.Glob(filepath.Join(os.TempDir(), "seer-*", lockName))
	for _, lock := range locks {
		f, err := os.Open(lock)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(filepath.Dir(lock))
		}
		f.Close()
	}
}
