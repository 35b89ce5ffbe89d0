// This file implements `seer record` and `seer trace`.

package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

var (
	recordFlags   = flag.NewFlagSet("record", flag.ContinueOnError)
	recordOut     = recordFlags.String("o", "", "trace file to write (default: seer.trace)")
	recordRun     = recordFlags.String("run", "", "run only the tests matching `regexp`")
	recordSkip    = recordFlags.String("skip", "", "do not run the tests matching `regexp`")
	recordTimeout = recordFlags.Duration("timeout", 10*time.Minute, "stop a test run after `d`")
	recordExplore = addExploreFlags(recordFlags)
	recordGoTest  = addGoTestFlags(recordFlags)
)

var _ = register(&command{
	name:      "record",
	usageLine: "record [-o file] [-run regexp] [-skip regexp] [-timeout d] [-explore n] [-explore-seed s] [go test's build and test flags] [package] [-args ...]",
	short:     "record a run of a package's tests as a trace",
	long: `
Record builds the package's test binary with -race against seer's recording
runtime (never touching your tree, go.mod, GOROOT or GOCACHE), runs the tests
selected by -run, passes their output through to standard error, and writes
one trace file. A test that fails, panics, times out, exits early or is
killed still leaves a trace of everything it did before.

go test's build flags (-tags, -ldflags, -gcflags, -asmflags, -mod,
-modfile) reach the build, and its test flags (-short, -failfast,
-parallel, one -cpu value, and what follows -args) the test binary;
GOFLAGS's test flags apply where the command line sets none. -count and
-cpu with more than one run are seer check's (seer record writes one
trace), and a flag of go test that seer cannot honour is refused by name.

Build errors are printed as file:line:col: message.

With -explore n, the tests are run up to n more times under schedules that
seer's runtime steers (as seer check -explore does, with the strategies
pct, select and partner, each run planned from the one before), and each
run is written next to the first: seer.trace, seer.explore1.trace, ...
The runs stop early when several in a row cover nothing new; the seed is
printed, and -explore-seed gives the same steering again.

The exit status is 0 when the trace is written and the tests passed, 3 when
it is written but a test failed, panicked, timed out, exited early or was
killed, or when the package does not build, 2 for usage or tool errors, and
128+n when seer was stopped by signal n (SIGINT, SIGTERM, SIGHUP), after
stopping the test and removing its temporary files.`,
	flags: recordFlags,
	run:   runRecord,
})

func runRecord(c *command, args []string) int {
	if !recordGoTest.parse(c, args) {
		return 2
	}
	test, err := recordGoTest.testFlags()
	if err == nil && (test.Count > 1 || len(test.CPU) > 1) {
		err = fmt.Errorf("-count %d -cpu %s would record more than one run, and seer record writes one trace: use seer check, or one -cpu value and no -count", test.Count, recordGoTest.cpu)
	}
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	cpu := 0
	if len(test.CPU) == 1 {
		cpu = test.CPU[0]
	}
	if c.flags.NArg() > 1 {
		errorf(c, "takes at most one package")
		return 2
	}
	ctx := withStopSignals()
	defer ctx.stop()
	out := *recordOut
	if out == "" {
		out = "seer.trace"
	}
	ropts := record.RecordOptions{
		Package: c.flags.Arg(0),
		Run:     *recordRun,
		Skip:    *recordSkip,
		Timeout: *recordTimeout,
		Output:  out,
		Stderr:  os.Stderr,
		GoFlags: recordGoTest.buildFlags(),

		TestFlags: test.RunFlags(cpu),
		Args:      test.Args,
	}
	var steer *check.Steerer
	if *recordExplore.runs != 0 {
		var opts check.Options
		if err := recordExplore.apply(&opts); err != nil {
			errorf(c, "%v", err)
			return 2
		}
		if slices.Contains(opts.ExploreStrategies, report.StrategyFindings) {
			errorf(c, "-explore-strategies: findings needs seer check's analysis")
			return 2
		}
		steer = check.NewSteerer(opts.ExploreSeed, opts.ExploreStrategies)
		ropts.Replayable = true // plans are made from positions
	}
	res, err := recordRuns(ctx, ropts, steer, *recordExplore.runs)
	if sig := ctx.signal(); sig != nil {
		errorf(c, "stopped by %v", sig)
		return signalStatus(sig)
	}
	if err != nil {
		var bf *gocmd.BuildFailure
		if errors.As(err, &bf) {
			for _, e := range bf.Errors {
				fmt.Fprintln(os.Stderr, e)
			}
			if len(bf.Errors) == 0 {
				fmt.Fprint(os.Stderr, bf.Output)
			}
			errorf(c, "%s does not build", bf.Package)
			return exitTests
		}
		errorf(c, "%v", err)
		return exitTool
	}
	how := res.Outcome.Result
	if res.Outcome.Message != "" {
		how += ": " + res.Outcome.Message
	}
	fmt.Fprintf(os.Stderr, "seer: recorded %d events of %s (%s) in %s\n", res.Events, res.Package, how, res.Path)
	if res.Cut {
		fmt.Fprintf(os.Stderr, "seer: the run made more events: the trace holds the first %d\n", res.Events)
	}
	if res.Outcome.Result != "pass" {
		return exitTests
	}
	return exitClean
}

var _ = register(&command{
	name:      "trace",
	usageLine: "trace dump [-full] [-all] FILE | trace export -format std FILE",
	short:     "print or export a trace",
	long: `
Trace dump prints one event per line: sequence number, goroutine, operation
in Go words (read, write, lock, unlock, rlock, runlock, send, recv, close, go,
start, end, wait, signal, broadcast, add, done, atomic-load, ...), the object,
and file:line of the user-code frame nearest the event. Events made entirely
outside user code are left out unless -all is given.

Trace export -format std writes RAPID's STD text format (T1|r(V5)|12).`,
	flags: flag.NewFlagSet("trace", flag.ContinueOnError),
	run:   runTrace,
})

func runTrace(c *command, args []string) int {
	if len(args) == 0 {
		c.usage(os.Stderr)
		return 2
	}
	fs := flag.NewFlagSet("trace "+args[0], flag.ContinueOnError)
	full := fs.Bool("full", false, "print absolute file names")
	all := fs.Bool("all", false, "include events outside user code")
	format := fs.String("format", "std", "export format (std)")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
		errorf(c, "usage: seer %s", c.usageLine)
		return 2
	}
	t, err := trace.ReadFile(fs.Arg(0))
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	if t.Truncated {
		fmt.Fprintf(os.Stderr, "seer trace: %s is truncated: showing its %d complete events\n", fs.Arg(0), len(t.Events))
	}
	if t.Header.Capped > 0 {
		fmt.Fprintf(os.Stderr, "seer trace: %s holds the first %d events of its run: the recording stopped at seer's event cap (or its spool filled)\n", fs.Arg(0), t.Header.Capped)
	}
	switch args[0] {
	case "dump":
		err = trace.Dump(os.Stdout, t, trace.DumpOptions{FullPaths: *full, All: *all})
	case "export":
		if *format != "std" {
			errorf(c, "unknown export format %q (want std)", *format)
			return 2
		}
		err = trace.WriteSTD(os.Stdout, t)
	default:
		errorf(c, "unknown subcommand %q (want dump or export)", args[0])
		return 2
	}
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	return 0
}
