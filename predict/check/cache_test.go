// This file tests the cache of package reports (cache.go): what its
// inputs ID follows, and, end to end, that a second check of an
// unchanged package is answered from it, and a changed input, -count or a
// changed file runs the tests again.

package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestInputsID(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.txt")
	old := time.Now().Add(-time.Hour)
	write := func(s string, at time.Time) {
		if err := os.WriteFile(data, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(data, at, at); err != nil {
			t.Fatal(err)
		}
	}
	write("one", old)
	t.Setenv("SEER_INPUT", "a")
	log := []byte(testLogMagic + "getenv SEER_INPUT\nopen data.txt\nstat /nonexistent/outside\n")
	id := func() string {
		s, err := inputsID(log, dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := id()
	if id() != base {
		t.Fatal("inputs ID not stable")
	}
	for _, tc := range []struct {
		name   string
		change func()
		same   bool
	}{
		{"env changed", func() { t.Setenv("SEER_INPUT", "b") }, false},
		{"env unset", func() { os.Unsetenv("SEER_INPUT") }, false},
		{"env not read", func() { t.Setenv("SEER_OTHER", "x") }, true},
		{"file rewritten, another size", func() { write("three", old) }, false},
		{"file touched", func() { write("one", old.Add(time.Minute)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SEER_INPUT", "a")
			write("one", old)
			tc.change()
			if got := id(); (got == base) != tc.same {
				t.Errorf("inputs ID the same: %v, want %v", got == base, tc.same)
			}
		})
	}
	write("one", time.Now())
	if _, err := inputsID(log, dir, dir); err != errFileTooNew {
		t.Errorf("a file just written: %v, want errFileTooNew", err)
	}
	if _, err := inputsID([]byte("getenv X\n"), dir, dir); err != errBadTestLog {
		t.Errorf("a log without its magic: %v, want errBadTestLog", err)
	}
}

// cachedModule's test reads an environment variable and a file, and
// races.
const cachedModule = `package cached

import (
	"os"
	"sync"
	"testing"
)

func TestInputs(t *testing.T) {
	_ = os.Getenv("SEER_CACHE_INPUT")
	if _, err := os.ReadFile("data.txt"); err != nil {
		t.Fatal(err)
	}
` + racyBody

func TestReportCache(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModuleFiles(t, "example.com/cached", map[string]string{
		"cached.go":      "package cached\n",
		"cached_test.go": cachedModule,
		"data.txt":       "one",
	})
	old := time.Now().Add(-time.Hour)
	touch := func(at time.Time) {
		if err := os.Chtimes(filepath.Join(dir, "data.txt"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	touch(old)
	t.Setenv("SEER_CACHE_INPUT", "a")
	for i, step := range []struct {
		name   string
		change func()
		test   TestFlags
		cached bool
	}{
		{"first", func() {}, TestFlags{}, false},
		{"unchanged", func() {}, TestFlags{}, true},
		{"-count=1", func() {}, TestFlags{Count: 1}, false},
		{"env changed", func() { t.Setenv("SEER_CACHE_INPUT", "b") }, TestFlags{}, false},
		{"env changed, again", func() {}, TestFlags{}, true},
		{"file touched", func() { touch(old.Add(time.Minute)) }, TestFlags{}, false},
		{"a comment added", func() { appendFile(t, filepath.Join(dir, "cached.go"), "// a comment: seer reads the source too\n") }, TestFlags{}, false},
		{"a comment added, again", func() {}, TestFlags{}, true},
		{"-short", func() {}, TestFlags{Short: true}, false},
		{"-short, again", func() {}, TestFlags{Short: true}, true},
	} {
		step.change()
		rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Cache: true, Version: "test", Test: step.test})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Packages) != 1 || rep.Packages[0].Cached != step.cached {
			t.Fatalf("step %d (%s): packages %+v, want cached %v", i, step.name, rep.Packages, step.cached)
		}
		if len(rep.Findings) != 1 || rep.Findings[0].Kind != "race" || rep.Packages[0].Findings != 1 {
			t.Errorf("step %d (%s): findings %+v, want the race", i, step.name, rep.Findings)
		}
	}
}

func appendFile(t *testing.T, name, text string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
