// This file tests what seer check says about how tests ended, and its
// exit status: tests that exit early or time out, patterns that name no
// package, packages without tests, the summary line, grouped output. Each
// test runs the real seer binary on the real test packages of
// lifecycleModule.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

// TestCheckExitEarly: a test that calls os.Exit is named, so are the
// tests it kept from running, and the exit status says the tests failed.
func TestCheckExitEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := lifeDir(t)
	cmd, _ := seerCmd(t, dir, nil, "check", "./exit")
	out, stderr, code := runSeer(t, cmd)
	if code != 3 {
		t.Errorf("exit status %d, want 3\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"seer: example.com/life/exit.TestExit: exited early: the test binary exited with status 3 during TestExit",
		"seer: example.com/life/exit: 2 tests not run: the run ended before they started: TestAfter, TestAfterToo",
		"seer: example.com/life/exit: 4 tests (1 passed, 1 exited early, 2 not run), ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	cmd, _ = seerCmd(t, dir, nil, "check", "-json", "./exit")
	out, _, code = runSeer(t, cmd)
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 3 {
		t.Fatalf("-json: exit %d, %v\n%s", code, err, out)
	}
	got := map[string]string{}
	for _, tt := range rep.Tests {
		got[tt.Name] = tt.Outcome
	}
	want := map[string]string{"TestA": "pass", "TestExit": "exit", "TestAfter": "not-run", "TestAfterToo": "not-run"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if len(rep.Packages) != 1 || rep.Packages[0].Status != "fail" || rep.Packages[0].Outcomes["not-run"] != 2 {
		t.Errorf("packages: %+v", rep.Packages)
	}
}

// TestCheckTimeout: a test that times out is named, and the exit status
// says the tests failed.
func TestCheckTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := lifeDir(t)
	cmd, tmp := seerCmd(t, dir, nil, "check", "-timeout", "1s", "./sleep")
	out, stderr, code := runSeer(t, cmd)
	if code != 3 {
		t.Errorf("exit status %d, want 3\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"seer: example.com/life/sleep.TestSleep: timed out: test timed out after 1s",
		"seer: example.com/life/sleep: 1 test (1 timed out), ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	assertEmpty(t, tmp, "TMPDIR")
}

// TestCheckNothingToCheck: patterns that name no package, and a package
// without test files, are said to be so.
func TestCheckNothingToCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := lifeDir(t)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	for _, tc := range []struct {
		pattern string
		code    int
		want    string
	}{
		{"./nonexistent", 2, "seer: ./nonexistent: directory " + filepath.Join(dir, "nonexistent") + " does not exist"},
		{"./nonexistent/...", 2, "seer: ./nonexistent/...: pattern matched no packages"},
		{"./empty/...", 2, "seer: ./empty/...: pattern matched no packages"},
		{"./empty", 2, "seer: ./empty: no Go files in " + filepath.Join(dir, "empty")},
		{"./notests", 0, "seer: example.com/life/notests: no test files"},
	} {
		cmd, _ := seerCmd(t, dir, nil, "check", tc.pattern)
		out, stderr, code := runSeer(t, cmd)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%s: exit %d, want %d and %q\n%s%s", tc.pattern, code, tc.code, tc.want, out, stderr)
		}
		if strings.Contains(out, "does not build") {
			t.Errorf("%s: says it does not build:\n%s", tc.pattern, out)
		}
	}
}

// TestCheckOutputOnce: leaked goroutines are grouped by where they were
// created, and a run that reaches the event cap, or the events whose
// cost -maxmem holds, says so once, for the test that reached it.
func TestCheckOutputOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := lifeDir(t)
	cmd, _ := seerCmd(t, dir, nil, "check", "./leak")
	out, stderr, code := runSeer(t, cmd)
	want := "seer: example.com/life/leak.TestLeak: 74 goroutine(s) still running when the test ended, created at leak/l_test.go:9 (×73), leak/l_test.go:11\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d; output lacks %q:\n%s%s", code, want, out, stderr)
	}

	cmd, _ = seerCmd(t, dir, nil, "check", "-maxevents", "30000", "./busy")
	out, stderr, code = runSeer(t, cmd)
	if n := strings.Count(out, "cap of"); n != 1 || !strings.Contains(out, "seer: example.com/life/busy.TestBusy: the run reached seer's cap of") {
		t.Errorf("the cap is reported %d times, want once, for TestBusy:\n%s%s", n, out, stderr)
	}
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	// Its goroutines were running at the cut, not when it ended: neither
	// still running when it ended nor blocked for ever (the senders'
	// last events before the cut are sends that had not gone through).
	if strings.Contains(out, "still running") || strings.Contains(out, "leak") {
		t.Errorf("goroutines reported leaked at the cut:\n%s", out)
	}

	// Under a -maxmem whose event cap (record.BytesPerEvent an event)
	// TestBusy reaches, the run is cut sooner, where its events' cost to
	// the analysis (predict.EventsWithin: mostly channel and mutex
	// operations) passes -maxmem's share, as seer predict cuts a trace,
	// and the note says so rather than naming the cap. GOMEMLIMIT keeps
	// so small a -maxmem from becoming seer's heap limit.
	cmd, _ = seerCmd(t, dir, []string{"GOMEMLIMIT=off"}, "check", "-maxmem", "4MiB", "./busy")
	out, stderr, code = runSeer(t, cmd)
	const costly = "seer: example.com/life/busy.TestBusy: during this test, the run holds more events than -maxmem holds by what they cost the analysis"
	if n := strings.Count(out, "by what they cost"); n != 1 || !strings.Contains(out, costly) || strings.Contains(out, "cap of") {
		t.Errorf("-maxmem 4MiB: the cut by cost is reported %d times, want once, for TestBusy, and no cap:\n%s%s", n, out, stderr)
	}
	if code != 0 {
		t.Errorf("-maxmem 4MiB: exit %d, want 0", code)
	}
}
