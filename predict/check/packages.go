// This file implements Run over many packages, as go test runs them:
// Options.Procs packages recorded and analysed at once within the memory
// budget, their test binaries built ahead, a package answered from
// seer's cache of reports when nothing it depends on changed (cache.go),
// the report in package order whatever order they finish in, and
// Options.Shard's share of the packages for a CI matrix.

package check

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/seer-tools/seer/predict/report"
)

// Run checks the packages and returns the report. Packages that do not
// build appear in Report.Tests with outcome "build-error", and patterns
// that name no package in Report.Packages with status "no-package"; an
// error is returned only when checking itself is impossible (no go
// command, no C compiler, cancelled, bad Options.Test).
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	if err := opts.Test.Validate(); err != nil {
		return nil, err
	}
	if err := opts.Shard.validate(); err != nil {
		return nil, err
	}
	pkgs, err := listPackages(ctx, opts)
	if err != nil {
		return nil, err
	}
	pkgs = opts.Shard.of(pkgs)
	if f := opts.Progress; f != nil {
		var mu sync.Mutex // the builds and the checks report from several goroutines
		opts.Progress = func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			f(p)
		}
	}
	// parts holds each package's share of the report, in package order.
	parts := make([]*report.Report, len(pkgs))
	var todo []*prepared
	for i, pkg := range pkgs {
		if pkg.Status != "" {
			parts[i] = &report.Report{Packages: []report.Package{{Path: pkg.Path, Status: pkg.Status, Error: pkg.Error}}}
			continue
		}
		p := newPrepared(pkg)
		p.index = i
		todo = append(todo, p)
	}
	if procs := min(max(opts.Procs, 1), len(todo)); procs > 1 {
		// Each package checked at once gets its share of the budget.
		if opts.MaxEvents > 0 {
			opts.MaxEvents = max(opts.MaxEvents/procs, 1)
		}
		opts.HistoryBudget /= int64(procs)
	}
	var cache *reportCache
	if opts.Cache {
		cache = openReportCache(ctx, opts, todo)
		todo = cache.answer(todo, parts, opts.Progress)
	}
	err = runPrepared(ctx, opts, todo, parts, cache)
	return mergeParts(parts), err
}

// mergeParts is the report of the packages' parts, in their order: every
// list of each part's (TestMergeParts holds it to every list Report has).
func mergeParts(parts []*report.Report) *report.Report {
	rep := &report.Report{Findings: []report.Finding{}, Tests: []report.Test{}, Packages: []report.Package{}}
	for _, part := range parts {
		if part != nil {
			rep.Findings = append(rep.Findings, part.Findings...)
			rep.Tests = append(rep.Tests, part.Tests...)
			rep.Packages = append(rep.Packages, part.Packages...)
			rep.Ordered = append(rep.Ordered, part.Ordered...)
			rep.Explore = append(rep.Explore, part.Explore...)
		}
	}
	return rep
}

// runPrepared builds, records and analyses the packages of todo, each
// into parts[p.index], Options.Procs at a time. Test binaries are built
// ahead of the packages being checked, Options.Procs builds at a time
// (other processes: the go command, the compiler, the linker), so that a
// package never waits for its build when the one before it was quick;
// after the first package, up to buildAhead packages are built by one go
// command (buildgroup.go). A package's source is loaded while its first
// run runs.
func runPrepared(ctx context.Context, opts Options, todo []*prepared, parts []*report.Report, cache *reportCache) error {
	if len(todo) == 0 {
		return nil
	}
	procs := min(max(opts.Procs, 1), len(todo))
	var left atomic.Int64 // the packages of todo not yet done
	left.Store(int64(len(todo)))
	opts.sharing = packagesSharing(procs, &left)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	built := make(chan *prepared, len(todo))
	// slots bounds the binaries built and not yet checked: the ones being
	// checked and buildAhead more.
	slots := make(chan struct{}, procs+buildAhead)
	// procs builds at a time, as go test -p builds procs test binaries at
	// once: one while a package runs when procs is 1, so that the second
	// core has work. A build is of a unit of packages (buildgroup.go),
	// started once it holds a slot for each, in order; the units' packages
	// are handed to the checkers in order too, so that a package never
	// waits for a lane that later packages, built sooner, took.
	units := buildUnits(todo, buildAhead)
	shareSource(opts, todo)
	done := make([]chan struct{}, len(units))
	for i := range done {
		done[i] = make(chan struct{})
	}
	go func() {
		builds := make(chan struct{}, procs)
		for i, unit := range units {
			ok := true
			for _, p := range unit {
				select {
				case slots <- struct{}{}:
					p.slot = true
				case <-cctx.Done():
					ok = false
				}
			}
			if ok {
				select {
				case builds <- struct{}{}:
				case <-cctx.Done():
					ok = false
				}
			}
			if !ok {
				for _, p := range unit {
					p.err = cctx.Err()
				}
				close(done[i])
				continue
			}
			go func() {
				buildUnit(cctx, opts, unit)
				<-builds
				close(done[i])
			}()
		}
	}()
	go func() {
		for i, unit := range units {
			<-done[i]
			for _, p := range unit {
				built <- p
			}
		}
		close(built)
	}()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range built {
				err := cctx.Err()
				if err == nil {
					p.loadSource(cctx, opts)
					part := &report.Report{}
					if err = p.finish(cctx, opts, part); err == nil {
						parts[p.index] = part
						cache.store(p, part)
					}
					left.Add(-1)
					if opts.Progress != nil {
						opts.Progress(Progress{Package: p.lp.Path, Stage: StageDone})
					}
				} else if p.bin != nil {
					p.bin.Close()
				}
				if p.slot {
					<-slots
				}
				if err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
				}
			}
		}()
	}
	wg.Wait()
	// Every build has returned (built is closed after the last), so
	// every load is started or never will be: a stopped check waits for
	// its loads to remove their temporary directories.
	for _, p := range todo {
		p.waitLoad()
	}
	if firstErr != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return firstErr
}

// packagesSharing is Options.sharing for packages checked procs at a
// time, of which left are not yet done: as many analyses as packages may
// be checked at once, but never more than are left (the last package's
// analysis has the whole memory limit, analyze_beside.go). Each package's
// events and history were budgeted a procs-th of -maxmem (Run), so
// counting fewer than procs packages while more are left could let one
// analysis take room another was promised.
func packagesSharing(procs int, left *atomic.Int64) func() int {
	return func() int { return int(max(min(int64(procs), left.Load()), 1)) }
}

// buildAhead is how many test binaries may be built beyond the ones being
// checked, and how many one go command builds (buildUnits): enough for a
// module's small packages after a large one (three in groupcache) to be
// built together while the large one runs. They are files, not memory.
const buildAhead = 4

// PackageMemory is the least memory budget a package checked alongside
// others gets by default (DefaultProcs): half of seer check's default
// -maxmem, 7 million events.
const PackageMemory = 512 << 20

// DefaultProcs is how many packages seer check checks at once by default
// with a memory budget of mem: go test's -p default, GOMAXPROCS, but no
// more than mem holds packages of PackageMemory each, and at least one.
func DefaultProcs(mem int64) int {
	return max(1, min(runtime.GOMAXPROCS(0), int(mem/PackageMemory)))
}

// A Shard is the share I of N (1 <= I <= N) of a module's packages that one
// job of a CI matrix checks: the packages, in go list's order (by import
// path), are dealt out in turn, the first to shard 1. Patterns that name
// no package are reported by every shard. The zero Shard is all of them.
type Shard struct{ I, N int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	var sh Shard
	var err1, err2 error
	sh.I, err1 = strconv.Atoi(i)
	sh.N, err2 = strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("-shard %q: want i/n, e.g. 1/4", s)
	}
	return sh, sh.validate()
}

func (s Shard) validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.N < 1 || s.I < 1 || s.I > s.N {
		return fmt.Errorf("-shard %d/%d: want 1 <= i <= n", s.I, s.N)
	}
	return nil
}

// of returns the shard's packages of pkgs.
func (s Shard) of(pkgs []listedPackage) []listedPackage {
	if s.N <= 1 {
		return pkgs
	}
	var out []listedPackage
	k := 0
	for _, p := range pkgs {
		if p.Status == "no-package" {
			out = append(out, p)
			continue
		}
		if k%s.N == s.I-1 {
			out = append(out, p)
		}
		k++
	}
	return out
}
