// Package suites defines the test suites seerbench times: Go's own race
// tests, three libraries' test suites (module dependencies of the bench
// module, run from the module cache) and two generated stress tests.
package suites

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/seer-tools/seer/trace/racesuite"
)

// A Suite is a set of packages both tools test, in one directory.
type Suite struct {
	Name   string
	Desc   string
	Target float64 // seer check wall / go test -race wall must be at most this
	// Skip, if set, is passed as -skip to both tools.
	Skip string
	// Prepare returns the directory to run both tools in and the package
	// patterns; scratch is an empty directory of the suite's own.
	Prepare func(scratch string) (dir string, pkgs []string, err error)
}

// Config sizes the suites.
type Config struct {
	ModuleDir string // the bench module, whose dependencies hold the libraries
	Chan      ChanParams
	Lock      LockParams
}

// All returns every suite, in the order seerbench runs them by default.
func All(cfg Config) []Suite {
	lib := func(name, desc, pattern string) Suite {
		return Suite{Name: name, Desc: desc, Target: 3, Prepare: func(string) (string, []string, error) {
			return cfg.ModuleDir, []string{pattern}, nil
		}}
	}
	return []Suite{
		{
			Name:   "race",
			Desc:   "Go's race tests ($GOROOT/src/runtime/race/testdata, as trace/racesuite copies them)",
			Target: 2,
			// Two tests can end the process early, and with it the run:
			// TestRaceCrawl's map writes make the runtime throw
			// "concurrent map writes" in most recorded runs, and
			// TestRaceChanCloseSend's goroutine may close the channel
			// before the test sends on it, which panics (under both
			// tools: 36 of 300 runs of it alone under go test -race, on a
			// loaded machine). seer's own race-suite test skips both in
			// the one-run mode too.
			Skip: "^(TestRaceCrawl|TestRaceChanCloseSend)$",
			Prepare: func(scratch string) (string, []string, error) {
				if err := racesuite.Copy(scratch); err != nil {
					return "", nil, err
				}
				return scratch, []string{"."}, nil
			},
		},
		lib("lru", "github.com/hashicorp/golang-lru/v2 tests", "github.com/hashicorp/golang-lru/v2/..."),
		lib("groupcache", "github.com/golang/groupcache tests", "github.com/golang/groupcache/..."),
		lib("xsync", "golang.org/x/sync tests", "golang.org/x/sync/..."),
		{
			Name:   "stress-chan",
			Desc:   fmt.Sprintf("generated: %d goroutines, %d channels, %d channel operations", cfg.Chan.Goroutines, cfg.Chan.Channels, cfg.Chan.Ops),
			Target: 3,
			Prepare: func(scratch string) (string, []string, error) {
				return scratch, []string{"."}, writeModule(scratch, "chanstress_test.go", ChanTest(cfg.Chan))
			},
		},
		{
			Name:   "stress-lock",
			Desc:   fmt.Sprintf("generated: 2 goroutines × %d Lock/n++/Unlock", cfg.Lock.Iters),
			Target: 3,
			Prepare: func(scratch string) (string, []string, error) {
				return scratch, []string{"."}, writeModule(scratch, "lockstress_test.go", LockTest(cfg.Lock))
			},
		},
	}
}

// Select returns the suites named in the comma-separated list names ("" or
// "all" for every suite), in the list's order.
func Select(all []Suite, names string) ([]Suite, error) {
	if names == "" || names == "all" {
		return all, nil
	}
	var out []Suite
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, s := range all {
			if s.Name == n {
				out = append(out, s)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no suite %q (have %s)", n, strings.Join(Names(all), ", "))
		}
	}
	return out, nil
}

// Names lists the suites' names.
func Names(all []Suite) []string {
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
	}
	return names
}

// writeModule writes a one-package module (module seerstress) holding one
// test file into dir.
func writeModule(dir, file, src string) error {
	mod := "module seerstress\n\ngo " + goLanguageVersion() + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644)
}
