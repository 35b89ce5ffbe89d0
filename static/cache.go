// This file implements Cache, which loads each version of a set of
// packages once and shares the Program among concurrent requests.

package static

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// A Cache holds Programs by directory and patterns. A Program is reused
// while its source is unchanged: the content of every file it was built
// from (the packages' Go files, and go.mod and go.sum), and the set of Go
// files in each package directory (so that a new file counts as a change).
// Each request checks this, by hashing those files, before it reuses a
// Program, so edits made outside seer are seen too.
//
// Concurrent requests for the same packages share one load. A Cache is
// safe for concurrent use; the zero Cache is ready to use.
type Cache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
	loads   int
}

type cacheEntry struct {
	done chan struct{} // closed when prog and err are set
	prog *Program
	err  error
}

// Program returns the Program for patterns in dir, loading it if it is
// not cached or its source has changed since it was loaded. The load runs
// on its own: when ctx is done, Program returns ctx's error at once, and
// the load goes on, for the next request. A failed load is reported to
// the requests that waited for it, and not kept.
func (c *Cache) Program(ctx context.Context, dir string, patterns ...string) (*Program, error) {
	return c.ProgramEnvFlags(ctx, dir, nil, nil, patterns...)
}

// ProgramEnvFlags is Program for a load with the go command's extra
// environment and build flags (LoadEnvFlags): a package's files depend on
// its build tags and GOOS, GOARCH or GOFLAGS, so Programs loaded with
// different ones are kept apart.
func (c *Cache) ProgramEnvFlags(ctx context.Context, dir string, env, buildFlags []string, patterns ...string) (*Program, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	buildFlags = raceBuild(buildFlags) // as the load has them: -race said or not is one Program
	key := strings.Join([]string{absDir, strings.Join(patterns, "\x01"), strings.Join(env, "\x01"), strings.Join(buildFlags, "\x01")}, "\x00")
	env, buildFlags = slices.Clone(env), slices.Clone(buildFlags) // the load outlives the call
	for {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = make(map[string]*cacheEntry)
		}
		e := c.entries[key]
		if e == nil {
			e = &cacheEntry{done: make(chan struct{})}
			c.entries[key] = e
			c.loads++
			go func() {
				e.prog, e.err = LoadEnvFlags(context.WithoutCancel(ctx), absDir, env, buildFlags, patterns...)
				if e.err != nil {
					c.drop(key, e)
				}
				close(e.done)
			}()
		}
		c.mu.Unlock()

		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			return nil, e.err
		}
		if e.prog.fingerprint.unchanged() {
			return e.prog, nil
		}
		c.drop(key, e) // stale: load again
	}
}

// drop removes entry e of key, unless it has been replaced already.
func (c *Cache) drop(key string, e *cacheEntry) {
	c.mu.Lock()
	if c.entries[key] == e {
		delete(c.entries, key)
	}
	c.mu.Unlock()
}

// Invalidate drops the Programs built from the named file (or, for a
// directory, from any file in it), for callers that know of a change
// before it is on disk or want the memory back.
func (c *Cache) Invalidate(name string) {
	name = filepath.Clean(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, e := range c.entries {
		select {
		case <-e.done:
		default:
			continue // still loading; the next request checks it
		}
		if e.prog != nil && e.prog.fingerprint.mentions(name) {
			delete(c.entries, key)
		}
	}
}

// Loads returns how many loads the Cache has started.
func (c *Cache) Loads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loads
}

// A fingerprint records the source a Program was built from.
type fingerprint struct {
	files map[string][sha256.Size]byte // content hash of each file; missing files hash to zero
	dirs  map[string][]string          // the Go files of each package directory
}

// takeFingerprint records the files of the loaded packages (content as
// parsed, for those parsed), their module's go.mod and go.sum, and the
// listing of their directories.
func takeFingerprint(chosen []*packages.Package, content map[string][]byte) *fingerprint {
	fp := &fingerprint{files: make(map[string][sha256.Size]byte), dirs: make(map[string][]string)}
	add := func(name string) {
		name = filepath.Clean(name)
		if _, ok := fp.files[name]; ok {
			return
		}
		if src, ok := content[name]; ok {
			fp.files[name] = sha256.Sum256(src)
		} else {
			fp.files[name] = hashFile(name)
		}
	}
	packages.Visit(chosen, nil, func(lp *packages.Package) {
		inModule := false
		for _, root := range chosen {
			if lp.Module != nil && root.Module != nil && lp.Module.Path == root.Module.Path {
				inModule = true
			}
		}
		if !inModule && !slices.Contains(chosen, lp) {
			return // the standard library and other modules change with go.sum
		}
		for _, f := range lp.GoFiles {
			add(f)
			fp.dirs[filepath.Dir(f)] = nil
		}
		for _, f := range lp.CompiledGoFiles {
			if _, ok := content[f]; ok {
				add(f)
			}
		}
		if lp.Module != nil && lp.Module.GoMod != "" {
			add(lp.Module.GoMod)
			add(filepath.Join(filepath.Dir(lp.Module.GoMod), "go.sum"))
		}
	})
	for dir := range fp.dirs {
		fp.dirs[dir] = goFilesIn(dir)
	}
	return fp
}

// unchanged reports whether every recorded file has the same content and
// every recorded directory the same Go files.
func (fp *fingerprint) unchanged() bool {
	if fp == nil {
		return false
	}
	for name, sum := range fp.files {
		if hashFile(name) != sum {
			return false
		}
	}
	for dir, names := range fp.dirs {
		if !slices.Equal(goFilesIn(dir), names) {
			return false
		}
	}
	return true
}

// mentions reports whether the fingerprint covers file or directory name.
func (fp *fingerprint) mentions(name string) bool {
	if fp == nil {
		return false
	}
	if _, ok := fp.files[name]; ok {
		return true
	}
	_, ok := fp.dirs[name]
	return ok
}

// hashFile returns the SHA-256 of a file's content, or zero if it cannot
// be read.
func hashFile(name string) [sha256.Size]byte {
	data, err := os.ReadFile(name)
	if err != nil {
		return [sha256.Size]byte{}
	}
	return sha256.Sum256(data)
}

// goFilesIn returns the sorted names of the .go files in dir.
func goFilesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}
