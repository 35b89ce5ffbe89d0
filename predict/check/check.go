// This file implements Run: record each package's tests, predict, and
// report the findings that belong to user code.

package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/static"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// Options say what to check.
type Options struct {
	Dir       string        // directory to run the go command in ("" = current)
	Patterns  []string      // package patterns (default ".")
	Run       string        // regexp selecting tests; "" = all
	Skip      string        // regexp of tests not to run (as go test -skip); "" = none
	Timeout   time.Duration // per-package test timeout; 0 = 10m
	Atomicity bool          // also treat each critical section as a transaction
	PerTest   bool          // record each top-level test in a run of its own
	Replay    bool          // confirm each finding by replaying its witness (replay.go)
	MaxEvents int           // events analysed of each run (record.RecordOptions.MaxEvents)
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
	// WhyNoRace also explains, for the conflicting accesses in user code
	// that no race finding names, what orders them (Report.Ordered): for
	// an editor's "why no race here?". It costs a pass over each trace.
	WhyNoRace bool
	// SolveTimeout bounds each SAT solve of the analysis
	// (predict.Options.SolveTimeout; 0: its default).
	SolveTimeout time.Duration
	// Hang ends a run whose goroutines have all been blocked on
	// synchronisation this long (record.RecordOptions.Hang): 0 means
	// record.DefaultHang, a negative value waits for Timeout.
	Hang time.Duration
	// Leaks reports, as goleak does, every goroutine of a test still
	// alive when the test binary exits after goleak's grace, whatever
	// its last event (record.RecordOptions.Left, predict.ObservedLeft).
	Leaks bool
	// HistoryBudget bounds the analysis's clock history of each run
	// (predict.Options.HistoryBudget; 0: no bound). The test during which
	// a run outgrew it gets a note.
	HistoryBudget int64
	// PrePassBudget, if positive, is the live heap the analysis's first
	// phase may take (predict.PrePassShare of -maxmem): a run whose
	// events cost more (predict.EventsWithin) is analysed up to where
	// they fit, as a run cut at MaxEvents is, and the test during which
	// it was cut gets a note (CostCutNote). Unlike MaxEvents it does not
	// stop the recording (the cost of an event is known only once the run
	// is converted), and each run gets it over the packages' analyses
	// that may hold memory at once when the run is analysed (sharing), as
	// the analysis judges its own room, not over Procs: the last package
	// left has it whole.
	PrePassBudget int64
	// Explore runs each selected test up to this many more times under
	// schedules steered by the recording runtime, and reports the union
	// of their findings (explore.go); 0: the one run.
	Explore int
	// ExploreSeed makes the steered runs those of an earlier check (its
	// Report.Explore seed); 0: a new seed.
	ExploreSeed uint64
	// ExploreStrategies are the steering strategies to use (nil: all).
	ExploreStrategies []report.Strategy
	// Test holds go test's flags for the test binary (gotest.go).
	Test TestFlags
	// Procs is how many packages are checked at once (go test -p; 0: 1).
	// MaxEvents and HistoryBudget bound the whole check: each of the
	// packages checked at once gets its share (packages.go).
	Procs int
	// Shard, if set, checks only that share of the packages (packages.go).
	Shard Shard
	// Live, with Progress, also reports the events recorded so far while
	// each test runs, and each top-level test as it ends (progress.go).
	Live bool
	// Cache, if set, answers a package from seer's cache of reports when
	// nothing it depends on changed, as go test answers from its test
	// cache, and stores the reports of packages whose tests all passed
	// (cache.go). Version is seer's own, part of every key.
	Cache   bool
	Version string
	// StopExploring, when closed, ends the exploration early: the
	// steered run in progress is stopped and dropped, and the report
	// keeps the findings of the runs that ended, its Exploration saying
	// it was stopped (the editors' cancel, which keeps what was found).
	// Cancelling ctx instead ends the whole check with its error.
	StopExploring <-chan struct{}

	// sharing says how many packages' analyses may hold memory under
	// the process's limit at once from now on (runPrepared's
	// packagesSharing), for predict.Options.Sharing; nil: one.
	sharing func() int
}

// HistoryBudget is the share of a memory budget mem (seer check's
// -maxmem) that the log of the analysis's clock history may take
// (Options.HistoryBudget): a tenth. The history's peak is about three
// times its log (the log, then its index and the cone's rises), and the
// trace, the CTP and the access classes take most of the rest at the
// event cap (a lock-heavy run of 14.1M events peaks near 1 GB with almost
// no history).
func HistoryBudget(mem int64) int64 { return mem / 10 }

// HistoryCutNote says that the analysis's clock history outgrew its share
// of -maxmem at event at of n (predict.Stats.HistoryCut), and what the
// report then holds; whole names what the n events are ("trace", "run").
func HistoryCutNote(at, n int, whole string) string {
	return fmt.Sprintf("the analysis's clock history outgrew its share of -maxmem at event %d of %d: the races that schedulable happens-before proves are reported from the whole %s, the other findings from its first %d events (raise -maxmem to search further)", at, n, whole, at)
}

// MisuseStopNote says that the misuse layer's lowering budget gave up on
// n WaitGroup candidates (predict.Stage.MisuseStopped), which are then
// neither proved nor refuted.
func MisuseStopNote(n int64) string {
	return fmt.Sprintf("the misuse layer gave up on %d WaitGroup candidates (negative counter, reuse) at its budget of closures: a misuse of a WaitGroup there may be missed", n)
}

// CostCutNote says that the first n events of a run (or trace: whole)
// are all that -maxmem holds by what they cost the analysis
// (predict.EventsWithin; Options.PrePassBudget), and what the report
// then holds.
func CostCutNote(n int, whole string) string {
	return fmt.Sprintf("the %s holds more events than -maxmem holds by what they cost the analysis (synchronisation and goroutines cost more than other events): seer analysed its first %d events (the run up to there), and none of the tests after them (raise -maxmem or -maxevents to analyse more)", whole, n)
}

// prePassShare is PrePassBudget's share for a run analysed now: over the
// packages' analyses that may hold memory at once from now on (sharing).
func (opts *Options) prePassShare() int64 {
	if opts.sharing == nil {
		return opts.PrePassBudget
	}
	return opts.PrePassBudget / int64(max(opts.sharing(), 1))
}

// cutByCost cuts rec's trace in place (trace.Trace.KeepPrefix) to the
// first events whose cost to the analysis's first phase budget holds
// (predict.EventsWithin, and at least one), when those are fewer than
// its events: rec is then Cut, as at the event cap. It returns how many
// events it kept, or 0 if it did not cut (no budget, or all fit).
func cutByCost(rec *record.RecordResult, budget int64) int {
	t := rec.Trace
	if budget <= 0 || t == nil {
		return 0
	}
	n := max(predict.EventsWithin(t, budget), 1)
	if n >= len(t.Events) {
		return 0
	}
	t.KeepPrefix(n)
	rec.Cut = true
	return n
}

// Progress is a stage of checking one package.
type Progress struct {
	Package string
	Stage   string // "building", "running", "converting", "analysing", ... (progress.go)
	Events  int    // events in the trace, once known
	// Test and Result name a top-level test that ended and how
	// (StageTestEnded).
	Test, Result string
	// While exploring (Options.Explore): the steered run starting (1 to
	// Runs) and the distinct findings of the runs before it (as
	// Report.Findings will count them: goroutines left running are none).
	Run, Runs, Found int
}

// A Source refines findings with what the program's source says. Package
// static implements it; nil means line-level positions and object names.
type Source interface {
	// Refine fills in Column/EndLine/EndColumn and Variable of an access
	// that touched size bytes (0 when not known): of several accesses of
	// the kind on the line, the size picks the one whose type has it.
	Refine(a *report.Access, write bool, size int64)
	// ReadFlow reports whether the value read at frame f cannot affect
	// control flow (irrelevant), and the sites of the writes the value may
	// be stored by. predict closes this over read-from (a read whose
	// value reaches a write that a relevant read observes is relevant).
	ReadFlow(f trace.Frame) (irrelevant bool, writes []trace.Frame)
}

// listedPackage is a package as go list describes it, or a pattern that
// names none. Status is "" for a package to check, else the final
// Package.Status ("no-test-files", "no-package").
type listedPackage struct {
	Path, Dir     string
	Status, Error string
	// Clean: go list found no error in the package or its dependencies,
	// so its build need not list it again (record.RecordOptions.Listed).
	Clean bool
}

// listPackages expands the patterns to packages. It runs go list with
// seer's own build cache (gocmd.GoEnv): go list writes to the cache too.
func listPackages(ctx context.Context, opts Options) ([]listedPackage, error) {
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,IgnoredGoFiles,InvalidGoFiles,Error,DepsErrors"}, opts.GoFlags...)
	args = append(args, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = opts.Dir
	cmd.Env = gocmd.GoEnv(opts.CacheDir, append(os.Environ(), opts.Env...))
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
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir                              string
			GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
			IgnoredGoFiles, InvalidGoFiles               []string
			Error                                        *struct{ Err string }
			DepsErrors                                   []json.RawMessage
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %v", err)
		}
		lp := listedPackage{Path: p.ImportPath, Dir: p.Dir, Clean: p.Error == nil && len(p.DepsErrors) == 0}
		files := len(p.GoFiles) + len(p.CgoFiles) + len(p.TestGoFiles) + len(p.XTestGoFiles) + len(p.IgnoredGoFiles) + len(p.InvalidGoFiles)
		switch {
		case p.Error != nil && files == 0:
			// Nothing to build: a directory that does not exist or has
			// no Go files, a path no module provides.
			lp.Status, lp.Error = "no-package", noPackage(p.Error.Err)
		case p.Error != nil:
			// Building it reports the error, positioned.
		case len(p.TestGoFiles)+len(p.XTestGoFiles) == 0:
			lp.Status = "no-test-files"
		}
		pkgs = append(pkgs, lp)
	}
	// A wildcard that matches nothing is only a warning to go list.
	for _, line := range strings.Split(stderr.String(), "\n") {
		if m := noMatchRE.FindStringSubmatch(line); m != nil {
			pkgs = append(pkgs, listedPackage{Path: m[1], Status: "no-package", Error: "pattern matched no packages"})
		}
	}
	return pkgs, nil
}

var noMatchRE = regexp.MustCompile(`^go: warning: "(.*)" matched no packages$`)

// noPackage words go list's error for a pattern that names no package.
func noPackage(msg string) string {
	msg = strings.TrimSpace(msg)
	if m := notFoundRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("directory %s does not exist", m[1])
	}
	if m := noDirRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("pattern matched no packages (directory %s does not exist)", m[1])
	}
	msg, _, _ = strings.Cut(msg, "\n")
	return msg
}

var (
	notFoundRE = regexp.MustCompile(`^stat (.*): directory not found$`)
	noDirRE    = regexp.MustCompile(`^pattern .*: lstat (.*): no such file or directory$`)
)

// prepared is a package loaded and built, ready to run (or the build's
// failure, or an error that stops the check).
type prepared struct {
	lp        listedPackage
	loadOnce  sync.Once
	loading   atomic.Bool   // loadSource started the load
	loaded    chan struct{} // closed once prog is set (loadSource)
	prog      *static.Program
	ropts     record.RecordOptions
	bin       *record.Binary
	buildFail *gocmd.BuildFailure
	err       error
	index     int           // in Run's list of packages
	slot      bool          // holds one of runPrepared's slots
	cacheID   string        // the test ID of its cache entry (cache.go), if it is to be cached
	testLog   []byte        // its runs' test logs, for the cache
	shared    *sharedSource // the load of source it shares with other packages (sourcegroup.go), if any
	groupOnce sync.Once     // sets canGroup (groupable, buildgroup.go)
	canGroup  bool
}

func newPrepared(lp listedPackage) *prepared {
	return &prepared{lp: lp, loaded: make(chan struct{})}
}

// loadSource starts loading the package's source, if it has not been.
// One load serves the //seer:atomic functions, control relevance and the
// positions of findings; without it seer still works, at line level and
// with every read relevant.
func (p *prepared) loadSource(ctx context.Context, opts Options) {
	p.loadOnce.Do(func() {
		p.loading.Store(true)
		go func() {
			defer close(p.loaded)
			var prog *static.Program
			var err error
			if p.shared != nil {
				prog = p.shared.program(ctx, opts, p.lp.Path) // sourcegroup.go
			}
			switch {
			case prog != nil:
			case opts.Static != nil:
				prog, err = opts.Static.ProgramEnvFlags(ctx, opts.Dir, opts.Env, opts.GoFlags, p.lp.Path)
			default:
				// Loaded here rather than through a Cache, whose loads
				// outlive their caller: a cancelled check stops its go
				// list too.
				prog, err = static.LoadEnvFlags(ctx, opts.Dir, opts.Env, opts.GoFlags, p.lp.Path)
			}
			if err == nil {
				p.prog = prog
			}
		}()
	})
}

// waitLoad waits for the package's source load, if loadSource started
// one. A load cancelled with the check ends at once (go list is killed, a
// Cache's request returns), and only then are its temporary files gone:
// seer must not exit before.
func (p *prepared) waitLoad() {
	if p.loading.Load() {
		<-p.loaded
	}
}

// program waits for the package's source, which loadSource has started
// loading, and returns it (nil if it did not load).
func (p *prepared) program() *static.Program {
	<-p.loaded
	return p.prog
}

// build builds the package's test binary. A package whose files mention
// //seer:atomic has its source loaded first: the build needs to know its
// atomic functions.
func (p *prepared) build(ctx context.Context, opts Options) {
	var atomic func(string) bool
	if p.lp.Dir == "" || mentions(p.lp.Dir, static.AtomicDirective) {
		p.loadSource(ctx, opts)
		atomic = atomicFuncs(p.program())
	}
	if err := ctx.Err(); err != nil {
		p.err = err
		return
	}
	ropts := p.recordOptions(opts, atomic)
	bin, err := record.Build(ctx, ropts)
	p.ropts, p.bin, p.err = ropts, bin, err
	if errors.As(err, &p.buildFail) {
		p.err = nil
	}
}

// recordOptions returns the options that build the package's test binary
// and run it, with atomic its //seer:atomic functions (nil: none).
func (p *prepared) recordOptions(opts Options, atomic func(string) bool) record.RecordOptions {
	pkg := p.lp.Path
	progress := func(stage string) {
		if opts.Progress != nil {
			opts.Progress(Progress{Package: pkg, Stage: stage})
		}
	}
	goFlags := opts.GoFlags
	if atomic != nil {
		// One entry record per call of an atomic function (see trace/atomic.go).
		goFlags = append([]string{atomicGCFlags}, goFlags...)
	}
	ropts := record.RecordOptions{
		Dir:       opts.Dir,
		Package:   pkg,
		Run:       opts.Run,
		Skip:      opts.Skip,
		Timeout:   opts.Timeout,
		Hang:      opts.Hang,
		Left:      opts.Leaks,
		Stderr:    opts.Stderr,
		GoFlags:   goFlags,
		Env:       opts.Env,
		CacheDir:  opts.CacheDir,
		Progress:  progress,
		Atomic:    atomic,
		MaxEvents: opts.MaxEvents,
		NoFile:    true, // the trace is analysed in memory, never read back
	}
	if p.lp.Clean {
		ropts.Listed = &record.Listed{ImportPath: p.lp.Path, Dir: p.lp.Dir, Tests: p.lp.Status == ""}
	}
	ropts.Replayable = opts.Replay || opts.Explore > 0 // exploring plans from positions
	return ropts
}

// atomicGCFlags builds a package that has //seer:atomic functions: without
// inlining, so that each call of one makes an entry record.
const atomicGCFlags = "-gcflags=-l"

// mentions reports whether a Go file in dir contains text (or dir cannot
// be read: the caller then takes the careful path).
func mentions(dir, text string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

// finish runs a prepared package's tests, analyses each run and adds
// what it finds to rep.
func (p *prepared) finish(ctx context.Context, opts Options, rep *report.Report) error {
	pkg, ropts, bin := p.lp.Path, liveOptions(opts, p.lp.Path, p.ropts), p.bin
	progress := func(stage string, events int) {
		if opts.Progress != nil {
			opts.Progress(Progress{Package: pkg, Stage: stage, Events: events})
		}
	}
	if p.err != nil {
		return p.err
	}
	if bf := p.buildFail; bf != nil {
		t := report.Test{Package: bf.Package, Name: "", Outcome: "build-error"}
		for _, e := range bf.Errors {
			t.Errors = append(t.Errors, e.String())
		}
		if len(t.Errors) == 0 {
			t.Errors = []string{strings.TrimSpace(bf.Output)}
		}
		rep.Tests = append(rep.Tests, t)
		rep.Packages = append(rep.Packages, report.Package{Path: bf.Package, Status: "build-error"})
		return nil
	}
	defer bin.Close()
	runs := []string{opts.Run}
	var selected []string // the top-level tests selected, once listed
	skip := topLevelSkip(opts.Skip)
	listSelected := func() error {
		if selected != nil {
			return nil
		}
		tests, err := bin.Tests(ctx, opts.Run)
		if err != nil {
			return err
		}
		selected = []string{}
		for _, name := range tests {
			if skip == nil || !skip.MatchString(name) {
				selected = append(selected, name)
			}
		}
		return nil
	}
	if opts.PerTest {
		if err := listSelected(); err != nil {
			return err
		}
		runs = runs[:0]
		for _, name := range selected {
			runs = append(runs, "^"+regexp.QuoteMeta(name)+"$")
		}
	}
	var src Source // the source, once the first run has ended
	source := func() Source {
		if src == nil {
			src = opts.Source
			if prog := p.program(); src == nil && prog != nil {
				src = StaticSource{Prog: prog}
			}
		}
		return src
	}
	var found []report.Finding
	var tests []report.Test
	summary := report.Package{Path: bin.Package, Status: "ok", Outcomes: map[string]int{}}
	ended := false  // a run ended before running all its tests
	failed := false // a test failed: -failfast starts no more runs
	logs := p.logRuns(bin)
	// walked is what the last run analysed showed of its every event
	// (whole.go).
	var walked *wholeWalk
	// analyse analyses one run: its findings (those of the analysis, to
	// replay, then the observed blocking ones) and the analysis's stats.
	analyse := func(rec *record.RecordResult) (predicted, observed []report.Finding, st predict.Stats, err error) {
		progress("analysing", rec.Events)
		// The run's every event is walked beside the analysis's first
		// passes; the blocked goroutines found are checked after it.
		whole, walk := walkWhole(rec)
		walked = whole
		res, err := Predict(ctx, rec.Trace, PredictOptions{
			Atomicity:     opts.Atomicity,
			Source:        source(),
			WhyNoRace:     opts.WhyNoRace,
			SolveTimeout:  opts.SolveTimeout,
			HistoryBudget: opts.HistoryBudget,
			Stats:         &st,
			sharing:       opts.sharing,
			whileWhole:    walk,
		})
		if err != nil {
			return nil, nil, st, err
		}
		if whole.err != nil {
			return nil, nil, st, whole.err
		}
		for i := range res.Findings {
			res.Findings[i].Package = rec.Package
		}
		for i := range res.Ordered {
			res.Ordered[i].Package = rec.Package
		}
		rep.Ordered = append(rep.Ordered, res.Ordered...)
		obs, err := reportObserved(rec, whole.blocked, source())
		if err != nil {
			return nil, nil, st, err
		}
		obs = append(obs, observedCloseOfClosed(rec, source())...)
		return res.Findings, obs, st, nil
	}
	for _, r := range opts.Test.runsOf(runs) {
		if failed && opts.Test.Failfast {
			break
		}
		run := r.run
		ropts.Run, ropts.TestFlags, ropts.Args = run, append(r.flags, logs.flags()...), opts.Test.Args
		rec, err := bin.Run(ctx, ropts)
		if err != nil {
			return err
		}
		costCut := cutByCost(rec, opts.prePassShare())
		logs.collect()
		summary.Events += rec.Events
		predicted, obs, st, err := analyse(rec)
		if err != nil {
			return err
		}
		for i := range predicted {
			if opts.Replay {
				progress("replaying", rec.Events)
				if err := replayFinding(ctx, bin, ropts, rec.Trace, &predicted[i]); err != nil {
					return err
				}
			}
		}
		first := len(found)
		found = append(found, predicted...)
		found = append(found, obs...)
		runTests := testsOfWalk(rec, st.HistoryCut, costCut, walked.tests)
		noteMisuseStop(runTests, rec.Trace, st)
		tests = append(tests, runTests...)
		if opts.Explore > 0 {
			// Further runs under steered schedules (explore.go); the
			// first run's recording is dropped once they are planned.
			ex := newExplorer(opts, bin.Package, run)
			ex.onRun = func(stage string, i, found int) {
				if opts.Progress != nil {
					opts.Progress(Progress{Package: pkg, Stage: stage, Run: i, Runs: opts.Explore, Found: found})
				}
			}
			more, err := ex.explore(ctx, bin, ropts, rec, found[first:], analyse, progress)
			if err != nil {
				return err
			}
			found = append(found, more...)
			ex.addLeaks(tests)
			rep.Explore = append(rep.Explore, ex.summary)
		}
		if r := rec.Outcome.Result; r != "pass" && r != "fail" {
			ended = true
		}
		for _, t := range rec.Tests {
			ended = ended || t.Result == "exit"
			failed = failed || t.Result != "pass" && t.Result != "skip"
		}
	}
	if opts.Test.Count > 1 || len(opts.Test.CPU) > 1 {
		found, tests = uniteFindings(found), uniteTests(tests)
	}
	p.testLog = logs.log
	if ended && !opts.PerTest {
		// Which selected tests never started?
		if err := listSelected(); err != nil {
			return err
		}
		started := map[string]bool{}
		for _, t := range tests {
			started[t.Name] = true
		}
		for _, name := range selected {
			if !started[name] {
				tests = append(tests, report.Test{Package: bin.Package, Name: name, Outcome: "not-run"})
			}
		}
	}
	for _, t := range tests {
		summary.Outcomes[t.Outcome]++
		if t.Outcome != "pass" && t.Outcome != "skip" {
			summary.Status = "fail"
		}
	}
	if src := source(); src != nil {
		refineWith(src, found)
	}
	summary.Findings = len(found)
	rep.Tests = append(rep.Tests, tests...)
	rep.Findings = append(rep.Findings, found...)
	rep.Packages = append(rep.Packages, summary)
	return nil
}

// testsOf lists the top-level tests of a recording with their outcome and
// the number of events their goroutines made. historyCut is the analysis's
// Stats.HistoryCut: the test during which it fell gets a note.
func testsOf(rec *record.RecordResult, historyCut int) []report.Test {
	return testsOfWalk(rec, historyCut, 0, walkTests(rec))
}

// testWalk is what testsOf reads of every event of a recording: the
// events of each goroutine, and the leaked goroutines by test
// (leakedGoroutines). seer check walks the trace for it beside the
// analysis's first passes (whole.go).
type testWalk struct {
	perG   []int
	leaked map[string][]string
}

// walkTests walks rec's trace for testsOf.
func walkTests(rec *record.RecordResult) testWalk {
	t := rec.Trace
	// Counted by goroutine first, then by test: a lookup by the test's
	// name at every event was most of testsOf's time at the event cap
	// (bench/RESULTS.md, branch pond8's "testsOf").
	perG := make([]int, len(t.Goroutines))
	for i := range t.Events {
		if g := t.Events[i].G; g > 0 && int(g) < len(perG) {
			perG[g]++
		}
	}
	return testWalk{perG: perG, leaked: leakedGoroutines(rec)}
}

// testsOfWalk is testsOf, given the walk of rec's trace; costCut is
// cutByCost's count (0: rec was not cut by what its events cost), which
// the note of the test during which rec was cut then gives.
func testsOfWalk(rec *record.RecordResult, historyCut, costCut int, w testWalk) []report.Test {
	t := rec.Trace
	perG := w.perG
	for id, n := range t.Local { // the local accesses conversion left out
		if id > 0 && id < len(perG) {
			perG[id] += n
		}
	}
	events := map[string]int{}
	for id, n := range perG {
		if g := t.Goroutine(trace.GoID(id)); g != nil && g.Test != "" {
			events[g.Test] += n
		}
	}
	leaked := w.leaked
	// The tests during which the run reached the event cap, and during
	// which the analysis's history outgrew its budget.
	cutIn := ""
	if rec.Cut {
		cutIn = testBefore(t, len(t.Events))
	}
	var out []report.Test
	for _, r := range rec.Tests {
		if strings.Contains(r.Name, "/") {
			continue // subtests are reported with their test
		}
		test := report.Test{Package: rec.Package, Name: r.Name, Events: events[r.Name], Outcome: r.Result, Output: r.Output}
		switch test.Outcome {
		case "panic", "timeout", "exit", "killed":
			if rec.Outcome.Message != "" {
				test.Errors = []string{rec.Outcome.Message}
			}
		}
		if !(rec.Cut && r.Name == cutIn) {
			// At a cut the test's goroutines were running at the cut,
			// not when it ended: nothing says they leaked.
			test.Leaked = leaked[r.Name]
		}
		out = append(out, test)
	}
	if rec.Cut {
		note := fmt.Sprintf("the run reached seer's cap of %d events during this test: seer analysed the events up to there, and none of the tests after it", rec.Events)
		if costCut > 0 {
			note = "during this test, " + CostCutNote(costCut, "run")
		}
		noteTest(out, cutIn, note)
	}
	if historyCut > 0 {
		noteTest(out, testBefore(t, historyCut), "during this test, "+HistoryCutNote(historyCut, len(t.Events), "run"))
	}
	return out
}

// noteTest gives note to the test named in, or to the first test when
// in is "" (the event noted ran before any test's goroutine did): the
// one place that says which test a note about event n of a run belongs
// to, with testBefore(t, n+1) as in. It reports whether a test took it.
func noteTest(tests []report.Test, in, note string) bool {
	for i := range tests {
		if tests[i].Name == in || in == "" && i == 0 {
			tests[i].Errors = append(tests[i].Errors, note)
			return true
		}
	}
	return false
}

// noteMisuseStop gives the test during which the misuse layer's first
// undecided WaitGroup candidate ran (st's misuse row) MisuseStopNote.
func noteMisuseStop(tests []report.Test, t *trace.Trace, st predict.Stats) {
	for _, row := range st.Stages {
		if row.MisuseStopped == 0 {
			continue
		}
		if noteTest(tests, testBefore(t, row.MisuseStoppedAt+1), "during this test, "+MisuseStopNote(row.MisuseStopped)) {
			return
		}
	}
}

// testBefore returns the test of the last of t's first n events whose
// goroutine belongs to one, or "".
func testBefore(t *trace.Trace, n int) string {
	for i := min(n, len(t.Events)) - 1; i >= 0; i-- {
		if g := t.Goroutine(t.Events[i].G); g != nil && g.Test != "" {
			return g.Test
		}
	}
	return ""
}

// PredictOptions control Predict.
type PredictOptions struct {
	Atomicity bool
	Source    Source
	Analysis  string // "seer" (default), "hb", "shb"
	Stats     *predict.Stats
	WhyNoRace bool // fill Report.Ordered (see Options.WhyNoRace)
	// SolveTimeout bounds each SAT solve (predict.Options.SolveTimeout).
	SolveTimeout time.Duration
	// HistoryBudget bounds the clock history (predict.Options.HistoryBudget).
	HistoryBudget int64
	// sharing is predict.Options.Sharing (Options.sharing).
	sharing func() int
	// whileWhole is predict.Options.WhileWhole: the walk of the run's
	// every event (walkWhole).
	whileWhole func(context.Context)
}

// Predict analyses one trace and returns its user findings as a report
// (Report.Tests is left empty: a trace file alone does not say how its
// tests ended).
func Predict(ctx context.Context, t *trace.Trace, opts PredictOptions) (*report.Report, error) {
	popts := predict.Options{
		Analysis:                       opts.Analysis,
		CriticalSectionsAsTransactions: opts.Atomicity,
		SolveTimeout:                   opts.SolveTimeout,
		HistoryBudget:                  opts.HistoryBudget,
		Sharing:                        opts.sharing,
		WhileWhole:                     opts.whileWhole,
	}
	if opts.Source != nil {
		rel := newRelevance(t, opts.Source)
		popts.ControlIrrelevant = rel.irrelevant
		popts.Feeds = rel.feeds
		if ls, ok := opts.Source.(leakSource); ok {
			popts.SelectLeak = selectLeaks(ls)
		}
		if vs, ok := opts.Source.(valueSource); ok {
			popts.RecvValueFree = recvValueFree(vs)
		}
		if cs, ok := opts.Source.(casesSource); ok && t.Header.Format != "std" {
			popts.SelectCases = selectCases(cs) // selectcases.go
		}
		if ns, ok := opts.Source.(nilSource); ok && t.Header.Format != "std" {
			popts.NilStore, popts.NilUse = nilStores(ns), nilUses(ns)
		}
	}
	res, err := predict.Analyze(ctx, t, popts)
	if err != nil {
		return nil, err
	}
	popts.WhileWhole = nil // run by Analyze, once
	if opts.Stats != nil {
		*opts.Stats = res.Stats
	}
	rep := &report.Report{Findings: []report.Finding{}, Tests: []report.Test{}}
	var ix *traceIndex
	if len(res.Findings) > 0 {
		ix = newTraceIndex(t)
	}
	for i := range res.Findings {
		if f, ok := userFinding(t, &res.Findings[i], opts.Source, ix); ok {
			rep.Findings = append(rep.Findings, f)
		}
	}
	if opts.WhyNoRace && popts.Analysis != predict.AnalysisHB && popts.Analysis != predict.AnalysisSHB {
		if rep.Ordered, err = whyNoRace(ctx, t, rep.Findings, popts, opts.Source); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// leakedGoroutines returns, per test, where its goroutines that never
// ended were created — when the run itself ended normally (a panic, a
// timeout or an exit stops every goroutine alike).
//
// A goroutine whose last act was wg.Done, close(ch) or a channel send
// that completed is finishing, not leaked: the test waits for that signal
// (or value) and the process may exit before the goroutine's own exit is
// recorded — the last test of a run, every test with seer check -each,
// or any test on a loaded machine, where the goroutine woken from its
// send waits for a CPU while the rest of the run ends. A send that blocks
// for good leaves chansend's read of the channel as its last event, not
// the send; a goroutine that blocks in a receive after its last send
// leaves nothing to tell it from one on its way out, and is not listed.
func leakedGoroutines(rec *record.RecordResult) map[string][]string {
	return leakedBut(rec, nil)
}

// leakedBut is leakedGoroutines less the goroutines skip names (nil: none).
func leakedBut(rec *record.RecordResult, skip func(trace.GoID) bool) map[string][]string {
	t := rec.Trace
	if rec.Outcome.Result != "pass" && rec.Outcome.Result != "fail" {
		return nil
	}
	for _, r := range rec.Tests {
		if r.Result == "exit" {
			return nil // os.Exit stops every goroutine alike too
		}
	}
	finished := make([]bool, len(t.Goroutines)) // its last event ends or signals the end
	for i := range t.Events {
		switch e := &t.Events[i]; {
		case e.Op.IsMarker():
			// Not an act: the OpTxEnd that -atomicity's conversion adds
			// after a goroutine's wg.Done says nothing of where it was.
		case e.Op == trace.OpEnd || e.Op == trace.OpWGDone || e.Op == trace.OpClose || e.Op == trace.OpSend:
			finished[e.G] = true
		default:
			finished[e.G] = false
		}
	}
	out := map[string][]string{}
	for id := 1; id < len(t.Goroutines); id++ {
		g := &t.Goroutines[id]
		if finished[id] || g.Test == "" || g.Create == 0 || skip != nil && skip(trace.GoID(id)) {
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
