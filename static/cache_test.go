package static

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// writeModule writes a small module to a new directory.
func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":    "module example.com/tiny\n\ngo 1.26\n",
		"tiny.go":   "package tiny\n\nvar N int\n\nfunc Inc() { N++ }\n",
		"t_test.go": "package tiny\n\nimport \"testing\"\n\nfunc TestInc(t *testing.T) { Inc() }\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	t.Parallel()
	ctx := context.Background()
	dir := writeModule(t)
	var c Cache

	// Concurrent requests share one load.
	progs := make([]*Program, 8)
	var wg sync.WaitGroup
	for i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := c.Program(ctx, dir, ".")
			if err != nil {
				t.Error(err)
			}
			progs[i] = p
		}()
	}
	wg.Wait()
	for _, p := range progs {
		if p == nil || p != progs[0] {
			t.Fatalf("concurrent requests got different Programs")
		}
	}
	if c.Loads() != 1 {
		t.Errorf("%d loads for concurrent requests, want 1", c.Loads())
	}
	p0 := progs[0]

	expect := func(what string, reload bool) *Program {
		t.Helper()
		before := c.Loads()
		p, err := c.Program(ctx, dir, ".")
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := c.Loads() - before; got != map[bool]int{false: 0, true: 1}[reload] {
			t.Errorf("%s: %d loads, want reload=%v", what, got, reload)
		}
		return p
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}

	if p := expect("unchanged", false); p != p0 {
		t.Errorf("unchanged source gave a new Program")
	}
	// Same content, new modification time: still the same version.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "tiny.go"), later, later)
	expect("touched", false)

	write("tiny.go", "package tiny\n\nvar N, M int\n\nfunc Inc() { N++ }\n")
	p1 := expect("edited", true)
	if p1 == p0 {
		t.Errorf("edited source gave the old Program")
	}
	expect("edited, again", false)

	write("more.go", "package tiny\n\nfunc Dec() { N-- }\n")
	p2 := expect("new file", true)
	if len(p2.Files()) != 3 {
		t.Errorf("after adding a file: files %v", p2.Files())
	}

	write("go.mod", "module example.com/tiny\n\ngo 1.26.0\n")
	expect("go.mod edited", true)

	c.Invalidate(filepath.Join(dir, "more.go"))
	expect("invalidated", true)
	c.Invalidate(filepath.Join(dir, "elsewhere.go"))
	expect("invalidated another file", false)

	// Other patterns are other entries.
	if p, err := c.Program(ctx, dir, "./..."); err != nil || p == p2 {
		t.Errorf("./...: %v, %v", p, err)
	}

	// A request whose context is done returns at once and loads nothing.
	done, cancel := context.WithCancel(ctx)
	cancel()
	before := c.Loads()
	if _, err := c.Program(done, dir, "."); err == nil {
		t.Errorf("a request with a cancelled context succeeded")
	}
	if c.Loads() != before {
		t.Errorf("a request with a cancelled context started a load")
	}
	// A request that stops waiting leaves the load to finish for the
	// next one.
	other := writeModule(t)
	short, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	if _, err := c.Program(short, other, "."); err == nil {
		t.Errorf("a request with a 1ms deadline succeeded")
	}
	before = c.Loads()
	if _, err := c.Program(ctx, other, "."); err != nil {
		t.Error(err)
	}
	if c.Loads() != before {
		t.Errorf("the abandoned load was not reused")
	}

	// Failures are not cached.
	bad := t.TempDir()
	before = c.Loads()
	for i := 0; i < 2; i++ {
		if _, err := c.Program(ctx, bad, "./nonexistent"); err == nil {
			t.Errorf("loading a missing package succeeded")
		}
	}
	if c.Loads()-before != 2 {
		t.Errorf("a failed load was cached")
	}
}

// TestCacheBuildFlags: a Program loaded with build tags has the files the
// tags select, and is not the Program a load without them gave (a check
// with -tags=integration must not get the untagged package's sources).
func TestCacheBuildFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	t.Parallel()
	ctx := context.Background()
	dir := writeModule(t)
	tagged := filepath.Join(dir, "tagged.go")
	if err := os.WriteFile(tagged, []byte("//go:build integration\n\npackage tiny\n\nfunc Dec() { N-- }\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var c Cache
	has := func(p *Program) bool { return slices.Contains(p.Files(), tagged) }
	plain, err := c.Program(ctx, dir, ".")
	if err != nil {
		t.Fatal(err)
	}
	if has(plain) {
		t.Errorf("the untagged load has %s", tagged)
	}
	withTag, err := c.ProgramEnvFlags(ctx, dir, nil, []string{"-tags=integration"}, ".")
	if err != nil {
		t.Fatal(err)
	}
	if withTag == plain || !has(withTag) {
		t.Errorf("-tags=integration: got the untagged Program (%v) or no %s (files %v)", withTag == plain, tagged, withTag.Files())
	}
	again, err := c.ProgramEnvFlags(ctx, dir, nil, []string{"-tags=integration"}, ".")
	if err != nil || again != withTag {
		t.Errorf("the same flags loaded again (err %v)", err)
	}
	// -race is what every load adds (raceBuild): said or not, the same
	// Program.
	for _, race := range []string{"-race", "-race=true", "--race", "-race=1", "-race=false"} {
		raced, err := c.ProgramEnvFlags(ctx, dir, nil, []string{race}, ".")
		if err != nil || raced != plain {
			t.Errorf("%s loaded again (err %v)", race, err)
		}
	}
	tagRaced, err := c.ProgramEnvFlags(ctx, dir, nil, []string{"-race=true", "-tags=integration"}, ".")
	if err != nil || tagRaced != withTag {
		t.Errorf("-race=true -tags=integration loaded again (err %v)", err)
	}
	if c.Loads() != 2 {
		t.Errorf("%d loads, want 2 (one per set of flags)", c.Loads())
	}
}

// TestLoadRaceFiles: the source is loaded as the race build seer records
// compiles it, whatever build flags the check was given: a file for the
// race build tag is loaded and its !race twin is not (before, a test file
// that called runtime.RaceDisable did not type-check, and its findings
// lost their columns and names).
func TestLoadRaceFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	t.Parallel()
	ctx := context.Background()
	dir := writeModule(t)
	raceFile, noRaceFile := filepath.Join(dir, "race.go"), filepath.Join(dir, "norace.go")
	files := map[string]string{
		raceFile:   "//go:build race\n\npackage tiny\n\nimport \"runtime\"\n\nfunc quiet() { runtime.RaceDisable(); runtime.RaceEnable() }\n",
		noRaceFile: "//go:build !race\n\npackage tiny\n\nfunc quiet() {}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, flags := range [][]string{nil, {"-race"}, {"-tags=integration"}} {
		p, err := LoadEnvFlags(ctx, dir, nil, flags, ".")
		if err != nil {
			t.Fatalf("flags %q: %v", flags, err)
		}
		if got := p.Files(); !slices.Contains(got, raceFile) || slices.Contains(got, noRaceFile) {
			t.Errorf("flags %q: files %v, want race.go and not norace.go", flags, got)
		}
	}
}

// TestRaceBuild: raceBuild drops every spelling of -race and adds one
// -race last, and leaves other flags, and values that read "race", alone.
func TestRaceBuild(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{"-race"}},
		{[]string{"-race"}, []string{"-race"}},
		{[]string{"-race=true", "-tags=x"}, []string{"-tags=x", "-race"}},
		{[]string{"--race=1", "-race=false"}, []string{"-race"}},
		{[]string{"-tags", "race", "-racex"}, []string{"-tags", "race", "-racex", "-race"}},
	} {
		if got := raceBuild(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("raceBuild(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
