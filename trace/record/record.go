// This file implements Record: build a package's test binary with -race
// against the recording toolchain, run the selected tests, and convert what
// the recorder spooled into a trace file.

package record

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"syscall"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/trace"
)

// RecordOptions says what to record and how.
type RecordOptions struct {
	Dir      string        // directory to run the go command in ("" = current)
	Package  string        // package pattern ("" = ".")
	Run      string        // regexp selecting tests (-test.run); "" = all
	Skip     string        // regexp of tests not to run (-test.skip); "" = none
	Timeout  time.Duration // per-run test timeout (-test.timeout); 0 = 10m
	Output   string        // trace file to write; "" = a temporary file
	NoFile   bool          // write no trace file: the caller uses RecordResult.Trace (Output is ignored)
	Stderr   io.Writer     // receives the build's and the test's output (nil = discard)
	GoFlags  []string      // extra flags for go test -c (e.g. -tags=x)
	Env      []string      // extra environment (KEY=value) for the build and the run
	CacheDir string        // seer's cache ("" = the user cache directory)
	Progress func(stage string)
	// Atomic, if not nil, names the functions marked //seer:atomic (by
	// runtime symbol name): each call of one becomes a transaction.
	Atomic func(funcName string) bool
	// Exec, if set, is a command prefix that runs the test binary, for a
	// binary built for another architecture (GOARCH in Env), e.g.
	// {"qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"}.
	Exec []string
	// MaxEvents bounds the events converted from one run (0 means
	// DefaultMaxEvents, a negative value no bound). A run that made more
	// is cut there: the trace holds its first MaxEvents events and
	// RecordResult.Cut is set, rather than seer running out of memory.
	MaxEvents int
	// KeepLocal keeps the plain accesses to memory that only one
	// goroutine touched, which the trace otherwise leaves out (all but
	// each goroutine's last ones): no finding depends on them (see
	// local.go), and they are most of a run's events.
	KeepLocal bool
	// Replayable keeps each event's replay position (trace.Trace.ReplayPos),
	// for replaying a witness of the run later (4 bytes an event).
	Replayable bool
	// Replay, if set, makes the run enforce this schedule (replay.go); the
	// trace is replayable, and RecordResult.Replay says how it went.
	Replay *trace.ReplaySchedule
	// Explore, if set, steers the run (explore.go); the trace is
	// replayable, and RecordResult.Explore says how the steering went.
	Explore *trace.ExploreSchedule
	// Hang is how long every goroutine of the test must have been
	// blocked on synchronisation, with no timer pending but the test's
	// -timeout, for the run to be ended as hung (hang.go): 0 means
	// DefaultHang, a negative value waits for the -timeout.
	Hang time.Duration
	// Left runs the exit hook (hang.go) that reports, in
	// RecordResult.Left, the goroutines still alive when the test binary
	// exits, after goleak's grace. Off by default: a binary that exits
	// with goroutines alive (a TestMain worker) pays the grace.
	Left bool

	// TestFlags are more flags for the test binary (-test.short,
	// -test.cpu=4, ...), after those of Timeout, Run and Skip; Args
	// follow every flag, as go test -args passes them.
	TestFlags, Args []string
	// Live, if set, is called a few times a second while the test runs
	// with the number of events converted so far.
	Live func(events int)

	// KeepSpool, if set, is where the spool is kept (a hard link) after
	// the run, for tests that convert it again after the run.
	KeepSpool string

	// Listed, if set, is Package as go list has already resolved it,
	// with the same GoFlags and no error in it or its dependencies: Build
	// then does not list it again (listed.go).
	Listed *Listed
}

// BytesPerEvent is what one converted event may cost seer check end to
// end, as peak memory over conversion and analysis, when seer keeps its
// heap within the same budget (cmd/seer sets the Go runtime's memory
// limit to it): the event table's 32 bytes and the converter's allocation
// map while converting, then the analysis's indices and clocks for the
// events the trace keeps. Most converted events of real test suites are
// local accesses (local.go), which cost only the first part; the budget
// is set for a run in which nothing is local (two goroutines in a
// Lock/n++/Unlock loop).
const BytesPerEvent = 76

// EventCapEnv names the recorder's event cap in the test's environment:
// RecordOptions.MaxEvents, or 0 for no stop at the cap (RecordOptions.Env
// may set it so, to compare).
const EventCapEnv = "SEER_EVENT_CAP"

// AtomicDropEnv names the switch, in the test's environment, by which the
// recorder performs without recording the atomics that the converter
// drops by their frames (recorder.c, "atomics the converter drops";
// trace/classify.go, recorderDrops): "1" on, else off. Record sets it on
// where the trace needs no transactions and no replay positions;
// RecordOptions.Env may set it to "0", to compare.
const AtomicDropEnv = "SEER_ATOMIC_DROP"

// DefaultMaxEvents is RecordOptions.MaxEvents's default: what 1 GiB of
// memory holds (BytesPerEvent), 14.1 million events. Go's race suite,
// recorded in one run, must fit (its events: bench/RESULTS.md): a lower
// cap loses the races of the tests after it. Raise it with seer check -maxmem or -maxevents on a
// machine with more.
const DefaultMaxEvents = 1 << 30 / BytesPerEvent

// A RecordResult describes a recording.
type RecordResult struct {
	Path    string        // the trace file
	Package string        // import path of the package
	PkgDir  string        // its directory
	Events  int           // events converted: those in the trace and the local accesses it left out (trace.Trace.Local)
	Outcome trace.Outcome // how the test process ended
	Tests   []TestResult
	Trace   *trace.Trace          // the trace, as written
	Cut     bool                  // the run made more than MaxEvents events; Trace has the first ones
	Replay  *trace.ReplayOutcome  // how the replay went, for RecordOptions.Replay
	Explore *trace.ExploreOutcome // how the steering went, for RecordOptions.Explore
	// Panic is the stack of the goroutine whose panic ended the run, as
	// the test's output printed it (innermost first; the files are those
	// of the build, the standard library's under seer's shadow GOROOT),
	// or nil. Its last frame, for a goroutine a go statement created, is
	// that statement, with Func "created by F". The trace cannot hold it: an operation that panics, such as
	// the second close of a channel, panics before it tells the race
	// runtime.
	Panic []trace.Frame
	// Hang, when every goroutine of the run blocked for good and the
	// run was ended for it (RecordOptions.Hang), says where each waited,
	// with the stack the runtime printed for it; nil otherwise.
	Hang []HangWait
	// Left are the goroutines still alive when the test binary exited
	// after its last test, with goleak's grace (hang.go), each with its
	// state and stack; nil when there were none or RecordOptions.Left was
	// not set.
	Left []HangWait
	// Wall time of each stage. The spool is converted while the test
	// runs: Convert is what was left of it after the run.
	Duration struct {
		Build, Run, Convert time.Duration
	}
}

// A TestResult is how one test (or subtest) of a recorded run ended, from
// the test binary's -test.v output: "pass", "fail", "skip", or, for a test
// that started but never finished, the outcome of the whole run ("panic",
// "timeout", "killed"), or "exit" when the binary exited in the middle of
// it (os.Exit, log.Fatal, a fatal runtime error; Outcome.Message says
// which test and how).
type TestResult struct {
	Name   string
	Result string
	// Output is what a top-level test that did not pass or skip printed
	// (t.Log, t.Error, t.Fatal, its subtests' lines), as go test shows
	// it for a failed test, up to maxTestOutput lines; nil for a subtest
	// and for a test that passed or skipped.
	Output []string
}

// A Binary is a package's test binary built against the recording
// toolchain, ready to run any of its tests under the recorder.
type Binary struct {
	Package string // import path
	PkgDir  string // directory the tests run in
	Path    string // the binary
	ID      string // identity (hex SHA-256 prefix)
	Build   time.Duration

	tc         *gocmd.Toolchain
	work       string
	removeWork func() error
	removing   sync.WaitGroup // spools being removed (removeLater)
	env        []string
	exec       []string // command prefix that runs the binary
	kept       string   // the kept binary it was linked out of (bincache.go), if any
}

// command returns the command that runs the binary with args (run it
// with runOwned).
func (b *Binary) command(args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), b.exec...), b.Path), args...)
	return exec.Command(argv[0], argv[1:]...)
}

// Build builds the test binary of one package (opts.Run, Output and
// Atomic are not used). A package that does not build gives a
// *BuildFailure. Close removes the binary.
func Build(ctx context.Context, opts RecordOptions) (*Binary, error) {
	progress := opts.progress()
	pkg := opts.Package
	if pkg == "" {
		pkg = "."
	}
	goEnv := append(os.Environ(), opts.Env...)
	tc, err := gocmd.PrepareToolchainIn(ctx, opts.CacheDir, opts.Dir, goEnv, recorderSource, shadowFiles...)
	if err != nil {
		return nil, err
	}
	env := tc.Env(goEnv)
	b := &Binary{tc: tc, env: opts.Env, exec: opts.Exec}

	// Which package is it?
	listed, err := whichPackage(ctx, tc, env, opts, pkg)
	if err != nil {
		return nil, err
	}
	b.Package, b.PkgDir = listed.ImportPath, listed.Dir

	progress("building")
	if b.work, b.removeWork, err = gocmd.TempDir("seer-record-"); err != nil {
		return nil, err
	}
	// The go command's work directory (and the C compiler's files) go
	// under ours, so that nothing is left in the system's temporary
	// directory however the build ends.
	tmp := filepath.Join(b.work, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		b.Close()
		return nil, err
	}
	b.Path = filepath.Join(b.work, "pkg.test")
	start := time.Now()
	flags := append(withoutDWARF(opts.GoFlags, tc.GOFLAGS), pkg)
	out := b.Path
	if listed.Tests {
		// Linked into the kept binary's place, if it is not up to date
		// there (bincache.go), keyed by the import path however the
		// package was named.
		kept, unlock, err := keptBinary(tc, b.Package, b.PkgDir, flags[:len(flags)-1], env)
		if err == nil {
			defer unlock()
			out, b.kept = kept, kept
		}
	}
	err = goTestC(ctx, tc, env, opts.Dir, tmp, out, b.Package, flags)
	b.Build = time.Since(start)
	if err != nil {
		b.Close()
		return nil, err
	}
	if out != b.Path {
		if err := linkOut(out, b.Path); err != nil {
			b.Close()
			return nil, err
		}
	}
	if _, err := os.Stat(b.Path); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s: no test files", b.Package)
	}
	if b.ID, err = fileID(b.Path); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// goTestC runs go test -c -race -o out with args (the build flags, then
// the packages) in directory dir, the go command's work directory (and
// the C compiler's files) under tmp, so that nothing is left in the
// system's temporary directory however the build ends. A build that
// fails gives a *gocmd.BuildFailure naming pkg; a cancelled one, ctx's
// error.
func goTestC(ctx context.Context, tc *gocmd.Toolchain, env []string, dir, tmp, out, pkg string, args []string) error {
	build := exec.Command(tc.Go, append([]string{"test", "-c", "-race", "-o", out}, args...)...)
	build.Dir, build.Env = dir, append(env[:len(env):len(env)], "GOTMPDIR="+tmp, "TMPDIR="+tmp)
	var buildOut bytes.Buffer
	build.Stdout, build.Stderr = &buildOut, &buildOut
	if _, err := gocmd.RunOwned(ctx, build, goGrace); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &gocmd.BuildFailure{Package: pkg, Output: buildOut.String(), Errors: gocmd.ParseBuildErrors(buildOut.String(), absDir(dir))}
	}
	return nil
}

// goGrace is how long a go command has, once asked to stop, to stop its
// compilers and remove its work directory before it is killed.
const goGrace = 5 * time.Second

// Shadow returns the shadow GOROOT the binary was built against, whose
// files its symbols name.
func (b *Binary) Shadow() string { return b.tc.Shadow }

// Close removes the binary and its work directory, once the spools of its
// runs are removed (removeLater).
func (b *Binary) Close() error {
	b.removing.Wait()
	if b.removeWork == nil {
		return nil
	}
	return b.removeWork()
}

// Tests lists the top-level tests of the binary matching the regexp run
// ("" = all), as -test.list reports them.
func (b *Binary) Tests(ctx context.Context, run string) ([]string, error) {
	if run == "" {
		run = "."
	}
	cmd := b.command("-test.list", run)
	cmd.Dir, cmd.Env = b.PkgDir, append(os.Environ(), b.env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if _, err := gocmd.RunOwned(ctx, cmd, 0); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("listing the tests of %s: %v", b.Package, err)
	}
	var tests []string
	for _, l := range strings.Split(out.String(), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Test") {
			tests = append(tests, l)
		}
	}
	return tests, nil
}

// Record builds and runs the tests of one package under the recorder and
// writes the trace. A test that fails, panics, times out or exits early
// still gives a trace of everything it did (Outcome says how it ended); a
// package that does not build gives a *BuildFailure.
func Record(ctx context.Context, opts RecordOptions) (*RecordResult, error) {
	b, err := Build(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	temp := ""
	if opts.Output == "" && !opts.NoFile {
		// Binary.Run would write it in the binary's work directory,
		// which Close removes.
		f, err := os.CreateTemp("", "seer-*.trace")
		if err != nil {
			return nil, err
		}
		f.Close()
		opts.Output, temp = f.Name(), f.Name()
	}
	res, err := b.Run(ctx, opts)
	if res != nil {
		res.Duration.Build = b.Build
	}
	if err != nil && temp != "" {
		os.Remove(temp)
	}
	return res, err
}

// Run runs the tests selected by opts.Run under the recorder and writes the
// trace to opts.Output, or, if that is "", to a file in the binary's work
// directory that Close removes (opts.Dir, Package and GoFlags are not
// used).
func (b *Binary) Run(ctx context.Context, opts RecordOptions) (res *RecordResult, err error) {
	progress := opts.progress()
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	res = &RecordResult{Package: b.Package, PkgDir: b.PkgDir}
	progress("running")
	spool, err := os.CreateTemp(b.work, "spool-")
	if err != nil {
		return nil, err
	}
	spool.Close()
	defer b.removeLater(spool.Name())
	testArgs := []string{"-test.paniconexit0", "-test.v", "-test.timeout=" + timeout.String()}
	if opts.Run != "" {
		testArgs = append(testArgs, "-test.run="+opts.Run)
	}
	if opts.Skip != "" {
		testArgs = append(testArgs, "-test.skip="+opts.Skip)
	}
	testArgs = append(append(testArgs, opts.TestFlags...), opts.Args...)
	limit := opts.MaxEvents
	if limit == 0 {
		limit = DefaultMaxEvents
	}
	start := time.Now()
	env := append(os.Environ(), b.env...)
	if limit > 0 {
		// The spool gets room for about twice the records the limit
		// converts (real traces average under 30 bytes of records an
		// event), plus 64 MiB for a partial chunk each of many
		// goroutines, so that a test that runs away does not fill the
		// disk.
		env = append(env, fmt.Sprintf("SEER_SPOOL_CHUNKS=%d", (int64(limit)*64+64<<20)/trace.SpoolChunkBytes))
		// The recorder stops once the records it has numbered surely
		// make the cap's events (recorder.c, "Stopping at the event
		// cap"): the converter stops there anyway, and what the test
		// would record past it costs the run and is never read.
		env = append(env, fmt.Sprintf("%s=%d", EventCapEnv, limit))
	}
	if opts.Atomic == nil && !opts.Replayable && opts.Replay == nil && opts.Explore == nil {
		// The recorder performs, without recording, the atomics the
		// converter would drop (recorder.c, "atomics the converter
		// drops"), unless the trace needs transactions or replay
		// positions, which such an atomic may touch.
		env = append(env, AtomicDropEnv+"=1")
	}
	env = append(env, opts.Env...)
	if opts.Replay != nil {
		sched, err := b.replayEnv(opts.Replay)
		if err != nil {
			return nil, err
		}
		defer os.Remove(sched[0])
		env = append(env, sched[1:]...)
		defer func() {
			if res != nil && res.Replay == nil {
				res.Replay, _ = trace.ReadOutcome(sched[0])
			}
		}()
	}
	if opts.Explore != nil {
		steer, err := b.exploreEnv(opts.Explore)
		if err != nil {
			return nil, err
		}
		defer os.Remove(steer[0])
		env = append(env, steer[1:]...)
		defer func() {
			if res != nil && res.Explore == nil {
				res.Explore, _ = trace.ReadExploreOutcome(steer[0])
			}
		}()
	}
	// The spool is converted while the test runs (spool.go), on the
	// cores the test leaves idle.
	h := trace.Header{
		Version:   trace.FormatVersion,
		GoVersion: b.tc.GoVersion,
		GOOS:      b.tc.GOOS,
		GOARCH:    b.tc.GOARCH,
		Package:   b.Package,
		Binary:    b.ID,
		Args:      strings.Join(testArgs, " "),
		Format:    "seer",
		GOROOT:    b.tc.GOROOT,
	}
	ended, abort := make(chan struct{}), make(chan struct{})
	type converted struct {
		t      *trace.Trace
		capped bool
		err    error
		panic  any
	}
	conv := make(chan converted, 1)
	var goIDs map[uint32]trace.GoID // the converter's, once it is done
	var count *atomic.Int64
	if opts.Live != nil {
		count = new(atomic.Int64)
		go liveEvents(count, ended, opts.Live)
	}
	go func() {
		var r converted
		defer func() {
			// A converter's panic is the caller's, as when it ran on
			// the caller's goroutine.
			r.panic = recover()
			conv <- r
		}()
		r.t, r.capped, r.err = trace.ConvertLive(spool.Name(), b.Path, b.tc.Shadow, h, opts.Atomic, limit, trace.LiveOptions{
			Replayable: opts.Replayable || opts.Replay != nil || opts.Explore != nil,
			KeepLocal:  opts.KeepLocal,
			Ended:      ended,
			Recycle:    recycleSpool && opts.KeepSpool == "",
			Abort:      abort,
			GoIDs:      &goIDs,
			Converted:  count,
		})
	}()
	converting := func() converted {
		r := <-conv
		if r.panic != nil {
			panic(r.panic)
		}
		return r
	}
	env = append(env, hangEnv(opts.Hang, opts.Left)...)
	if err := trace.PrepareSpool(spool.Name(), ended); err != nil {
		close(ended)
		close(abort)
		converting()
		return nil, err
	}
	outcome, tests, panicked, scan, err := runTest(ctx, b.command(testArgs...), b.PkgDir, append(env, "SEER_SPOOL="+spool.Name()), stderr, timeout)
	close(ended)
	if opts.KeepSpool != "" {
		os.Link(spool.Name(), opts.KeepSpool)
	}
	res.Duration.Run = time.Since(start)
	if err != nil {
		close(abort)
		converting()
		return nil, err
	}

	progress("converting")
	start = time.Now()
	r := converting()
	t, capped, err := r.t, r.capped, r.err
	if err != nil {
		return nil, fmt.Errorf("reading the recording of %s: %w", b.Package, err)
	}
	t.Outcome = outcome
	path := opts.Output
	if opts.NoFile {
		path = ""
	} else if path == "" {
		f, err := os.CreateTemp(b.work, "trace-")
		if err != nil {
			return nil, err
		}
		f.Close()
		path = f.Name()
	}
	if path != "" {
		if err := trace.WriteFile(path, t); err != nil {
			return nil, err
		}
	}
	res.Duration.Convert = time.Since(start)
	res.Path, res.Events, res.Outcome, res.Trace, res.Tests = path, len(t.Events)+t.LocalAccesses(), outcome, t, tests
	if outcome.Result == "panic" {
		res.Panic = panicked
	}
	res.Hang, res.Left = scan.hang.result(goIDs), scan.left.result(goIDs)
	// A spool that filled up before the event cap (more goroutines, or
	// larger records, than its sizing assumed) cuts the run as the cap
	// does (capped). Cut too when a passing or failing run's trace is
	// truncated (a malformed record): silence would pass a partial
	// analysis off as a whole one. A run that ended otherwise (panic,
	// kill) is truncated for its own reason, which its outcome says.
	res.Cut = capped || t.Header.Capped > 0 ||
		t.Truncated && (outcome.Result == "pass" || outcome.Result == "fail")
	return res, nil
}

// recycleSpool says whether a live conversion gives the recorder back the
// spool slots of the chunks it has read (trace.LiveOptions.Recycle). Off:
// the records it was blamed for losing were an atomic the process's exit
// caught before its commit (now read from its pending mark), and with
// that mended recycling measured no CPU gain on the recorded test while
// raising its peak memory, as a chunk written into a recycled slot is
// never counted finished and its region never given back (bench/RESULTS.md,
// "the lost atomic records, and what spool recycling gives back").
const recycleSpool = false

// liveEvents calls live with count every liveEvery until ended is closed.
func liveEvents(count *atomic.Int64, ended <-chan struct{}, live func(int)) {
	tick := time.NewTicker(liveEvery)
	defer tick.Stop()
	for {
		select {
		case <-ended:
			return
		case <-tick.C:
			live(int(count.Load()))
		}
	}
}

// liveEvery is how often RecordOptions.Live is called.
const liveEvery = 200 * time.Millisecond

func (o *RecordOptions) progress() func(string) {
	if o.Progress == nil {
		return func(string) {}
	}
	return o.Progress
}

func absDir(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return abs
}

func fileID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// runTest runs the test binary, copying its output to w while watching for
// the way it ends. The binary's own -test.timeout normally stops a hung
// test (with a panic that prints every goroutine); if the process outlives
// that by a minute, or ctx is cancelled, it is killed.
func runTest(ctx context.Context, cmd *exec.Cmd, dir string, env []string, w io.Writer, timeout time.Duration) (trace.Outcome, []TestResult, []trace.Frame, *outputScan, error) {
	// As go test does: the test runs in its package's directory, and PWD
	// says so (os.Getwd and child processes trust it).
	cmd.Dir, cmd.Env = dir, append(env[:len(env):len(env)], "PWD="+dir)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var scan outputScan
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		scan.copy(w, pr)
	}()
	runCtx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	stopped, err := gocmd.RunOwned(runCtx, cmd, 0)
	pw.Close()
	wg.Wait()
	killed := ""
	if stopped {
		killed = "timeout"
		if ctx.Err() != nil {
			killed = "cancelled"
		}
	}
	o := trace.Outcome{Result: "pass"}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		o.ExitCode = exit.ExitCode()
		o.Result = "fail"
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.Result = "killed"
			o.Message = "killed by " + ws.Signal().String()
		}
	} else if err != nil && !stopped {
		return trace.Outcome{}, nil, nil, nil, fmt.Errorf("running the test binary: %v", err)
	}
	exited := false // the binary exited in the middle of a test
	switch {
	case killed == "cancelled":
		o.Result, o.Message = "killed", "recording cancelled"
	case killed == "timeout" || scan.timedOut:
		o.Result, o.Message = "timeout", scan.firstPanic
		if o.Message == "" {
			o.Message = fmt.Sprintf("test did not finish in %v", timeout)
		}
	case scan.firstPanic != "" && o.Result != "pass":
		o.Result, o.Message = "panic", scan.firstPanic
	case o.Result == "fail" && scan.exitedEarly:
		exited = true
		switch {
		case scan.fatal != "":
			o.Message = scan.fatal
		case scan.running() != "":
			o.Message = fmt.Sprintf("the test binary exited with status %d during %s (os.Exit or log.Fatal?)", o.ExitCode, scan.running())
		default:
			o.Message = fmt.Sprintf("the test binary exited with status %d without finishing its tests (os.Exit or log.Fatal?)", o.ExitCode)
		}
	}
	run := o.Result
	if exited {
		run = "exit"
	}
	tests := scan.results(run)
	if ctx.Err() != nil {
		return o, tests, nil, nil, ctx.Err()
	}
	return o, tests, scan.panicStack, &scan, nil
}

// outputScan copies test output and notes how the run ended.
type outputScan struct {
	firstPanic  string
	fatal       string // the first "fatal error:" line of the runtime
	timedOut    bool
	exitedEarly bool
	sawResult   bool
	order       []string          // tests in the order they started
	result      map[string]string // test -> pass/fail/skip

	// Each top-level test's output (testOutput), until it passes or
	// skips: cur is the test whose output follows (the last "=== RUN",
	// "=== CONT" or "=== NAME" line), and outEnded is set once the run's
	// end or a panic, fatal error or seer's hang or leak report began
	// (hang.go), none of it a test's own.
	cur      string
	output   map[string]*testOutput
	passed   map[string]bool // top-level tests that passed or skipped, until they run again (-test.count)
	outEnded bool

	// The first panic's goroutine stack: panicState is 0 before the
	// panic line, 1 until the "goroutine N [running]:" line, 2 while
	// frames follow, 3 after them.
	panicState int
	panicStack []trace.Frame

	hang hangScan // the hang watcher's report (hang.go)
	left hangScan // the exit hook's (hang.go)
}

// panicFrame parses a line of a goroutine's stack in a panic's output
// into s.panicStack (appendStackLine); an empty line ends the stack.
func (s *outputScan) panicFrame(line string) {
	if line == "" {
		s.panicState = 3
		return
	}
	s.panicStack = appendStackLine(s.panicStack, line)
}

var testLineRE = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)

// running returns the last test that started and did not finish, or "".
func (s *outputScan) running() string {
	for i := len(s.order) - 1; i >= 0; i-- {
		if _, ok := s.result[s.order[i]]; !ok {
			return s.order[i]
		}
	}
	return ""
}

// results returns each started test's result; unfinished ones get the
// run's outcome.
func (s *outputScan) results(run string) []TestResult {
	out := make([]TestResult, 0, len(s.order))
	for _, name := range s.order {
		r, ok := s.result[name]
		if !ok {
			r = run
			if r == "pass" {
				r = "fail"
			}
		}
		tr := TestResult{Name: name, Result: r}
		if o := s.output[name]; o != nil && r != "pass" && r != "skip" {
			tr.Output = o.lines
			if o.dropped > 0 {
				tr.Output = append(tr.Output, fmt.Sprintf("... (%d more lines)", o.dropped))
			}
		}
		out = append(out, tr)
	}
	return out
}

// maxTestOutput bounds the lines of a test's output that TestResult.Output
// keeps: the first ones, which say where it first failed.
const maxTestOutput = 100

// testOutput is one top-level test's output lines (TestResult.Output).
type testOutput struct {
	lines   []string
	dropped int // lines past maxTestOutput
}

// topLevel returns the top-level test of test (its name up to the first
// "/").
func topLevel(test string) string {
	top, _, _ := strings.Cut(test, "/")
	return top
}

// noteOutput attributes line, not one of the framing lines of -test.v,
// to the test whose output it is, unless that test passed or skipped
// (its output is dropped then).
func (s *outputScan) noteOutput(line string) {
	if s.outEnded || s.cur == "" {
		return
	}
	top := topLevel(s.cur)
	if s.passed[top] {
		return
	}
	if s.output == nil {
		s.output = make(map[string]*testOutput)
	}
	o := s.output[top]
	if o == nil {
		o = &testOutput{}
		s.output[top] = o
	}
	if len(o.lines) < maxTestOutput {
		o.lines = append(o.lines, line)
	} else {
		o.dropped++
	}
}

func (s *outputScan) copy(w io.Writer, r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			io.WriteString(w, line)
			s.note(strings.TrimRight(line, "\n"))
		}
		if err != nil {
			return
		}
	}
}

func (s *outputScan) note(line string) {
	line = strings.TrimPrefix(line, "\x16") // -test.v=test2json framing marker
	if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, hangReport.start) || strings.HasPrefix(line, hangReport.line) || strings.HasPrefix(line, leftReport.start) || strings.HasPrefix(line, leftReport.line) {
		s.outEnded = true // a stack dump or seer's report follows, not a test's output
	}
	s.hang.note(line, hangReport)
	s.left.note(line, leftReport)
	switch s.panicState {
	case 1:
		if strings.HasPrefix(line, "goroutine ") && strings.HasSuffix(line, ":") {
			s.panicState = 2
		}
	case 2:
		s.panicFrame(line)
		return
	}
	switch {
	case strings.HasPrefix(line, "panic: test timed out"):
		s.timedOut = true
		if s.firstPanic == "" {
			s.firstPanic = strings.TrimPrefix(line, "panic: ")
		}
	case strings.HasPrefix(line, "panic: ") && s.firstPanic == "":
		s.firstPanic = strings.TrimPrefix(line, "panic: ")
		s.panicState = 1
	case strings.HasPrefix(line, "fatal error: ") && s.fatal == "":
		s.fatal = line
	case line == "PASS" || line == "FAIL":
		s.sawResult = true
		s.outEnded = true
	case strings.HasPrefix(line, "=== RUN   "):
		name := strings.TrimSpace(strings.TrimPrefix(line, "=== RUN   "))
		if s.result == nil {
			s.result = make(map[string]string)
		}
		if _, ok := s.result[name]; !ok {
			s.order = append(s.order, name)
		}
		s.cur = name
		delete(s.passed, name)
	case strings.HasPrefix(line, "=== CONT  "), strings.HasPrefix(line, "=== NAME  "):
		s.cur = strings.TrimSpace(line[len("=== CONT  "):])
	case strings.HasPrefix(line, "=== PAUSE "):
	default:
		if m := testLineRE.FindStringSubmatch(line); m != nil {
			if s.result == nil {
				s.result = make(map[string]string)
			}
			result := strings.ToLower(m[1])
			if s.result[m[2]] == "fail" {
				result = "fail" // a test run again (-test.count) failed if any of its runs did, as go test says
			}
			s.result[m[2]] = result
			if m[2] == topLevel(m[2]) && (result == "pass" || result == "skip") {
				delete(s.output, m[2])
				if s.passed == nil {
					s.passed = make(map[string]bool)
				}
				s.passed[m[2]] = true
			}
			if m[2] != topLevel(m[2]) {
				s.noteOutput(line) // a subtest's result, as go test prints it
			}
			break
		}
		s.noteOutput(line)
	}
	s.exitedEarly = !s.sawResult
}
