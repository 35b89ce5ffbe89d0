// This file implements Run: record each package's tests, predict, and
// report the findings that belong to user code.

package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/static"
	"github.com/seer-tools/seer/trace"
)

// DocURL documents the finding kinds; codes are anchors in it.
const DocURL = "https://github.com/seer-tools/seer/blob/main/docs/findings.md"

// Options say what to check.
type Options struct {
	Dir       string        // directory to run the go command in ("" = current)
	Patterns  []string      // package patterns (default ".")
	Run       string        // regexp selecting tests; "" = all
	Skip      string        // regexp of tests not to run (as go test -skip); "" = none
	Timeout   time.Duration // per-package test timeout; 0 = 10m
	Atomicity bool          // also treat each critical section as a transaction
	PerTest   bool          // record each top-level test in a run of its own
	GoFlags   []string      // extra flags for building the test binary
	Env       []string      // extra environment for the build and the run
	CacheDir  string        // seer's cache ("" = the user cache directory)
	Stderr    io.Writer     // receives the tests' own output (nil = discard)
	Progress  func(Progress)
	// Source, when set, refines positions and names of accesses and says
	// which reads cannot affect control flow. When nil, Static (or a cache
	// of its own) loads each package with findings through package static.
	Source Source
	Static *static.Cache
}

// Progress is a stage of checking one package.
type Progress struct {
	Package string
	Stage   string // "building", "running", "converting", "analysing"
	Events  int    // events in the trace, once known
}

// A Source refines findings with what the program's source says. Package
// static implements it; nil means line-level positions and object names.
type Source interface {
	// Refine fills in Column/EndLine/EndColumn and Variable of an access.
	Refine(a *Access, write bool)
	// ReadFlow reports whether the value read at frame f cannot affect
	// control flow (irrelevant), and the sites of the writes the value may
	// be stored by. predict closes this over read-from (a read whose
	// value reaches a write that a relevant read observes is relevant).
	ReadFlow(f trace.Frame) (irrelevant bool, writes []trace.Frame)
}

// Run checks the packages and returns the report. Packages that do not
// build appear in Report.Tests with outcome "build-error"; an error is
// returned only when checking itself is impossible (no go command, no C
// compiler, cancelled).
func Run(ctx context.Context, opts Options) (*Report, error) {
	pkgs, err := listPackages(ctx, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{Findings: []Finding{}, Tests: []Test{}}
	for _, pkg := range pkgs {
		if err := checkPackage(ctx, opts, pkg, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// listPackages expands the patterns to the packages that have tests.
func listPackages(ctx context.Context, opts Options) ([]listedPackage, error) {
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	args := append([]string{"list", "-e", "-f", "{{.ImportPath}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}\t{{if .Error}}error{{end}}\t{{.Dir}}"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = opts.Dir
	cmd.Env = trace.GoEnv(opts.CacheDir, append(os.Environ(), opts.Env...)) // go list writes to the build cache too
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("go list: %v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []listedPackage
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || f[0] == "" {
			continue
		}
		// Packages with errors are kept: building them reports the error.
		if f[1] != "0" || f[2] != "0" || f[3] == "error" {
			pkgs = append(pkgs, listedPackage{Path: f[0], Dir: f[4]})
		}
	}
	return pkgs, nil
}

type listedPackage struct{ Path, Dir string }

func checkPackage(ctx context.Context, opts Options, lp listedPackage, rep *Report) error {
	pkg := lp.Path
	progress := func(stage string, events int) {
		if opts.Progress != nil {
			opts.Progress(Progress{Package: pkg, Stage: stage, Events: events})
		}
	}
	// One load of the package's source serves the //seer:atomic functions,
	// control relevance and the positions of findings; without it seer
	// still works, at line level and with every read relevant.
	var prog *static.Program
	var err error
	if opts.Static != nil {
		prog, err = opts.Static.Program(ctx, opts.Dir, pkg)
	} else {
		// Loaded here rather than through a Cache, whose loads outlive
		// their caller: a cancelled check stops its go list too.
		prog, err = static.Load(ctx, opts.Dir, pkg)
	}
	if err != nil {
		prog = nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	atomic := atomicFuncs(prog)
	goFlags := opts.GoFlags
	if atomic != nil {
		// One entry record per call of an atomic function (see trace/atomic.go).
		goFlags = append([]string{"-gcflags=-l"}, goFlags...)
	}
	ropts := trace.RecordOptions{
		Dir:      opts.Dir,
		Package:  pkg,
		Run:      opts.Run,
		Skip:     opts.Skip,
		Timeout:  opts.Timeout,
		Stderr:   opts.Stderr,
		GoFlags:  goFlags,
		Env:      opts.Env,
		CacheDir: opts.CacheDir,
		Progress: func(stage string) { progress(stage, 0) },
		Atomic:   atomic,
	}
	bin, err := trace.Build(ctx, ropts)
	var bf *trace.BuildFailure
	if errors.As(err, &bf) {
		t := Test{Package: bf.Package, Name: "", Outcome: "build-error"}
		for _, e := range bf.Errors {
			t.Errors = append(t.Errors, e.String())
		}
		if len(t.Errors) == 0 {
			t.Errors = []string{strings.TrimSpace(bf.Output)}
		}
		rep.Tests = append(rep.Tests, t)
		return nil
	}
	if err != nil {
		return err
	}
	defer bin.Close()
	runs := []string{opts.Run}
	if opts.PerTest {
		tests, err := bin.Tests(ctx, opts.Run)
		if err != nil {
			return err
		}
		runs = runs[:0]
		skip := topLevelSkip(opts.Skip)
		for _, name := range tests {
			if skip != nil && skip.MatchString(name) {
				continue
			}
			runs = append(runs, "^"+regexp.QuoteMeta(name)+"$")
		}
	}
	src := opts.Source
	if src == nil && prog != nil {
		src = StaticSource{Prog: prog}
	}
	var found []Finding
	for _, run := range runs {
		ropts.Run = run
		rec, err := bin.Run(ctx, ropts)
		if err != nil {
			return err
		}
		os.Remove(rec.Path)
		progress("analysing", rec.Events)
		res, err := Predict(ctx, rec.Trace, PredictOptions{
			Atomicity: opts.Atomicity,
			Source:    src,
		})
		if err != nil {
			return err
		}
		for i := range res.Findings {
			res.Findings[i].Package = rec.Package
		}
		found = append(found, res.Findings...)
		rep.Tests = append(rep.Tests, testsOf(rec, res)...)
	}
	if src != nil {
		refineWith(src, found)
	}
	rep.Findings = append(rep.Findings, found...)
	return nil
}

// testsOf lists the top-level tests of a recording with their outcome and
// the number of events their goroutines made.
func testsOf(rec *trace.RecordResult, res *Report) []Test {
	events := map[string]int{}
	t := rec.Trace
	for i := range t.Events {
		if g := t.Goroutine(t.Events[i].G); g != nil && g.Test != "" {
			events[g.Test]++
		}
	}
	leaked := leakedGoroutines(rec)
	var out []Test
	for _, r := range rec.Tests {
		if strings.Contains(r.Name, "/") {
			continue // subtests are reported with their test
		}
		test := Test{Package: rec.Package, Name: r.Name, Events: events[r.Name], Outcome: r.Result}
		if (test.Outcome == "panic" || test.Outcome == "timeout") && rec.Outcome.Message != "" {
			test.Errors = []string{rec.Outcome.Message}
		}
		if rec.Cut {
			test.Errors = append(test.Errors, fmt.Sprintf("the run made more than %d events: seer analysed the first ones", rec.Events))
		}
		test.Leaked = leaked[r.Name]
		out = append(out, test)
	}
	return out
}

// PredictOptions control Predict.
type PredictOptions struct {
	Atomicity bool
	Source    Source
	Analysis  string // "seer" (default), "hb", "shb"
	Stats     *predict.Stats
}

// Predict analyses one trace and returns its user findings as a report
// (Report.Tests is left empty: a trace file alone does not say how its
// tests ended).
func Predict(ctx context.Context, t *trace.Trace, opts PredictOptions) (*Report, error) {
	popts := predict.Options{
		Analysis:                       opts.Analysis,
		CriticalSectionsAsTransactions: opts.Atomicity,
	}
	if opts.Source != nil {
		rel := newRelevance(t, opts.Source)
		popts.ControlIrrelevant = rel.irrelevant
		popts.Feeds = rel.feeds
	}
	res, err := predict.Analyze(ctx, t, popts)
	if err != nil {
		return nil, err
	}
	if opts.Stats != nil {
		*opts.Stats = res.Stats
	}
	rep := &Report{Findings: []Finding{}, Tests: []Test{}}
	var ix *traceIndex
	if len(res.Findings) > 0 {
		ix = newTraceIndex(t)
	}
	for i := range res.Findings {
		if f, ok := userFinding(t, &res.Findings[i], opts.Source, ix); ok {
			rep.Findings = append(rep.Findings, f)
		}
	}
	return rep, nil
}

// leakedGoroutines returns, per test, where its goroutines that never
// ended were created — when the run itself ended normally (a panic or a
// timeout stops every goroutine alike).
//
// A goroutine whose last act was wg.Done or close(ch) is finishing, not
// leaked: the test waits for that signal and the process may exit before
// the goroutine's own exit is recorded (the last test of a run, or every
// test with seer check -each).
func leakedGoroutines(rec *trace.RecordResult) map[string][]string {
	t := rec.Trace
	if rec.Outcome.Result != "pass" && rec.Outcome.Result != "fail" {
		return nil
	}
	finished := make([]bool, len(t.Goroutines)) // its last event ends or signals the end
	for i := range t.Events {
		switch e := &t.Events[i]; e.Op {
		case trace.OpEnd, trace.OpWGDone, trace.OpClose:
			finished[e.G] = true
		default:
			finished[e.G] = false
		}
	}
	out := map[string][]string{}
	for id := 1; id < len(t.Goroutines); id++ {
		g := &t.Goroutines[id]
		if finished[id] || g.Test == "" || g.Create == 0 {
			continue
		}
		create := t.Stack(g.Create)
		if len(create) > 0 && strings.HasPrefix(create[0].Func, "runtime.") {
			continue // the runtime's own (GC workers, cleanup goroutines)
		}
		site, ok := trace.UserFrame(create, t.Header.GOROOT)
		if !ok {
			continue // the test's own goroutine, or one the harness started
		}
		out[g.Test] = append(out[g.Test], fmt.Sprintf("%s:%d", site.File, site.Line))
	}
	return out
}

// topLevelSkip returns go test's -skip pattern as a filter of top-level
// test names, or nil if it filters none: a pattern with a '/' selects
// subtests, which the test binary itself skips (the test is still run),
// and a pattern that does not compile is the test binary's to report.
func topLevelSkip(pattern string) *regexp.Regexp {
	if pattern == "" || strings.Contains(pattern, "/") {
		return nil
	}
	re, _ := regexp.Compile(pattern)
	return re
}
