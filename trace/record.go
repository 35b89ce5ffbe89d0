// This file implements Record: build a package's test binary with -race
// against the recording toolchain, run the selected tests, and convert what
// the recorder spooled into a trace file.

package trace

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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RecordOptions says what to record and how.
type RecordOptions struct {
	Dir      string        // directory to run the go command in ("" = current)
	Package  string        // package pattern ("" = ".")
	Run      string        // regexp selecting tests (-test.run); "" = all
	Skip     string        // regexp of tests not to run (-test.skip); "" = none
	Timeout  time.Duration // per-run test timeout (-test.timeout); 0 = 10m
	Output   string        // trace file to write; "" = a temporary file
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
}

// DefaultMaxEvents is RecordOptions.MaxEvents's default: a 960 MB event
// table (32 bytes an event), and what analysing it takes besides.
const DefaultMaxEvents = 30_000_000

// A RecordResult describes a recording.
type RecordResult struct {
	Path     string  // the trace file
	Package  string  // import path of the package
	PkgDir   string  // its directory
	Events   int     // events in the trace
	Outcome  Outcome // how the test process ended
	Tests    []TestResult
	Trace    *Trace   // the trace, as written
	Cut      bool     // the run made more than MaxEvents events; Trace has the first ones
	Duration struct { // wall time of each stage
		Build, Run, Convert time.Duration
	}
}

// A TestResult is how one test (or subtest) of a recorded run ended, from
// the test binary's -test.v output: "pass", "fail", "skip", or, for a test
// that started but never finished, the outcome of the whole run ("panic",
// "timeout", "killed", "fail").
type TestResult struct {
	Name   string
	Result string
}

// A BuildError is one compiler error, positioned for an editor.
type BuildError struct {
	File string // absolute path
	Line int
	Col  int // 0 when unknown
	Msg  string
}

func (e BuildError) String() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// A BuildFailure is returned when the test binary does not build.
type BuildFailure struct {
	Package string
	Errors  []BuildError // positioned errors, in the order the go command printed them
	Output  string       // the go command's whole output
}

func (f *BuildFailure) Error() string {
	if len(f.Errors) == 0 {
		return fmt.Sprintf("%s: build failed:\n%s", f.Package, strings.TrimSpace(f.Output))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: build failed:", f.Package)
	for _, e := range f.Errors {
		b.WriteString("\n\t")
		b.WriteString(e.String())
	}
	return b.String()
}

var buildErrRE = regexp.MustCompile(`^(\S[^:]*\.go):(\d+)(?::(\d+))?: (.*)$`)

// ParseBuildError parses one "file:line[:col]: message" line of go build
// output (or a BuildError's String); a relative file name is taken
// relative to dir. It reports false for a line without a position.
func ParseBuildError(line, dir string) (BuildError, bool) {
	m := buildErrRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return BuildError{}, false
	}
	file := m[1]
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	ln, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return BuildError{File: filepath.Clean(file), Line: ln, Col: col, Msg: m[4]}, true
}

// parseBuildErrors extracts positioned errors from go build output.
func parseBuildErrors(out, dir string) []BuildError {
	var errs []BuildError
	for _, line := range strings.Split(out, "\n") {
		if e, ok := ParseBuildError(line, dir); ok {
			errs = append(errs, e)
		}
	}
	return errs
}

// A Binary is a package's test binary built against the recording
// toolchain, ready to run any of its tests under the recorder.
type Binary struct {
	Package string // import path
	PkgDir  string // directory the tests run in
	Path    string // the binary
	ID      string // identity (hex SHA-256 prefix)
	Build   time.Duration

	tc   *Toolchain
	work string
	env  []string
	exec []string // command prefix that runs the binary
}

// command returns the command that runs the binary with args.
func (b *Binary) command(ctx context.Context, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), b.exec...), b.Path), args...)
	return exec.CommandContext(ctx, argv[0], argv[1:]...)
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
	tc, err := prepareToolchain(ctx, opts.CacheDir, goEnv)
	if err != nil {
		return nil, err
	}
	env := tc.Env(goEnv)
	b := &Binary{tc: tc, env: opts.Env, exec: opts.Exec}

	// Which package is it?
	list := exec.CommandContext(ctx, tc.Go, "list", "-f", "{{.ImportPath}}\t{{.Dir}}", pkg)
	list.Dir, list.Env = opts.Dir, env
	var listErr bytes.Buffer
	list.Stderr = &listErr
	out, err := list.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := listErr.String()
		if msg == "" {
			msg = err.Error()
		}
		return nil, &BuildFailure{Package: pkg, Output: msg, Errors: parseBuildErrors(msg, absDir(opts.Dir))}
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 {
		return nil, fmt.Errorf("seer records one package at a time; %q matches %d", pkg, len(lines))
	}
	parts := strings.SplitN(lines[0], "\t", 2)
	b.Package, b.PkgDir = parts[0], parts[1]

	progress("building")
	if b.work, err = os.MkdirTemp("", "seer-record-"); err != nil {
		return nil, err
	}
	b.Path = filepath.Join(b.work, "pkg.test")
	start := time.Now()
	args := append([]string{"test", "-c", "-race", "-o", b.Path}, opts.GoFlags...)
	args = append(args, pkg)
	build := exec.CommandContext(ctx, tc.Go, args...)
	build.Dir, build.Env = opts.Dir, env
	var buildOut bytes.Buffer
	build.Stdout, build.Stderr = &buildOut, &buildOut
	err = build.Run()
	b.Build = time.Since(start)
	if err != nil {
		b.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &BuildFailure{Package: b.Package, Output: buildOut.String(), Errors: parseBuildErrors(buildOut.String(), absDir(opts.Dir))}
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

// Close removes the binary and its work directory.
func (b *Binary) Close() error { return os.RemoveAll(b.work) }

// Tests lists the top-level tests of the binary matching the regexp run
// ("" = all), as -test.list reports them.
func (b *Binary) Tests(ctx context.Context, run string) ([]string, error) {
	if run == "" {
		run = "."
	}
	cmd := b.command(ctx, "-test.list", run)
	cmd.Dir = b.PkgDir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %v", b.Package, err)
	}
	var tests []string
	for _, l := range strings.Split(string(out), "\n") {
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
	res, err := b.Run(ctx, opts)
	if res != nil {
		res.Duration.Build = b.Build
	}
	return res, err
}

// Run runs the tests selected by opts.Run under the recorder and writes the
// trace to opts.Output (opts.Dir, Package and GoFlags are not used).
func (b *Binary) Run(ctx context.Context, opts RecordOptions) (*RecordResult, error) {
	progress := opts.progress()
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	res := &RecordResult{Package: b.Package, PkgDir: b.PkgDir}
	progress("running")
	spool, err := os.CreateTemp(b.work, "spool-")
	if err != nil {
		return nil, err
	}
	spool.Close()
	defer os.Remove(spool.Name())
	testArgs := []string{"-test.paniconexit0", "-test.v", "-test.timeout=" + timeout.String()}
	if opts.Run != "" {
		testArgs = append(testArgs, "-test.run="+opts.Run)
	}
	if opts.Skip != "" {
		testArgs = append(testArgs, "-test.skip="+opts.Skip)
	}
	limit := opts.MaxEvents
	if limit == 0 {
		limit = DefaultMaxEvents
	}
	start := time.Now()
	env := append(os.Environ(), b.env...)
	if limit > 0 {
		// The spool gets room for about twice the records the limit
		// converts (real traces average under 30 bytes of records an
		// event), plus a partial chunk for each of many goroutines, so
		// that a test that runs away does not fill the disk.
		env = append(env, fmt.Sprintf("SEER_SPOOL_CHUNKS=%d", int64(limit)*64/spoolChunkBytes+8192))
	}
	env = append(env, opts.Env...)
	outcome, tests, err := runTest(ctx, b.command(context.Background(), testArgs...), b.PkgDir, append(env, "SEER_SPOOL="+spool.Name()), stderr, timeout)
	res.Duration.Run = time.Since(start)
	if err != nil {
		return nil, err
	}

	progress("converting")
	start = time.Now()
	h := Header{
		Version:   FormatVersion,
		GoVersion: b.tc.GoVersion,
		GOOS:      b.tc.GOOS,
		GOARCH:    b.tc.GOARCH,
		Package:   b.Package,
		Binary:    b.ID,
		Args:      strings.Join(testArgs, " "),
		Format:    "seer",
		GOROOT:    b.tc.GOROOT,
	}
	t, err := Convert(spool.Name(), b.Path, b.tc.Shadow, h, opts.Atomic, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the recording of %s: %w", b.Package, err)
	}
	t.Outcome = outcome
	path := opts.Output
	if path == "" {
		f, err := os.CreateTemp("", "seer-*.trace")
		if err != nil {
			return nil, err
		}
		f.Close()
		path = f.Name()
	}
	if err := WriteFile(path, t); err != nil {
		return nil, err
	}
	res.Duration.Convert = time.Since(start)
	res.Path, res.Events, res.Outcome, res.Trace, res.Tests = path, len(t.Events), outcome, t, tests
	res.Cut = limit > 0 && len(t.Events) >= limit
	return res, nil
}

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
func runTest(ctx context.Context, cmd *exec.Cmd, dir string, env []string, w io.Writer, timeout time.Duration) (Outcome, []TestResult, error) {
	// As go test does: the test runs in its package's directory, and PWD
	// says so (os.Getwd and child processes trust it).
	cmd.Dir, cmd.Env = dir, append(env[:len(env):len(env)], "PWD="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return Outcome{}, nil, fmt.Errorf("starting the test binary: %v", err)
	}
	var scan outputScan
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		scan.copy(w, pr)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var killed string
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		killed = "cancelled"
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	case <-time.After(timeout + time.Minute):
		killed = "timeout"
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	pw.Close()
	wg.Wait()
	o := Outcome{Result: "pass"}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		o.ExitCode = exit.ExitCode()
		o.Result = "fail"
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.Result = "killed"
			o.Message = "killed by " + ws.Signal().String()
		}
	} else if err != nil {
		return Outcome{}, nil, err
	}
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
		o.Message = "test binary exited without finishing its tests (os.Exit?)"
	}
	tests := scan.results(o.Result)
	if ctx.Err() != nil {
		return o, tests, ctx.Err()
	}
	return o, tests, nil
}

// outputScan copies test output and notes how the run ended.
type outputScan struct {
	firstPanic  string
	timedOut    bool
	exitedEarly bool
	sawResult   bool
	order       []string          // tests in the order they started
	result      map[string]string // test -> pass/fail/skip
}

var testLineRE = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)

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
		out = append(out, TestResult{Name: name, Result: r})
	}
	return out
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
	switch {
	case strings.HasPrefix(line, "panic: test timed out"):
		s.timedOut = true
		if s.firstPanic == "" {
			s.firstPanic = strings.TrimPrefix(line, "panic: ")
		}
	case strings.HasPrefix(line, "panic: ") && s.firstPanic == "":
		s.firstPanic = strings.TrimPrefix(line, "panic: ")
	case line == "PASS" || line == "FAIL":
		s.sawResult = true
	case strings.HasPrefix(line, "=== RUN   "):
		name := strings.TrimSpace(strings.TrimPrefix(line, "=== RUN   "))
		if s.result == nil {
			s.result = make(map[string]string)
		}
		if _, ok := s.result[name]; !ok {
			s.order = append(s.order, name)
		}
	default:
		if m := testLineRE.FindStringSubmatch(line); m != nil {
			if s.result == nil {
				s.result = make(map[string]string)
			}
			s.result[m[2]] = strings.ToLower(m[1])
		}
	}
	s.exitedEarly = !s.sawResult
}
