// Command pairtime times a command as a whole process, or two commands
// paired, the way bench/RESULTS.md quotes its paired figures.
//
//	pairtime [-n runs] [-warmup w] [-timeout s] [-vs 'B ARGS'] -- A ARGS
//
// Each command runs -warmup times untimed, then -n times counted; with
// -vs the two alternate (A B A B …), so that a drift of the machine's
// speed falls on both, and each figure's ratio A/B is taken pair by pair.
// For every figure it prints the minimum, median and maximum: user, sys
// and cpu (user+sys) seconds and wall seconds of the whole process tree
// the command waited for, and the peak resident set of its largest
// process (the kernel's ru_maxrss, as /usr/bin/time -v reports it).
// -timeout bounds the whole call: the command running at the bound is
// killed and the runs counted so far are printed.
// The commands are split as a shell splits words but get no shell;
// their output is discarded. The load average at the start and end is
// printed beside the figures: on a busy machine, read the ratios.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/seer-tools/seer/bench/internal/harness"
)

// figure is one measured quantity of a run.
type figure int

const (
	figUser figure = iota
	figSys
	figCPU
	figWall
	figPeak
	numFigures
)

var figNames = [numFigures]string{"user s", "sys s", "cpu s", "wall s", "peak MiB"}

// run is one counted run's figures and exit status.
type run struct {
	v    [numFigures]float64
	exit int
}

func main() {
	n := flag.Int("n", 5, "counted `runs` of each command")
	warmup := flag.Int("warmup", 1, "untimed `runs` of each command first")
	vs := flag.String("vs", "", "a second `command` (B), alternated with A; ratios are A/B")
	timeout := flag.Int("timeout", 100, "bound on the whole call, in `seconds`")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: pairtime [-n runs] [-warmup w] [-timeout s] [-vs 'B ARGS'] -- A ARGS\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || *n < 1 || *warmup < 0 || *timeout < 1 {
		flag.Usage()
		os.Exit(2)
	}
	cmds := [][]string{flag.Args()}
	if *vs != "" {
		b, err := splitWords(*vs)
		if err != nil || len(b) == 0 {
			fmt.Fprintf(os.Stderr, "pairtime: -vs: %v\n", cmpErr(err))
			os.Exit(2)
		}
		cmds = append(cmds, b)
	}
	fmt.Printf("load at start: %s\n", harness.LoadAverage())
	deadline := time.Now().Add(time.Duration(*timeout) * time.Second)
	for i := 0; i < *warmup; i++ {
		for _, c := range cmds {
			if _, err := measure(c, deadline); err != nil {
				fmt.Fprintf(os.Stderr, "pairtime: %v\n", err)
				os.Exit(2)
			}
		}
	}
	if time.Now().After(deadline) {
		fmt.Printf("the %d s bound ended the call in the warm-up\n", *timeout)
		os.Exit(3)
	}
	runs := make([][]run, len(cmds))
	counted := 0
	for ; counted < *n; counted++ {
		var pair []run
		for _, c := range cmds {
			r, err := measure(c, deadline)
			if err != nil {
				fmt.Fprintf(os.Stderr, "pairtime: %v\n", err)
				os.Exit(2)
			}
			pair = append(pair, r)
		}
		if time.Now().After(deadline) {
			break // the last pair was cut by the bound: not counted
		}
		for k, r := range pair {
			runs[k] = append(runs[k], r)
		}
	}
	fmt.Printf("load at end: %s\n", harness.LoadAverage())
	if counted < *n {
		fmt.Printf("the %d s bound ended the call after %d of %d counted runs\n", *timeout, counted, *n)
		if counted == 0 {
			os.Exit(3)
		}
	}
	names := []string{"A"}
	if len(cmds) > 1 {
		names = append(names, "B")
	}
	for k, c := range cmds {
		fmt.Printf("%s: %s (%d runs, exits %v)\n", names[k], strings.Join(c, " "), counted, exits(runs[k]))
	}
	fmt.Printf("%-10s %-3s %10s %10s %10s\n", "figure", "", "min", "median", "max")
	for f := figure(0); f < numFigures; f++ {
		for k := range cmds {
			printRow(figNames[f], names[k], column(runs[k], func(r run) float64 { return r.v[f] }))
		}
		if len(cmds) > 1 {
			ratios := make([]float64, counted)
			for i := range ratios {
				if b := runs[1][i].v[f]; b > 0 {
					ratios[i] = runs[0][i].v[f] / b
				}
			}
			printRow(figNames[f], "A/B", ratios)
		}
	}
}

// measure runs argv once and returns its figures; the command is
// killed at deadline.
func measure(argv []string, deadline time.Time) (run, error) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var r run
	if err != nil {
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			r.exit = ee.ExitCode()
		case ctx.Err() != nil && cmd.ProcessState != nil:
			r.exit = -1 // killed at the deadline
		default:
			return r, err
		}
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return r, fmt.Errorf("%s: no resource usage", argv[0])
	}
	r.v[figUser] = tv(ru.Utime)
	r.v[figSys] = tv(ru.Stime)
	r.v[figCPU] = r.v[figUser] + r.v[figSys]
	r.v[figWall] = wall.Seconds()
	r.v[figPeak] = float64(ru.Maxrss) / 1024 // KiB on Linux
	return r, nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func column(rs []run, f func(run) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func exits(rs []run) []int {
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = r.exit
	}
	return out
}

// printRow prints a figure's minimum, median and maximum.
func printRow(name, who string, vs []float64) {
	fmt.Printf("%-10s %-3s %10.3f %10.3f %10.3f\n", name, who, slices.Min(vs), harness.Median(vs), slices.Max(vs))
}

// splitWords splits s as a POSIX shell splits words, with single and
// double quotes and backslash escapes, and no expansion.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur bytes.Buffer
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func cmpErr(err error) error {
	if err == nil {
		return errors.New("empty command")
	}
	return err
}
