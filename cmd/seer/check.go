// This file implements `seer check` and `seer predict`.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

var (
	checkFlags     = flag.NewFlagSet("check", flag.ContinueOnError)
	checkRun       = checkFlags.String("run", "", "check only the tests matching `regexp`")
	checkSkip      = checkFlags.String("skip", "", "do not run the tests matching `regexp`")
	checkJSON      = checkFlags.Bool("json", false, "print the report as JSON (the same as -format json)")
	checkFormat    = checkFlags.String("format", "text", "print the report as `text`, json or sarif (SARIF 2.1.0, for code scanning)")
	checkTimeout   = checkFlags.Duration("timeout", 10*time.Minute, "stop each package's test run after `d`")
	checkLeaks     = checkFlags.Bool("leaks", false, "report, as goleak does, every goroutine a test leaves alive when the test binary exits (after goleak's grace, about 0.43 s), saying which the runtime proves can never wake")
	checkHang      = checkFlags.Duration("hang", record.DefaultHang, "end a run, as an observed deadlock, once every goroutine has been blocked on synchronisation for `d` with no timer pending but -timeout's (a sleep, I/O or a system call is not blocked; negative: wait for -timeout)")
	checkExplain   = checkFlags.String("explain", "", "print the documentation of a finding `kind` (race, atomicity, deadlock, leak, send-on-closed, ...; an unknown kind lists them) and exit")
	checkAtomicity = checkFlags.Bool("atomicity", false, "also check each critical section as a transaction")
	checkVerbose   = checkFlags.Bool("v", false, "pass the tests' own output through to standard error")
	checkEach      = checkFlags.Bool("each", false, "record each top-level test in a run of its own")
	checkReplay    = checkFlags.Bool("replay", false, "confirm each race and deadlock by running its test again under its witness schedule")
	checkMax       = checkFlags.Int("maxevents", 0, "analyse at most `n` events of each run (the test during which a run passes n is named; -1: no cap; default: what -maxmem holds)")
	checkSolve     = checkFlags.Duration("solvetimeout", 2*time.Second, "bound each SAT solve of the witness search by `d`; a candidate left undecided is not reported (seer predict -stats counts them)")
	checkExplore   = addExploreFlags(checkFlags)
	checkMaxMem    = checkFlags.String("maxmem", "1GiB", "memory to keep each run's conversion and analysis within: seer's heap limit, an event cap of `size` / "+strconv.Itoa(record.BytesPerEvent)+" bytes (the analysis takes fewer where their synchronisation and goroutines cost it more), and a tenth of it for the log of the analysis's clock history; e.g. 512MiB, 4GiB")
	checkGoTest    = addGoTestFlags(checkFlags)
	checkProcs     = checkFlags.Int("p", 0, "check `n` packages at once, each within its share of -maxmem (default GOMAXPROCS, at most one package per 512MiB of -maxmem)")
	checkShard     = checkFlags.String("shard", "", "check only share `i/n` of the packages (1 <= i <= n), for a CI matrix: the packages, by import path, dealt out in turn")
)

var _ = register(&command{
	name:      "check",
	usageLine: "check [-run regexp] [-skip regexp] [-format text|json|sarif] [-json] [-timeout d] [-each] [-replay] [-explore n] [-explore-seed s] [-maxmem size] [-maxevents n] [-solvetimeout d] [-p n] [-shard i/n] [-explain kind] [go test's build and test flags] [packages] [-args ...]",
	short:     "record, predict and report the tests of packages",
	long: `
Check records the selected tests of each package under seer's recording
runtime, predicts the data races, atomicity violations, deadlocks, leaks
and misuses another schedule would show, and prints each finding go vet style: both accesses, the
goroutines and where they were created, whether the run showed it (observed)
or another schedule would (predicted), and the first steps of the witness.

Tests that fail, panic, time out, exit early (os.Exit, log.Fatal) or do
not build are reported as such, by name, with what they printed (t.Log,
t.Error, t.Fatal), as go test shows a failed test's output, and whatever
they recorded is still analysed; tests that a run ending early kept from starting are reported as
not run. After the findings, a line for each package sums it up: its tests
by outcome, the events recorded and the findings. A package without test
files is reported as such, and so is a pattern that names no package.

A run in which every goroutine has been blocked on synchronisation (a
channel, select, Mutex, RWMutex, WaitGroup or Cond) for -hang, with no
timer pending but the test's -timeout, is ended at once rather than at
-timeout, and reported as an observed deadlock that says where each
goroutine waits; a goroutine asleep, waiting on a timer, on I/O or in a
system call is not blocked. With -leaks, goroutines of a test still
alive when the test binary exits, after goleak's grace, are reported as
leaks, as goleak reports them.

With -format json (or -json) the report is one JSON document, the one
that seer predict -o json prints too. With -format sarif it is a SARIF
2.1.0 log for code scanning: a result per finding, with both accesses as
locations, the witness as a code flow with a thread flow per goroutine,
and a rule per finding kind; file URIs are relative to the module root
(uriBaseId %SRCROOT%).

With -replay, each race and deadlock is confirmed by running its test
again under the recording runtime with its witness schedule enforced: the
finding says "replay: confirmed" when the replayed run's own
happens-before leaves the two accesses unordered (the race detector would
report them), or, for a deadlock, when the replayed test hangs with the
goroutines of the cycle in their acquires, and "replay: not confirmed"
with where the replay diverged otherwise. The JSON report's
"confirmed" field ("true", "false", "not tried") and a SARIF result's
"confirmed" property say the same.

With -explore n, after the first run the tests are run up to n more
times under schedules that seer's recording runtime steers, only ever by
delaying goroutines (never a timer fired early): pct (random priorities
with a few change points), select (the case a select took loses), partner
(another goroutine wins a contended channel or mutex) and findings (a
predicted race or deadlock's witness is replayed, and confirmed when that
run shows it); -explore-strategies picks some. Every run is recorded and
analysed and the findings of all are reported once each, with the run
each came from ("found in explore run 3 (select, seed ...): it took 4
runs"); its witness is that run's, and -replay replays it there. The runs
stop early when several in a row add no finding and no new coverage
(communicating operations, lock orders, select outcomes), and a line per
package gives the seed (-explore-seed repeats the steering) and the
findings after each run. Each run costs about what the first does, and
no run's recording is kept while the next one runs.

go test's flags have go test's meaning: -tags, -ldflags, -gcflags,
-asmflags, -mod and -modfile reach the build; -short, -failfast and
-parallel the test binary, and what follows -args too; -count n records n
runs of each package and -cpu 1,4 a run per value, and their findings are
united; GOFLAGS's test flags apply where the command line sets none. A
flag of go test that seer cannot honour (-cover, -bench, -trimpath, ...)
is refused by name.

Packages are checked -p at once (default GOMAXPROCS, at most one per
512MiB of -maxmem), sharing -maxmem, and reported in package order.
-shard i/n checks the i-th of n shares of them, for a CI matrix (see
docs/ci.md; seer sarif merge merges the shards' SARIF logs). A package
whose tests all passed is answered from seer's cache, "(cached)", while
its test binary, the flags, seer, and the environment variables and files
its tests read are unchanged, as go test's cache answers; an explicit
-count, -count=1 too, runs it again.

On a terminal, standard error shows a line per package being checked
(building, recording n events and the tests that ended, analysing),
erased when it is done; not with -v, -json or -format sarif.

By default each package's tests are recorded in one run. With -each, every
top-level test is recorded in a run of its own: slower (a process per test),
but each trace holds one test, so no finding is lost to the size of a long
run's witness windows.

The exit status is
	0  every test passed (or was skipped), and there are no findings;
	1  every test passed, and there are findings;
	3  a test failed, panicked, timed out, exited early, was killed or did
	   not run, or a package does not build (findings are still printed);
	2  usage or tool errors, or a pattern that names no package;
	128+n  stopped by signal n (SIGINT 130, SIGTERM 143, SIGHUP 129),
	   after stopping the processes seer started and removing its
	   temporary files.
The first that applies, in the order 2, 3, 1, wins.`,
	flags: checkFlags,
	run:   runCheck,
})

func runCheck(c *command, args []string) int {
	if !checkGoTest.parse(c, args) {
		return 2
	}
	test, err := checkGoTest.testFlags()
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	shard, err := check.ParseShard(*checkShard)
	if *checkShard != "" && err != nil {
		errorf(c, "%v", err)
		return 2
	}
	format, ok := outputFormat(c, "-format", *checkFormat, *checkJSON)
	if !ok {
		return 2
	}
	if *checkExplain != "" {
		kind, _ := report.ParseKind(*checkExplain)
		text, ok := report.Explain(kind)
		if !ok {
			var kinds []string
			for _, k := range report.Kinds() {
				kinds = append(kinds, string(k))
			}
			errorf(c, "no finding kind %q (want one of %s)", *checkExplain, strings.Join(kinds, ", "))
			return 2
		}
		fmt.Println(text)
		return 0
	}
	ctx := withStopSignals()
	defer ctx.stop()
	opts := check.Options{
		Patterns:  c.flags.Args(),
		Run:       *checkRun,
		Skip:      *checkSkip,
		Timeout:   *checkTimeout,
		Hang:      *checkHang,
		Leaks:     *checkLeaks,
		Atomicity: *checkAtomicity,
		PerTest:   *checkEach,
		Replay:    *checkReplay,
		MaxEvents: *checkMax,
		GoFlags:   checkGoTest.buildFlags(),
		Test:      test,
		Shard:     shard,
		Cache:     true,
		Version:   version(),

		SolveTimeout: *checkSolve,
	}
	if err := checkExplore.apply(&opts); err != nil {
		errorf(c, "%v", err)
		return 2
	}
	mem, err := parseSize(*checkMaxMem)
	if err != nil {
		errorf(c, "-maxmem: %v", err)
		return 2
	}
	if opts.MaxEvents == 0 {
		// -maxmem's caps, as seer predict's: the events converted, at
		// BytesPerEvent each, then those the analysis's first phase
		// holds by what they cost (predict.EventsWithin).
		opts.MaxEvents = int(max(mem/record.BytesPerEvent, 1))
		opts.PrePassBudget = predict.PrePassShare(mem)
	}
	opts.HistoryBudget = check.HistoryBudget(mem)
	if opts.Procs = *checkProcs; opts.Procs == 0 {
		opts.Procs = check.DefaultProcs(mem)
	} else if opts.Procs < 0 {
		errorf(c, "-p %d: want a positive number of packages", opts.Procs)
		return 2
	}
	setMemoryLimit(mem)
	if *checkVerbose {
		opts.Stderr = os.Stderr
	}
	clearLive := func() {}
	if os.Getenv("SEER_TIMING") != "" {
		t0 := time.Now()
		opts.Progress = func(p check.Progress) {
			fmt.Fprintf(os.Stderr, "%6.2fs %s %s %d\n", time.Since(t0).Seconds(), p.Package, p.Stage, p.Events)
		}
	} else if width, tty := terminalWidth(os.Stderr); tty && format == "text" && !*checkVerbose {
		live := newLiveProgress(os.Stderr, width)
		opts.Progress, opts.Live, clearLive = live.update, true, live.clear
	} else if format == "text" {
		opts.Progress = func(p check.Progress) {
			if p.Stage == "running" {
				fmt.Fprintf(os.Stderr, "seer: recording %s\n", p.Package)
			}
		}
	}
	rep, err := check.Run(ctx, opts)
	clearLive() // the report follows on the terminal
	if sig := ctx.signal(); sig != nil {
		errorf(c, "stopped by %v", sig)
		return signalStatus(sig)
	}
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	return writeReport(os.Stdout, rep, format)
}

// outputFormat checks a report format flag (named flag: -format for
// check, -o for predict); asJSON is the -json alias.
func outputFormat(c *command, flag, format string, asJSON bool) (string, bool) {
	if asJSON {
		if format != report.FormatText && format != report.FormatJSON {
			errorf(c, "-json and %s %s disagree", flag, format)
			return "", false
		}
		return report.FormatJSON, true
	}
	if _, err := report.Format(format, nil, report.SARIFOptions{}); err != nil {
		errorf(c, "%v", err)
		return "", false
	}
	return format, true
}

// writeReport prints rep in format (text, json, sarif) and returns the exit
// status (see seer help check).
func writeReport(w io.Writer, rep *report.Report, format string) int {
	var sarif report.SARIFOptions
	if format == report.FormatSARIF {
		sarif = report.SARIFOptions{Root: moduleRoot(), Version: version()}
	}
	if r, err := report.Format(format, relToCwd(), sarif); err == nil {
		r.Render(w, rep)
	}
	return exitStatus(rep)
}

// moduleRoot is the directory of the go.mod that governs the current
// directory, or the current directory: SARIF names files relative to it.
func moduleRoot() string {
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return cwd
		}
	}
}

// Exit statuses of seer check and seer predict.
const (
	exitClean    = 0
	exitFindings = 1
	exitTool     = 2
	exitTests    = 3
)

// exitStatus is the exit status that rep gives seer check.
func exitStatus(rep *report.Report) int {
	status := exitClean
	if len(rep.Findings) > 0 {
		status = exitFindings
	}
	for _, t := range rep.Tests {
		if t.Outcome != "pass" && t.Outcome != "skip" {
			status = exitTests
		}
	}
	for _, p := range rep.Packages {
		switch p.Status {
		case "no-package":
			return exitTool
		case "fail", "build-error":
			status = exitTests
		}
	}
	return status
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// setMemoryLimit makes mem, less an eighth, seer's heap limit, unless
// GOMEMLIMIT sets one: the collector works harder as the heap nears the
// budget, instead of letting garbage grow with the live heap (GOGC). The
// eighth is left for what is not heap: seer's binary (binaryRoom), and
// the spool's pages being read in the rest (spoolRoom; the conversion
// reads through copies past it: trace.SetSpoolRoom). The limit grows by
// the pages of trace tables given back to the kernel while they are held
// (trace.SetMemoryLimit), which the runtime counts as heap.
func setMemoryLimit(mem int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		trace.SetMemoryLimit(mem - mem/8)
	}
	trace.SetSpoolRoom(spoolRoom(mem))
}

// binaryRoom is what seer's process keeps resident that neither the Go
// memory limit nor the spool's room counts: the pages of its binary and
// of the C library it maps. With the whole eighth of -maxmem left to
// the spool, a conversion whose heap neared its limit while the spool's
// pages filled their room passed a small -maxmem by about that much
// (bench/RESULTS.md, branch maxmem4).
const binaryRoom = 16 << 20

// spoolRoom is the spool's room under -maxmem mem: the eighth of it the
// Go memory limit leaves, less binaryRoom, and at least a sixteenth.
func spoolRoom(mem int64) int64 { return max(mem/8-binaryRoom, mem/16) }

// parseSize reads a size in bytes with an optional unit: KiB, MiB, GiB
// (or K, M, G, KB, MB, GB, all powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 512MiB, 2GiB)", s)
	}
	return int64(n * float64(mult)), nil
}

var (
	predictFlags    = flag.NewFlagSet("predict", flag.ContinueOnError)
	predictFormat   = predictFlags.String("format", "", "trace `format`: seer or std (default: by content)")
	predictJSON     = predictFlags.Bool("json", false, "print the report as JSON (the same as -o json)")
	predictOutput   = predictFlags.String("o", "text", "print the report as `text`, json (the document seer check -json prints) or sarif (SARIF 2.1.0); -format is the trace's format")
	predictStats    = predictFlags.Bool("stats", false, "print the funnel with times: candidates, lockset, then the layers that prove races (observed, shb, happens-before, sync-preserving, reversal, ucg, sat), deadlock, blocking and misuse")
	predictAnalysis = predictFlags.String("analysis", "seer", "analysis: seer, hb or shb")
	predictAtom     = predictFlags.Bool("atomicity", false, "also check each critical section as a transaction")
	predictSolve    = predictFlags.Duration("solvetimeout", 2*time.Second, "bound each SAT solve of the witness search by `d`; a candidate left undecided is not reported, and -stats counts it")
	predictMaxMem   = predictFlags.String("maxmem", "1GiB", "memory to keep the analysis within: seer's heap limit, a cap of `size` / "+strconv.Itoa(record.BytesPerEvent)+" bytes on the events read (fewer where their synchronisation and goroutines cost the analysis more), and a tenth of it for the log of the clock history (past it, only the SHB layer sees the whole trace); e.g. 512MiB, 4GiB")
	predictMax      = predictFlags.Int("maxevents", 0, "analyse at most the trace's first `n` events (-1: no cap; default: what -maxmem holds)")
)

var _ = register(&command{
	name:      "predict",
	usageLine: "predict [-format seer|std] [-o text|json|sarif] [-json] [-stats] [-analysis seer|hb|shb] [-solvetimeout d] [-maxmem size] [-maxevents n] FILE",
	short:     "predict concurrency bugs from a trace file",
	long: `
Predict reads a trace (recorded by seer record, or RAPID's STD text format)
and reports the data races, atomicity violations, deadlocks, leaks and
misuses that another schedule of the recorded run would show, each proved by a witness schedule that an
independent checker has replayed. For STD traces, file is empty and line is
the STD location number.

-format names the trace's format (by default, seer guesses it from the
content); -o names the report's: text, json (-json is the same) or sarif,
as seer check -format prints them.

The hb and shb analyses are baselines for comparison: they report what
their relation leaves unordered, without witnesses.

-maxmem bounds the analysis's memory. Most of it follows the trace's size:
a trace of more events than -maxmem holds (` + strconv.Itoa(record.BytesPerEvent) + ` bytes an event, as seer
check caps a run, or fewer where the trace's synchronisation events and
goroutines cost the analysis more) is analysed up to that many, the
prefix of the run a recording stopped there would have kept, and seer
predict says so (-maxevents sets the cap itself). The clock history that every layer after schedulable happens-before
reads grows with how many goroutines each event learns of: thousands of
goroutines that all talk to all raise tens of components at every event.
If the history's log outgrows a tenth of -maxmem, the races schedulable
happens-before proves are still reported from the whole trace, the other
findings come from the events before that point, and seer predict says so.

The exit status is 0 when there are no findings, 1 when there are, 2 for
usage errors and bad input (an empty file, data in neither format, a trace
that does not read), and 128+n when stopped by signal n. A seer trace cut
short (its recording was killed) is analysed up to its last complete event,
its findings are printed, and the status is 2 whatever they are, since the
rest of the run was never seen.`,
	flags: predictFlags,
	run:   runPredict,
})

func runPredict(c *command, args []string) int {
	if !c.parse(args) {
		return 2
	}
	if c.flags.NArg() != 1 {
		errorf(c, "usage: seer %s", c.usageLine)
		return 2
	}
	format, ok := outputFormat(c, "-o", *predictOutput, *predictJSON)
	if !ok {
		return 2
	}
	mem, err := parseSize(*predictMaxMem)
	if err != nil {
		errorf(c, "-maxmem: %v", err)
		return 2
	}
	setMemoryLimit(mem)
	limit := *predictMax
	if limit == 0 {
		limit = int(max(mem/record.BytesPerEvent, 1))
	}
	t, more, err := trace.ReadFileFormatMax(c.flags.Arg(0), *predictFormat, max(limit, 0))
	var cut *trace.TruncatedError
	if err != nil && (!errors.As(err, &cut) || len(t.Events) == 0) {
		errorf(c, "%v", err)
		return 2
	}
	costly := false // capped by what its events cost the analysis
	if *predictMax == 0 {
		if n := max(predict.EventsWithin(t, predict.PrePassShare(mem)), 1); n < len(t.Events) {
			// Cut in place: the tail's pages are given back, as seer
			// check cuts a run by cost (check.cutByCost).
			t.KeepPrefix(n)
			limit, more, cut, costly = n, true, nil, true
		}
	}
	if cut != nil {
		errorf(c, "%v: analysing those %d events", err, len(t.Events))
	}
	switch {
	case more && *predictMax > 0:
		errorf(c, "%s holds more than -maxevents %d events: the findings are those of its first %d (the run up to there)", c.flags.Arg(0), limit, limit)
	case more && costly:
		errorf(c, "%s holds more events than -maxmem %s holds (%d, by what its events cost the analysis: synchronisation and goroutines cost more than other events): the findings are those of its first %d (the run up to there); raise -maxmem or -maxevents to analyse more", c.flags.Arg(0), *predictMaxMem, limit, limit)
	case more:
		errorf(c, "%s holds more events than -maxmem %s holds (%d, at %d bytes an event): the findings are those of its first %d (the run up to there); raise -maxmem or -maxevents to analyse more", c.flags.Arg(0), *predictMaxMem, limit, record.BytesPerEvent, limit)
	case t.Header.Capped > 0:
		errorf(c, "%s holds the first %d events of its run: the recording stopped at seer's event cap (or its spool filled) while the run went on; the findings are those of that part of the run", c.flags.Arg(0), t.Header.Capped)
	}
	ctx := withStopSignals()
	defer ctx.stop()
	var stats predict.Stats
	rep, err := check.Predict(ctx, t, check.PredictOptions{Atomicity: *predictAtom, Analysis: *predictAnalysis, Stats: &stats,
		SolveTimeout: *predictSolve, HistoryBudget: check.HistoryBudget(mem)})
	if sig := ctx.signal(); sig != nil {
		errorf(c, "stopped by %v", sig)
		return signalStatus(sig)
	}
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	if *predictStats {
		stats.Print(os.Stderr)
	}
	if stats.HistoryCut > 0 {
		errorf(c, "%s", check.HistoryCutNote(stats.HistoryCut, len(t.Events), "trace"))
	}
	for _, row := range stats.Stages {
		if row.MisuseStopped > 0 {
			errorf(c, "%s", check.MisuseStopNote(row.MisuseStopped))
		}
	}
	status := writeReport(os.Stdout, rep, format)
	if cut != nil {
		errorf(c, "%s is truncated: the findings are those of its first %d events only", c.flags.Arg(0), len(t.Events))
		return 2
	}
	return status
}
