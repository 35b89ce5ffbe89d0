// Command seerbench times seer check against go test -race on the same
// test suites, interleaved, and prints a table of wall times, peak memory
// and exit statuses (issue 13). Run it inside the bench module:
//
//	go run ./cmd/seerbench [-suites race,lru,...] [-n 3] [-json] [-seer path]
//
// See bench/README.md for the suites and the targets.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/seer-tools/seer/bench/internal/harness"
	"github.com/seer-tools/seer/bench/internal/suites"
)

var (
	suiteList  = flag.String("suites", "all", "comma-separated `list` of suites to run (race, lru, groupcache, xsync, syncmap, cmap, ants, pond, stress-chan, stress-chan-3m, stress-chan-100k, stress-ring, stress-tls, stress-lock) or all")
	rounds     = flag.Int("n", 3, "timed `rounds`; each runs go test -race then seer check")
	asJSON     = flag.Bool("json", false, "print the results as JSON instead of a table")
	seerPath   = flag.String("seer", "", "seer binary to time (default: build one from -repo)")
	repoDir    = flag.String("repo", "", "seer repository to build seer from (default: the bench module's parent)")
	timeout    = flag.Duration("timeout", 20*time.Minute, "test timeout passed to both tools (-timeout), per package")
	warmup     = flag.Bool("warmup", true, "run each side once, untimed, before the timed rounds (warms the build caches)")
	verbose    = flag.Bool("v", false, "copy the tools' output to standard error")
	keep       = flag.Bool("keep", false, "keep the scratch directory (generated modules, the seer binary)")
	chanGs     = flag.Int("chan-goroutines", 1000, "stress-chan: producer `goroutines`")
	chanChans  = flag.Int("chan-channels", 100, "stress-chan: `channels`, each with a consumer goroutine")
	chanOps    = flag.Int("chan-ops", 100_000, "stress-chan: channel `operations` (sends plus receives)")
	ringGs     = flag.Int("ring-goroutines", 1000, "stress-ring: ring `members`, each starting a short-lived goroutine a round")
	ringRounds = flag.Int("ring-rounds", 50, "stress-ring: `rounds` of token passing")
	tlsShakes  = flag.Int("tls-handshakes", 20, "stress-tls: TLS `handshakes` (about half a million events each)")
	lockIters  = flag.Int("lock-iters", 25_000_000, "stress-lock: Lock/n++/Unlock `iterations` per goroutine")
	fromJSON   = flag.String("table", "", "print the table of earlier -json runs' `files` (comma-separated) and exit")
	sampleRate = flag.Duration("sample", 50*time.Millisecond, "interval between /proc samples of the process tree's RSS")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./cmd/seerbench [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "seerbench: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if *fromJSON != "" {
		return printSaved(*fromJSON)
	}
	startLoad := harness.LoadAverage()
	moduleDir, err := benchModuleDir()
	if err != nil {
		return err
	}
	all := suites.All(suites.Config{
		ModuleDir: moduleDir,
		Chan:      suites.ChanParams{Goroutines: *chanGs, Channels: *chanChans, Ops: *chanOps},
		Lock:      suites.LockParams{Iters: *lockIters},
		Ring:      suites.RingParams{Goroutines: *ringGs, Rounds: *ringRounds},
		TLS:       suites.TLSParams{Handshakes: *tlsShakes},
	})
	selected, err := suites.Select(all, *suiteList)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "seerbench-")
	if err != nil {
		return err
	}
	if *keep {
		logf("scratch directory %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	seer := *seerPath
	if seer == "" {
		repo := *repoDir
		if repo == "" {
			repo = filepath.Dir(moduleDir)
		}
		seer = filepath.Join(tmp, "seer")
		logf("building seer from %s", repo)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", seer, "./cmd/seer")
		cmd.Dir = repo
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building seer: %v", err)
		}
	} else if seer, err = filepath.Abs(seer); err != nil {
		return err
	}

	var results []harness.Result
	for _, s := range selected {
		if ctx.Err() != nil {
			break
		}
		results = append(results, runSuite(ctx, s, seer, filepath.Join(tmp, s.Name)))
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report{Date: time.Now().UTC(), LoadStart: startLoad, LoadEnd: harness.LoadAverage(), Rounds: *rounds, Results: results})
	}
	fmt.Printf("seerbench: %d round(s); load average %s at the start, %s at the end (2 cores or more busy means noisy timings)\n\n",
		*rounds, startLoad, harness.LoadAverage())
	return harness.WriteTable(os.Stdout, results)
}

// printSaved prints one table of the suites of saved -json reports.
func printSaved(files string) error {
	var results []harness.Result
	for _, file := range strings.Split(files, ",") {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var rep report
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		fmt.Printf("seerbench: %s: %d round(s) at %s; load average %s at the start, %s at the end\n",
			file, rep.Rounds, rep.Date.Format(time.RFC3339), rep.LoadStart, rep.LoadEnd)
		results = append(results, rep.Results...)
	}
	fmt.Println()
	return harness.WriteTable(os.Stdout, results)
}

// report is the -json document.
type report struct {
	Date      time.Time        `json:"date"`
	LoadStart string           `json:"load_average_start"` // /proc/loadavg: 1, 5, 15 minutes
	LoadEnd   string           `json:"load_average_end"`
	Rounds    int              `json:"rounds"`
	Results   []harness.Result `json:"results"`
}

// runSuite prepares s in scratch and runs both tools on it: an untimed
// warm-up each, then -n rounds of go test -race followed by seer check.
func runSuite(ctx context.Context, s suites.Suite, seer, scratch string) harness.Result {
	res := harness.Result{Suite: s.Name, Desc: s.Desc, Target: s.Target}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		res.Err = err.Error()
		return res
	}
	dir, pkgs, err := s.Prepare(scratch)
	if err != nil {
		res.Err = "prepare: " + err.Error()
		return res
	}
	common := []string{"-timeout", timeout.String()}
	if s.Skip != "" {
		common = append(common, "-skip", s.Skip)
	}
	// -count=1 on both sides: each round records and analyses again,
	// rather than answering from seer's cache (or go test's).
	res.GoTest = harness.Side{Tool: "go test -race", Dir: dir,
		Command: append(append([]string{"go", "test", "-race", "-count=1"}, common...), pkgs...)}
	res.Seer = harness.Side{Tool: "seer check", Dir: dir, Env: []string{"SEER_TIMING=1"},
		Command: append(append([]string{seer, "check", "-json", "-count=1"}, common...), pkgs...)}
	sides := []*harness.Side{&res.GoTest, &res.Seer}
	notes := []func(m harness.Measurement) string{
		func(m harness.Measurement) string { return harness.GoTestNote(append(m.Stdout, m.Stderr...)) },
		func(m harness.Measurement) string { return harness.SeerNote(m.Stdout, m.Stderr) },
	}
	logf("%s: %s", s.Name, s.Desc)
	if *warmup {
		for i, side := range sides {
			r := measure(ctx, side, notes[i])
			logf("%s: %s warm-up: %s", s.Name, side.Tool, describe(r))
		}
	}
	for round := 1; round <= *rounds && ctx.Err() == nil; round++ {
		for i, side := range sides {
			r := measure(ctx, side, notes[i])
			side.Runs = append(side.Runs, r)
			logf("%s: %s round %d/%d: %s", s.Name, side.Tool, round, *rounds, describe(r))
		}
	}
	return res
}

// measure runs side's command once.
func measure(ctx context.Context, side *harness.Side, note func(harness.Measurement) string) harness.Run {
	ctx, cancel := context.WithTimeout(ctx, *timeout+5*time.Minute)
	defer cancel()
	var tee io.Writer
	if *verbose {
		tee = os.Stderr
	}
	var env []string
	if len(side.Env) > 0 {
		env = append(os.Environ(), side.Env...)
	}
	m, err := harness.Measure(ctx, side.Dir, env, *sampleRate, tee, side.Command[0], side.Command[1:]...)
	r := harness.Run{Wall: m.Wall, MaxRSS: m.MaxRSS, TreeRSS: m.TreeRSS, TreeAnon: m.TreeAnon, Exit: m.Exit, Signal: m.Signal, Note: note(m)}
	if st, ok := harness.SeerStages(m.Stderr, m.Wall); ok {
		r.Stages = &st
	}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

func describe(r harness.Run) string {
	s := fmt.Sprintf("%s, maxrss %s, tree %s (anon %s), exit %d", harness.FormatDuration(r.Wall),
		harness.FormatBytes(r.MaxRSS), harness.FormatBytes(r.TreeRSS), harness.FormatBytes(r.TreeAnon), r.Exit)
	if r.Signal != "" {
		s += " (" + r.Signal + ")"
	}
	if r.Stages != nil {
		s += "; " + r.Stages.String()
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	if r.Err != "" {
		s += "; error: " + r.Err
	}
	return s
}

// benchModuleDir returns the directory of the bench module, which must be
// the main module of the current directory.
func benchModuleDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}}\t{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the bench module: %v", err)
	}
	path, dir, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if path != "github.com/seer-tools/seer/bench" {
		return "", errors.New("run seerbench inside the bench module (cd bench)")
	}
	return dir, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "seerbench: "+format+"\n", args...)
}
