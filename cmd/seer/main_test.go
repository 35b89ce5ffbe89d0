// This file tests the seer command as a user runs it: the built binary,
// its output and its exit status.

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

var seerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seer-cmd-test-")
	if err != nil {
		panic(err)
	}
	seerBin = filepath.Join(dir, "seer")
	if out, err := exec.Command("go", "build", "-o", seerBin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// seer runs the binary in dir and returns stdout, stderr and the status.
func seer(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(seerBin, args...)
	cmd.Dir = dir
	return runSeer(t, cmd)
}

func TestUsage(t *testing.T) {
	if _, _, code := seer(t, "."); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	if _, stderr, code := seer(t, ".", "frobnicate"); code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := seer(t, ".", "check", "-nosuchflag"); code != 2 || !strings.Contains(stderr, "nosuchflag") {
		t.Errorf("bad flag: exit %d, stderr %q", code, stderr)
	}
	if out, _, code := seer(t, ".", "version"); code != 0 || !strings.HasPrefix(out, "seer ") || !strings.Contains(out, "trace format") {
		t.Errorf("version: exit %d, %q", code, out)
	}
	// -h prints the command's usage once, to stdout (flag's own call of
	// Usage printed it to stderr too). history, trace and sarif take a
	// subcommand first.
	for _, name := range []string{"check", "predict", "record", "serve", "version", "witness"} {
		out, stderr, _ := seer(t, ".", name, "-h")
		if n := strings.Count(out, "usage: seer "+name); n != 1 || stderr != "" {
			t.Errorf("%s -h: usage printed %d times on stdout, stderr %q", name, n, stderr)
		}
	}
	out, _, code := seer(t, ".", "check", "-explain", "race")
	if code != 0 || !strings.Contains(out, "witness") {
		t.Errorf("-explain race: exit %d, %q", code, out)
	}
	if text, _ := report.Explain("race"); strings.TrimSpace(out) != strings.TrimSpace(text) {
		t.Errorf("-explain prints something other than report.Explain")
	}
}

func TestPredictSTD(t *testing.T) {
	dir := t.TempDir()
	// Two critical sections on disjoint data, recorded in one order: the
	// write of V1 before T0's section and the read after T1's race in the
	// other order (a lock-order-hidden race).
	std := strings.Join([]string{
		"T0|fork(T1)|1",
		"T0|w(V1)|2",
		"T0|acq(L1)|3",
		"T0|w(V2)|4",
		"T0|rel(L1)|5",
		"T1|acq(L1)|6",
		"T1|w(V3)|7",
		"T1|rel(L1)|8",
		"T1|r(V1)|9",
	}, "\n") + "\n"
	file := filepath.Join(dir, "t.std")
	os.WriteFile(file, []byte(std), 0o644)
	out, stderr, code := seer(t, dir, "predict", "-json", file)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a finding)\n%s%s", code, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != "race" || !rep.Findings[0].Predicted {
		t.Fatalf("findings: %+v", rep.Findings)
	}
	lines := []int{rep.Findings[0].Accesses[0].Line, rep.Findings[0].Accesses[1].Line}
	if lines[0] != 2 || lines[1] != 9 || rep.Findings[0].Accesses[0].File != "" {
		t.Errorf("accesses at %v, want STD locations 2 and 9 with no file", lines)
	}
	// The same trace with the read guarded by the critical section's data
	// (the read of V2 in T1 sees T0's write): no race.
	guarded := strings.Replace(std, "T1|w(V3)|7", "T1|r(V2)|7", 1)
	os.WriteFile(file, []byte(guarded), 0o644)
	if out, _, code := seer(t, dir, "predict", file); code != 0 {
		t.Errorf("guarded: exit %d, want 0\n%s", code, out)
	}
}

func TestCheckExample(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	root, _ := filepath.Abs("../..")
	for _, each := range []bool{false, true} {
		args := []string{"check", "./examples/bank"}
		if each {
			args = []string{"check", "-each", "./examples/bank"}
		}
		out, stderr, code := seer(t, root, args...)
		if code != 1 {
			t.Fatalf("%v: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", args, code, out, stderr)
		}
		for _, want := range []string{
			"examples/bank/bank.go:21:2: data race on a.note (predicted, TestAudit)",
			"read by goroutine",
			"examples/bank/bank.go:35:9",
			"the witness runs goroutine",
			"atomicity violation on a.balance",
			"TestWithdraw",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
	out, _, code := seer(t, root, "check", "-json", "-run", "TestAudit", "./examples/bank")
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("-json: exit %d, %v\n%s", code, err, out)
	}
	if len(rep.Tests) != 1 || rep.Tests[0].Name != "TestAudit" || rep.Tests[0].Outcome != "pass" || rep.Tests[0].Events == 0 {
		t.Errorf("tests: %+v", rep.Tests)
	}
	// -skip, as go test's: in one run and test by test.
	for _, each := range []bool{false, true} {
		args := []string{"check", "-json", "-skip", "TestAudit"}
		if each {
			args = append(args, "-each")
		}
		out, _, _ := seer(t, root, append(args, "./examples/bank")...)
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		var names []string
		for _, tt := range rep.Tests {
			names = append(names, tt.Name)
		}
		if len(names) == 0 || slices.Contains(names, "TestAudit") {
			t.Errorf("%v: tests %v", args, names)
		}
	}
	for _, f := range rep.Findings {
		for _, a := range f.Accesses {
			if !filepath.IsAbs(a.File) || a.Line == 0 || a.Column == 0 || len(a.Stack) == 0 {
				t.Errorf("access not positioned: %+v", a)
			}
		}
		if len(f.Witness) == 0 {
			t.Errorf("finding without witness: %+v", f)
		}
	}
}

func TestCheckBuildError(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/broken\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b_test.go"), []byte("package broken\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {\n\tundefined()\n}\n"), 0o644)
	out, _, code := seer(t, dir, "check", ".")
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	if want := filepath.Join(dir, "b_test.go") + ":6:2: undefined: undefined"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

func TestCheckLeakedGoroutine(t *testing.T) {
	if testing.Short() {
		t.Skip("records a test")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/leak\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "l_test.go"), []byte(`package leak

import (
	"sync"
	"testing"
	"time"
)

var block = make(chan int)

func TestLeak(t *testing.T) {
	go func() { <-block }()
}

func TestClean(t *testing.T) {
	done := make(chan bool)
	go func() { done <- true }()
	<-done
}

// The last test: the process may exit before these goroutines do.
func TestCleanWaitGroup(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer time.Sleep(100 * time.Millisecond) // tidying up after saying done
			defer wg.Done()
			<-stop
		}()
	}
}
`), 0o644)
	out, stderr, code := seer(t, dir, "check", "-json", ".")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	leaks := map[string][]string{}
	for _, tt := range rep.Tests {
		leaks[tt.Name] = tt.Leaked
	}
	if l := leaks["TestLeak"]; len(l) != 1 || l[0] != filepath.Join(dir, "l_test.go")+":12" {
		t.Errorf("TestLeak leaked %v, want one goroutine created at l_test.go:12", l)
	}
	for _, name := range []string{"TestClean", "TestCleanWaitGroup"} {
		if l := leaks[name]; len(l) != 0 {
			t.Errorf("%s leaked %v", name, l)
		}
	}
}
