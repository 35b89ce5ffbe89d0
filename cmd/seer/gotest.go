// This file implements go test's flags on seer check and seer record:
// the build flags that reach the build of the test binary (-tags,
// -ldflags, -gcflags, -asmflags, -mod, -modfile), the test flags that
// reach the test binary (-short, -failfast, -parallel, -cpu, -count, and
// what follows -args), GOFLAGS as go test reads it, and the refusal, by
// name, of the flags of go test that seer cannot honour.

package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/seer-tools/seer/predict/check"
)

// goTestFlags are go test's flags on one of seer's flag sets.
type goTestFlags struct {
	fs                                             *flag.FlagSet
	tags, ldflags, gcflags, asmflags, mod, modfile string
	short, failfast                                bool
	count, parallel                                int
	cpu                                            string
	args                                           []string // after -args
}

// addGoTestFlags defines go test's flags on fs.
func addGoTestFlags(fs *flag.FlagSet) *goTestFlags {
	g := &goTestFlags{fs: fs}
	fs.StringVar(&g.tags, "tags", "", "build tags, as for go test: a comma-separated `list`")
	fs.StringVar(&g.ldflags, "ldflags", "", "arguments for the linker, as for go test")
	fs.StringVar(&g.gcflags, "gcflags", "", "arguments for the compiler, as for go test")
	fs.StringVar(&g.asmflags, "asmflags", "", "arguments for the assembler, as for go test")
	fs.StringVar(&g.mod, "mod", "", "module download `mode` (readonly, vendor or mod), as for go test")
	fs.StringVar(&g.modfile, "modfile", "", "an alternative go.mod `file`, as for go test")
	fs.BoolVar(&g.short, "short", false, "tell long-running tests to shorten their run time (testing.Short)")
	fs.BoolVar(&g.failfast, "failfast", false, "start no new test after the first failure (nor another run of the package)")
	fs.IntVar(&g.count, "count", 0, "record `n` runs of each package and unite their findings (an explicit -count, -count=1 too, runs again rather than answering from the cache)")
	fs.IntVar(&g.parallel, "parallel", 0, "run at most `n` t.Parallel tests at once (default GOMAXPROCS)")
	fs.StringVar(&g.cpu, "cpu", "", "record a run of each package for each GOMAXPROCS value of the comma-separated `list`")
	return g
}

// refusedFlags are the flags of go test that seer cannot honour, with
// why: seer refuses them by name rather than ignore them.
var refusedFlags = map[string]string{
	"bench":                "seer records tests, not benchmarks",
	"benchtime":            "seer records tests, not benchmarks",
	"benchmem":             "seer records tests, not benchmarks",
	"fuzz":                 "seer records tests, not fuzzing",
	"fuzztime":             "seer records tests, not fuzzing",
	"fuzzminimizetime":     "seer records tests, not fuzzing",
	"cover":                "the test binary is built for recording, not coverage",
	"covermode":            "the test binary is built for recording, not coverage",
	"coverpkg":             "the test binary is built for recording, not coverage",
	"coverprofile":         "the test binary is built for recording, not coverage",
	"cpuprofile":           "profiles would be of the recording run",
	"memprofile":           "profiles would be of the recording run",
	"memprofilerate":       "profiles would be of the recording run",
	"blockprofile":         "profiles would be of the recording run",
	"blockprofilerate":     "profiles would be of the recording run",
	"mutexprofile":         "profiles would be of the recording run",
	"mutexprofilefraction": "profiles would be of the recording run",
	"trace":                "the execution tracer would trace the recording run",
	"outputdir":            "seer writes no profiles",
	"msan":                 "seer builds with -race, which excludes it",
	"asan":                 "seer builds with -race, which excludes it",
	"trimpath":             "seer maps the recorded file names to your source",
	"compiler":             "seer builds with gc, whose -race it records",
	"gccgoflags":           "seer builds with gc, whose -race it records",
	"buildmode":            "seer builds a test binary",
	"linkshared":           "seer builds a test binary",
	"overlay":              "seer reads your source as it is on disk",
	"c":                    "seer builds its test binaries itself (seer record writes the trace)",
	"o":                    "seer builds its test binaries itself",
	"exec":                 "seer runs the test binary under its recorder",
	"i":                    "go test no longer has it either",
	"list":                 "seer records tests (go test -list lists them)",
	"vet":                  "seer does not run go vet",
	"shuffle":              "not yet: seer records the tests in their order",
	"fullpath":             "seer prints its own report",
	"benchmarks":           "seer records tests, not benchmarks",
}

// splitArgs splits args at -args (or --args), as go test does: what
// follows it goes to the test binary.
func splitArgs(args []string) (flags, binary []string) {
	for i, a := range args {
		if a == "-args" || a == "--args" {
			return args[:i], append([]string{}, args[i+1:]...)
		}
	}
	return args, nil
}

// flagName returns the name of the flag that arg sets ("" if arg is not
// a flag), as go test accepts it: -name, --name, -name=value, and the
// test binary's own spelling -test.name.
func flagName(arg string) string {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return ""
	}
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, _ = strings.Cut(name, "=")
	return strings.TrimPrefix(name, "test.")
}

// refuse returns the error for the first flag of args that seer cannot
// honour, or nil; from names where the flags came from ("" for the
// command line, "GOFLAGS"). A flag that fs defines is seer's (seer record
// -o names the trace file).
func refuse(fs *flag.FlagSet, args []string, from string) error {
	for _, a := range args {
		name := flagName(a)
		if why, ok := refusedFlags[name]; ok && fs.Lookup(name) == nil {
			if from != "" {
				return fmt.Errorf("%s: -%s is a flag of go test that seer cannot honour: %s", from, name, why)
			}
			return fmt.Errorf("-%s is a flag of go test that seer cannot honour: %s", name, why)
		}
	}
	return nil
}

// parseGoTest parses args (a command's arguments) on c's flags: the
// arguments after -args are kept for the test binary, a flag of go test
// that seer cannot honour is refused by name, and GOFLAGS's test flags
// apply where the command line does not set them (its build flags reach
// the go command through the environment, which reads them itself). It
// returns false after printing the error.
func (g *goTestFlags) parse(c *command, args []string) bool {
	args, g.args = splitArgs(args)
	if err := refuse(g.fs, args, ""); err != nil {
		errorf(c, "%v", err)
		return false
	}
	if !c.parse(args) {
		return false
	}
	if err := g.fromGOFLAGS(os.Getenv("GOFLAGS")); err != nil {
		errorf(c, "%v", err)
		return false
	}
	return true
}

// goflagsTest are the flags of go test that seer takes from GOFLAGS
// itself: the test binary's, and go test's -p.
var goflagsTest = map[string]bool{
	"short": true, "failfast": true, "count": true, "cpu": true, "parallel": true,
	"run": true, "skip": true, "timeout": true, "v": true, "p": true,
}

// fromGOFLAGS applies goflags (the value of GOFLAGS: space-separated
// flags, as the go command reads it) to the flags that the command line
// did not set.
func (g *goTestFlags) fromGOFLAGS(goflags string) error {
	fields := strings.Fields(goflags)
	if err := refuse(g.fs, fields, "GOFLAGS"); err != nil {
		return err
	}
	set := map[string]bool{}
	g.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, f := range fields {
		name := flagName(f)
		if name == "" {
			return fmt.Errorf("GOFLAGS: %q is not a flag (want -name or -name=value)", f)
		}
		if !goflagsTest[name] || set[name] || g.fs.Lookup(name) == nil {
			continue
		}
		_, value, ok := strings.Cut(f, "=")
		if !ok {
			value = "true" // a bool flag, as the go command allows
		}
		if err := g.fs.Set(name, value); err != nil {
			return fmt.Errorf("GOFLAGS: -%s: %v", name, err)
		}
	}
	return nil
}

// buildFlags are the go command's flags for the build of the test binary.
func (g *goTestFlags) buildFlags() []string {
	var out []string
	for _, f := range []struct{ name, value string }{
		{"tags", g.tags}, {"ldflags", g.ldflags}, {"gcflags", g.gcflags},
		{"asmflags", g.asmflags}, {"mod", g.mod}, {"modfile", g.modfile},
	} {
		if f.value != "" {
			out = append(out, "-"+f.name+"="+f.value)
		}
	}
	return out
}

// testFlags are the flags for the test binary, as check takes them.
func (g *goTestFlags) testFlags() (check.TestFlags, error) {
	t := check.TestFlags{Short: g.short, Failfast: g.failfast, Parallel: g.parallel, Count: g.count, Args: g.args}
	set := false
	g.fs.Visit(func(f *flag.Flag) { set = set || f.Name == "count" })
	if set && g.count < 1 {
		return t, fmt.Errorf("-count %d: want a positive number of runs", g.count)
	}
	if g.cpu != "" {
		for _, v := range strings.Split(g.cpu, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				return t, fmt.Errorf("-cpu %q: want a comma-separated list of positive numbers", g.cpu)
			}
			t.CPU = append(t.CPU, n)
		}
	}
	return t, t.Validate()
}
