// This file implements go test's test-binary flags for Run (-short,
// -failfast, -parallel, -cpu, -count, -args) and the union of the findings
// of a package's several runs: -count n records n runs and -cpu 1,4 a run
// per value, as go test runs each test n times and once per value.

package check

import (
	"fmt"
	"strconv"

	"github.com/seer-tools/seer/predict/report"
)

// TestFlags are the flags of go test that reach the test binary, with go
// test's meaning. The zero value is go test's default.
type TestFlags struct {
	Short    bool // -short: testing.Short() reports true
	Failfast bool // -failfast: no test starts after the first failure
	// Parallel is -parallel n: how many t.Parallel tests run at once
	// (0: the test binary's default, GOMAXPROCS).
	Parallel int
	// CPU is -cpu 1,4: a run of each package per value, with GOMAXPROCS
	// set to it (nil: one run with the default).
	CPU []int
	// Count is -count n: n runs of each package (0 means 1), whose
	// findings are united. Unlike go test, which runs each test n times
	// in one process, seer records each run on its own, so that each
	// trace holds one schedule of each test and stays as small as one.
	Count int
	// Args are passed to the test binary after its flags (go test -args).
	Args []string
}

// RunFlags are the test binary's flags for one run with GOMAXPROCS cpu (0:
// the default), before the run's -test.run and -test.skip.
func (f *TestFlags) RunFlags(cpu int) []string {
	var args []string
	if f.Short {
		args = append(args, "-test.short")
	}
	if f.Failfast {
		args = append(args, "-test.failfast")
	}
	if f.Parallel > 0 {
		args = append(args, "-test.parallel="+strconv.Itoa(f.Parallel))
	}
	if cpu > 0 {
		args = append(args, "-test.cpu="+strconv.Itoa(cpu))
	}
	return args
}

// A binaryRun is one run of a package's test binary: which tests (the
// regexp of -test.run) and the test binary's flags before them.
type binaryRun struct {
	run   string
	flags []string
}

// runsOf expands the runs that select tests (one, or one per test with
// Options.PerTest) by -cpu and -count: each selection is run Count times
// with each CPU value, in go test's order (cpu outermost).
func (f *TestFlags) runsOf(selections []string) []binaryRun {
	cpus := f.CPU
	if len(cpus) == 0 {
		cpus = []int{0}
	}
	count := max(f.Count, 1)
	var runs []binaryRun
	for _, cpu := range cpus {
		for range count {
			for _, sel := range selections {
				runs = append(runs, binaryRun{run: sel, flags: f.RunFlags(cpu)})
			}
		}
	}
	return runs
}

// Validate says what is wrong with the flags, if anything.
func (f *TestFlags) Validate() error {
	if f.Count < 0 {
		return fmt.Errorf("-count %d: want a positive number of runs", f.Count)
	}
	if f.Parallel < 0 {
		return fmt.Errorf("-parallel %d: want a positive number of tests", f.Parallel)
	}
	for _, c := range f.CPU {
		if c <= 0 {
			return fmt.Errorf("-cpu %d: want positive GOMAXPROCS values", c)
		}
	}
	return nil
}

// uniteFindings unites the findings of several runs of one package: a
// finding that more than one run shows (findingKey, as the exploration
// unites its runs') is reported once, with the counts
// added, and observed if any run observed it (its witness is then that
// run's, which needs no reordering); otherwise the first run's stands,
// with its witness. Each witness is of the run it came from, and was
// checked against that run.
func uniteFindings(found []report.Finding) []report.Finding {
	at := map[string]int{}
	var out []report.Finding
	for _, f := range found {
		k := findingKey(&f)
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, f)
			continue
		}
		count := out[i].Count + f.Count
		if out[i].Predicted && !f.Predicted {
			out[i] = f
		}
		out[i].Count = count
	}
	return out
}

// outcomeRank orders test outcomes from best to worst, for uniting one
// test's outcomes over several runs: the worst stands.
var outcomeRank = map[string]int{"pass": 0, "skip": 1, "not-run": 2, "fail": 3, "exit": 4, "timeout": 5, "panic": 6, "killed": 7}

// uniteTests unites the tests of several runs of one package: a test run
// more than once is listed once, with its worst outcome, every run's
// errors and leaks, and the events of all its runs.
func uniteTests(tests []report.Test) []report.Test {
	at := map[string]int{}
	var out []report.Test
	for _, t := range tests {
		i, ok := at[t.Name]
		if !ok {
			at[t.Name] = len(out)
			out = append(out, t)
			continue
		}
		u := &out[i]
		if outcomeRank[t.Outcome] > outcomeRank[u.Outcome] {
			u.Outcome = t.Outcome
		}
		u.Events += t.Events
		u.Errors = append(u.Errors, t.Errors...)
		if u.Output == nil {
			u.Output = t.Output // the first run that did not pass says why
		}
		u.Leaked = append(u.Leaked, t.Leaked...)
	}
	return out
}
