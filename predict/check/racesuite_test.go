// This file scores seer on the Go toolchain's own race tests
// ($GOROOT/src/runtime/race/testdata): every TestRace* test must have a
// finding and no TestNoRace* test may have one, on every run.

package check

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace/racesuite"
	"github.com/seer-tools/seer/trace/record"
)

// raceSuiteModule copies the race suite into a module (trace/racesuite).
func raceSuiteModule(t *testing.T) string {
	dir := t.TempDir()
	if err := racesuite.Copy(dir); err == racesuite.ErrMissing {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRaceSuite scores seer on the race suite in the two ways seer check
// records it: each test in a run of its own (-each), and all of them in
// one run (12 million events). A report on a TestNoRace* test fails it (a
// false warning is a seer bug), and so does a TestRace* test without one
// (a missed race; test by test, one missed in its run is run alone twice
// more and counts as found if either finds it: foundAlone). Tests the
// suite itself skips are not scored. It takes
// about two minutes; -short skips it. SEER_RACESUITE_RUNS sets how many
// test-by-test runs must agree (default 1).
func TestRaceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("records the toolchain's race suite: skipped in -short mode")
	}
	if _, err := record.PrepareToolchain(context.Background(), ""); err != nil {
		t.Skipf("cannot record here: %v", err)
	}
	dir := raceSuiteModule(t)
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("SEER_RACESUITE_RUNS")); err == nil && n > 0 {
		runs = n
	}
	var first map[string]bool
	var tests int
	for run := 0; run < runs; run++ {
		found, n := scoreRaceSuite(t, dir, true, "", fmt.Sprintf("test by test, run %d", run+1))
		if first == nil {
			first, tests = found, n
		} else if fmt.Sprint(first) != fmt.Sprint(found) {
			t.Errorf("run %d found races in other tests than run 1", run+1)
		}
	}
	// Two tests can end the process, and with it the run of all the
	// tests after them; test by test, that costs nothing. TestRaceCrawl's
	// goroutines write a map at once, which Go's runtime may stop with
	// "fatal error: concurrent map read and map write" (most runs under
	// the recorder, on two cores). TestRaceChanCloseSend's goroutine may
	// close the channel before the test sends on it, which panics: under
	// go test -race too, 36 of 300 runs of it alone on a loaded 2-core
	// machine.
	if _, n := scoreRaceSuite(t, dir, false, "^(TestRaceCrawl|TestRaceChanCloseSend)$", "in one run"); n != tests-2 {
		t.Errorf("in one run: %d tests ran, want %d: the run ended early", n, tests-2)
	}
}

// scoreRaceSuite checks the suite in dir, but for the tests skip
// matches, prints the scoreboard line and returns the tests with findings
// and the number of tests that ran.
func scoreRaceSuite(t *testing.T, dir string, perTest bool, skip, label string) (found map[string]bool, tests int) {
	start := time.Now()
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: 2 * time.Minute, PerTest: perTest, Skip: skip})
	if err != nil {
		t.Fatal(err)
	}
	found = map[string]bool{}
	kinds := map[report.Kind]int{}
	for _, f := range rep.Findings {
		found[f.Test] = true
		kinds[f.Kind]++
		if f.Kind != "race" {
			// The kinds other than races, one by one, to judge by hand.
			t.Logf("%s: %s %s (%s) at %s:%d", label, f.Test, report.Title(&f), report.Verdict(&f), filepath.Base(f.Accesses[0].File), f.Accesses[0].Line)
		}
	}
	t.Logf("%s: findings by kind %v", label, kinds)
	var names []string
	skipped := 0
	for _, tt := range rep.Tests {
		if tt.Outcome == "skip" {
			// t.Skip before doing anything (TestRaceRangeFuncIterator,
			// #72925): the race detector cannot report it either.
			skipped++
			continue
		}
		names = append(names, tt.Name)
	}
	sort.Strings(names)
	passed, failed := 0, 0
	for _, name := range names {
		want := strings.HasPrefix(name, "TestRace")
		if !want && !strings.HasPrefix(name, "TestNoRace") {
			continue
		}
		switch {
		case found[name] == want:
			passed++
		case want && perTest && foundAlone(t, dir, name):
			// A race test shows its race only if both goroutines reach
			// their accesses before the process exits, which a loaded
			// machine can deny a run of one test (the race detector's
			// too): a race missed in one run and found in a run of the
			// test alone is scored as found, and said so.
			t.Logf("%s: %s: missed in its run, found in a run of it alone", label, name)
			found[name] = true // so that SEER_RACESUITE_RUNS's runs compare it as found
			passed++
		case want:
			failed++
			t.Errorf("%s: missed race: %s", label, name)
		default:
			failed++
			// The whole finding, witness included, so that a report
			// that does not come back on the next run can still be
			// taken apart.
			var mine []report.Finding
			for _, f := range rep.Findings {
				if f.Test == name {
					mine = append(mine, f)
				}
			}
			js, _ := json.MarshalIndent(mine, "\t", "  ")
			t.Errorf("%s: false report: %s:\n\t%s", label, name, js)
		}
	}
	t.Logf("%s: %d tests, %d findings, %v", label, len(rep.Tests), len(rep.Findings), time.Since(start).Round(time.Second))
	fmt.Printf("race suite (%s): %d passed, %d failed (%d skipped by the suite itself)\n", label, passed, failed, skipped)
	return found, len(rep.Tests)
}

// foundAlone reports whether seer finds something in the race suite's
// test name in one of two more runs of it alone.
func foundAlone(t *testing.T, dir, name string) bool {
	for range 2 {
		rep, err := Run(context.Background(), Options{Dir: dir, Timeout: 2 * time.Minute, PerTest: true, Run: "^" + regexp.QuoteMeta(name) + "$"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.Test == name {
				return true
			}
		}
	}
	return false
}
