// This file implements the packages whose source is loaded together: up
// to sourceGroup consecutive packages that can be built together
// (groupable) share one static.LoadEach, one go list of their packages,
// tests and dependencies for all of them instead of three go list
// processes a package, each Program still of its own package alone. The
// load starts when the first of them needs its source (prepared.loadSource,
// as its first run starts).

package check

import (
	"context"
	"sync"

	"github.com/seer-tools/seer/static"
)

// sourceGroup is how many packages one load of source serves at most: as
// many as one go command builds (buildAhead), so that the first package's
// source waits for the load of no more than a few small others.
const sourceGroup = buildAhead

// sharedSource is the source of a group of packages, loaded once.
type sharedSource struct {
	paths []string
	once  sync.Once // its load; Do returns to every caller once it is done
	progs map[string]*static.Program
}

// shareSource gives the packages of todo that Run loads from source
// (opts.Static is nil) and that can be built together, in runs of up to
// sourceGroup, a load of their source to share.
func shareSource(opts Options, todo []*prepared) {
	if opts.Static != nil {
		return // the caller's cache loads each package, and keeps it
	}
	var run []*prepared
	flush := func() {
		if len(run) > 1 {
			s := &sharedSource{}
			for _, p := range run {
				s.paths = append(s.paths, p.lp.Path)
				p.shared = s
			}
		}
		run = nil
	}
	for _, p := range todo {
		if !p.groupable() {
			flush()
			continue
		}
		run = append(run, p)
		if len(run) == sourceGroup {
			flush()
		}
	}
	flush()
}

// program returns the Program of the package at path, loading the group's
// source if no package of it has yet; nil if the load did not give it.
func (s *sharedSource) program(ctx context.Context, opts Options, path string) *static.Program {
	s.once.Do(func() {
		s.progs, _ = static.LoadEach(ctx, opts.Dir, opts.Env, opts.GoFlags, s.paths)
	})
	return s.progs[path]
}
