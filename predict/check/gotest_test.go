// This file tests go test's flags in Run (gotest.go), the shards of
// packages.go, and the test ends of progress.go; and, end to end, a racy
// test behind a build tag and testing.Short.

package check

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

func TestRunsOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags TestFlags
		sels  []string
		want  []binaryRun
	}{
		{"default", TestFlags{}, []string{""}, []binaryRun{{run: ""}}},
		{"short parallel failfast", TestFlags{Short: true, Parallel: 2, Failfast: true}, []string{"^TestA$"},
			[]binaryRun{{run: "^TestA$", flags: []string{"-test.short", "-test.failfast", "-test.parallel=2"}}}},
		{"count", TestFlags{Count: 2}, []string{"^TestA$", "^TestB$"},
			[]binaryRun{{run: "^TestA$"}, {run: "^TestB$"}, {run: "^TestA$"}, {run: "^TestB$"}}},
		{"cpu outermost", TestFlags{CPU: []int{1, 4}, Count: 2}, []string{""},
			[]binaryRun{{flags: []string{"-test.cpu=1"}}, {flags: []string{"-test.cpu=1"}}, {flags: []string{"-test.cpu=4"}}, {flags: []string{"-test.cpu=4"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.flags.runsOf(tc.sels); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("runs %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestUniteFindings(t *testing.T) {
	race := func(line int, predicted bool, count int) report.Finding {
		return report.Finding{Package: "p", Test: "TestA", Kind: "race", Predicted: predicted, Count: count,
			Accesses: []report.Access{{File: "a.go", Line: line, Op: "write"}, {File: "a.go", Line: 9, Op: "read"}}}
	}
	// The same lines with other operations (two writes of an n++ in one
	// run, a write and a read in another) are the same finding.
	writes := race(3, true, 4)
	writes.Accesses = []report.Access{{File: "a.go", Line: 9, Op: "write"}, {File: "a.go", Line: 3, Op: "write"}}
	got := uniteFindings([]report.Finding{race(3, true, 1), race(4, true, 2), race(3, false, 5), race(3, true, 1), writes})
	want := []report.Finding{race(3, false, 11), race(4, true, 2)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("united %+v,\nwant %+v", got, want)
	}
	tests := uniteTests([]report.Test{
		{Name: "TestA", Outcome: "pass", Events: 10},
		{Name: "TestB", Outcome: "pass", Events: 1},
		{Name: "TestA", Outcome: "fail", Events: 12, Errors: []string{"x"}},
	})
	wantTests := []report.Test{{Name: "TestA", Outcome: "fail", Events: 22, Errors: []string{"x"}}, {Name: "TestB", Outcome: "pass", Events: 1}}
	if !reflect.DeepEqual(tests, wantTests) {
		t.Errorf("united tests %+v, want %+v", tests, wantTests)
	}
}

func TestShard(t *testing.T) {
	pkgs := []listedPackage{{Path: "a"}, {Path: "b"}, {Path: "c", Status: "no-test-files"}, {Path: "d"}, {Path: "./x", Status: "no-package"}}
	paths := func(ps []listedPackage) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Path)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		shard, want string
	}{
		{"1/1", "a b c d ./x"},
		{"1/2", "a c ./x"},
		{"2/2", "b d ./x"},
		{"3/3", "c ./x"},
	} {
		sh, err := ParseShard(tc.shard)
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(sh.of(pkgs)); got != tc.want {
			t.Errorf("shard %s: %s, want %s", tc.shard, got, tc.want)
		}
	}
	for _, bad := range []string{"0/2", "3/2", "1", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func TestTestEnds(t *testing.T) {
	var out bytes.Buffer
	var ended []string
	w := &testEnds{w: &out, ended: func(test, result string) { ended = append(ended, test+" "+result) }}
	input := "=== RUN   TestA\n=== RUN   TestA/sub\n    --- PASS: TestA/sub (0.00s)\n--- PASS: TestA (0.01s)\n=== RUN   TestB\n--- FA"
	w.Write([]byte(input))
	w.Write([]byte("IL: TestB (0.00s)\n\x16--- SKIP: TestC (0.00s)\nPASS\n"))
	if got, want := strings.Join(ended, ", "), "TestA pass, TestB fail, TestC skip"; got != want {
		t.Errorf("ended %q, want %q", got, want)
	}
	if !strings.HasPrefix(out.String(), input) {
		t.Errorf("output not passed on: %q", out.String())
	}
}

// racyBody ends a test with two goroutines that race on n (at line 10 of
// the body).
const racyBody = `	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		go func() {
			defer wg.Done()
			n++ // race
		}()
	}
	wg.Wait()
}
`

// taggedRace is a racy test that only a build with -tags integration
// holds, and that testing.Short skips.
const taggedRace = `//go:build integration

package tagged

import (
	"sync"
	"testing"
)

func TestIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
` + racyBody

// TestTagsAndShort records a package whose only test file needs -tags
// integration and whose racy test is skipped under -short: without the
// tag there is nothing to test, with it the race is found, and with
// -short as well the test is skipped and nothing is found.
func TestTagsAndShort(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModuleFiles(t, "example.com/tagged", map[string]string{
		"tagged.go":      "package tagged\n",
		"tagged_test.go": taggedRace,
	})
	for _, tc := range []struct {
		name     string
		goFlags  []string
		test     TestFlags
		status   string
		outcome  string
		findings int
	}{
		{"no tag", nil, TestFlags{}, "no-test-files", "", 0},
		{"-tags integration", []string{"-tags=integration"}, TestFlags{}, "ok", "pass", 1},
		{"-tags integration -short", []string{"-tags=integration"}, TestFlags{Short: true}, "ok", "skip", 0},
		{"-tags integration -count 2", []string{"-tags=integration"}, TestFlags{Count: 2}, "ok", "pass", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, GoFlags: tc.goFlags, Test: tc.test})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Packages) != 1 || rep.Packages[0].Status != tc.status {
				t.Fatalf("packages %+v, want one with status %s", rep.Packages, tc.status)
			}
			if tc.outcome != "" && (len(rep.Tests) != 1 || rep.Tests[0].Outcome != tc.outcome) {
				t.Errorf("tests %+v, want TestIntegration %s", rep.Tests, tc.outcome)
			}
			races := 0
			for _, f := range rep.Findings {
				if f.Kind == "race" && strings.HasPrefix(f.Variable, "n ") {
					races++
				}
				// The source loaded with the tags names the variable
				// and places the access to the column.
				if f.Accesses[0].Column == 0 {
					t.Errorf("access at column 0: the source was not loaded with -tags: %+v", f.Accesses[0])
				}
			}
			if races != tc.findings || len(rep.Findings) != tc.findings {
				t.Errorf("findings %+v, want %d race on n", rep.Findings, tc.findings)
			}
		})
	}
}

// TestPackagesAtOnce checks three packages two at a time: the report
// lists them, their tests and their findings in package order, whichever
// finished first.
func TestPackagesAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	racy := strings.NewReplacer("//go:build integration\n\n", "", "package tagged", "package PKG")
	dir := testModuleFiles(t, "example.com/many", map[string]string{})
	for _, pkg := range []string{"c", "a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		src := strings.Replace(racy.Replace(taggedRace), "PKG", pkg, 1)
		if err := os.WriteFile(filepath.Join(dir, pkg, pkg+"_test.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}, Timeout: time.Minute, Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs, tests, found []string
	for _, p := range rep.Packages {
		pkgs = append(pkgs, p.Path+" "+p.Status)
	}
	for _, tt := range rep.Tests {
		tests = append(tests, tt.Package)
	}
	for _, f := range rep.Findings {
		found = append(found, f.Package)
	}
	want := "example.com/many/a example.com/many/b example.com/many/c"
	if got := strings.Join(pkgs, " "); got != "example.com/many/a ok example.com/many/b ok example.com/many/c ok" {
		t.Errorf("packages %s", got)
	}
	if got := strings.Join(tests, " "); got != want {
		t.Errorf("tests of %s, want %s", got, want)
	}
	if got := strings.Join(found, " "); got != want {
		t.Errorf("findings in %s, want %s", got, want)
	}
}

// TestMergeParts checks that the report of many packages holds every
// list of each package's part: a list Report gains is not dropped.
func TestMergeParts(t *testing.T) {
	part := &report.Report{}
	v := reflect.ValueOf(part).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice {
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		}
	}
	merged := reflect.ValueOf(mergeParts([]*report.Report{part, nil, part})).Elem()
	for i := range merged.NumField() {
		if f := merged.Field(i); f.Kind() == reflect.Slice && f.Len() != 2 {
			t.Errorf("Report.%s: %d entries from two parts of one each", merged.Type().Field(i).Name, f.Len())
		}
	}
}
