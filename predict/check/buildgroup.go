// This file implements the units runPrepared's builders build: the first
// package alone, so that the first package checked waits for its own
// build only, then the packages after it in groups of up to buildAhead,
// each group's test binaries built by one go command
// (record.BuildGroup), which loads and checks their dependencies once
// for the group rather than once a package.

package check

import (
	"context"

	"github.com/seer-tools/seer/static"
	"github.com/seer-tools/seer/trace/record"
)

// buildUnits divides todo, in its order, into the units the builders
// build: the first package alone, then runs of up to size packages that
// can be built together (groupable), every other package alone.
func buildUnits(todo []*prepared, size int) [][]*prepared {
	var units [][]*prepared
	var run []*prepared
	flush := func() {
		if len(run) > 0 {
			units = append(units, run)
			run = nil
		}
	}
	for i, p := range todo {
		if i == 0 || size < 2 || !p.groupable() {
			flush()
			units = append(units, []*prepared{p})
			continue
		}
		run = append(run, p)
		if len(run) == size {
			flush()
		}
	}
	flush()
	return units
}

// groupable reports whether p's test binary can be built with others':
// go list found it and its dependencies without error and it has test
// files (Listed), and it is built with no flags of its own (a package
// that may have //seer:atomic functions is built without inlining). The
// package's files are read once: buildUnits and shareSource both ask.
func (p *prepared) groupable() bool {
	p.groupOnce.Do(func() {
		p.canGroup = p.lp.Clean && p.lp.Status == "" && p.lp.Dir != "" && !mentions(p.lp.Dir, static.AtomicDirective)
	})
	return p.canGroup
}

// buildUnit builds the test binaries of unit: a package alone as
// prepared.build does, several with one go command. When the group does
// not build as one (a package of it fails to build or vet), each is built
// on its own, which tells which and how, so that a package that does not
// build never costs the others their results.
func buildUnit(ctx context.Context, opts Options, unit []*prepared) {
	if len(unit) == 1 {
		unit[0].build(ctx, opts)
		return
	}
	listed := make([]record.Listed, len(unit))
	for i, p := range unit {
		if opts.Progress != nil {
			opts.Progress(Progress{Package: p.lp.Path, Stage: StageBuilding})
		}
		listed[i] = record.Listed{ImportPath: p.lp.Path, Dir: p.lp.Dir, Tests: true}
	}
	shared := unit[0].recordOptions(opts, nil)
	bins, err := record.BuildGroup(ctx, shared, listed)
	if err == nil {
		for i, p := range unit {
			p.ropts, p.bin = p.recordOptions(opts, nil), bins[i]
		}
		return
	}
	if ctx.Err() != nil {
		for _, p := range unit {
			p.err = ctx.Err()
		}
		return
	}
	for _, p := range unit {
		p.build(ctx, opts)
	}
}
