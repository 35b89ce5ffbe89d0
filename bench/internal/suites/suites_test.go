package suites

import (
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGenerated: the generated tests are gofmt'd Go with the sizes in
// place.
func TestGenerated(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"chan", ChanTest(ChanParams{Goroutines: 7, Channels: 3, Ops: 50}), []string{"goroutines = 7", "channels   = 3", "ops        = 50"}},
		{"lock", LockTest(LockParams{Iters: 1234}), []string{"const iters = 1234"}},
		{"tls", TLSTest(TLSParams{Handshakes: 3}), []string{"const handshakes = 3"}},
		{"ring", RingTest(RingParams{Goroutines: 9, Rounds: 4}), []string{"members = 9", "rounds  = 4"}},
	} {
		formatted, err := format.Source([]byte(tc.src))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(formatted) != tc.src {
			t.Errorf("%s: not gofmt'd", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(tc.src, w) {
				t.Errorf("%s: lacks %q", tc.name, w)
			}
		}
	}
}

func TestSelect(t *testing.T) {
	all := All(Config{ModuleDir: "/m"})
	if got := Names(all); !slices.Equal(got, []string{"race", "lru", "groupcache", "xsync", "syncmap", "cmap", "ants", "pond", "stress-chan", "stress-chan-3m", "stress-chan-100k", "stress-ring", "stress-tls", "stress-lock"}) {
		t.Errorf("suites = %v", got)
	}
	sel, err := Select(all, "xsync, race")
	if err != nil || !slices.Equal(Names(sel), []string{"xsync", "race"}) {
		t.Errorf("Select(xsync, race) = %v, %v", Names(sel), err)
	}
	if sel, _ := Select(all, "all"); len(sel) != len(all) {
		t.Errorf("Select(all) = %v", Names(sel))
	}
	if _, err := Select(all, "race,nope"); err == nil {
		t.Error("Select(nope): no error")
	}
}

// TestPrepareStress writes the generated modules (no go command runs).
func TestPrepareStress(t *testing.T) {
	all := All(Config{Chan: ChanParams{Goroutines: 2, Channels: 2, Ops: 10}, Lock: LockParams{Iters: 10}, Ring: RingParams{Goroutines: 3, Rounds: 2}, TLS: TLSParams{Handshakes: 1}})
	for _, s := range all {
		if !strings.HasPrefix(s.Name, "stress-") {
			continue
		}
		dir := t.TempDir()
		got, pkgs, err := s.Prepare(dir)
		if err != nil || got != dir || !slices.Equal(pkgs, []string{"."}) {
			t.Fatalf("%s: Prepare = %q, %v, %v", s.Name, got, pkgs, err)
		}
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil || !strings.HasPrefix(string(mod), "module seerstress\n\ngo 1.") {
			t.Errorf("%s: go.mod = %q, %v", s.Name, mod, err)
		}
		tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if len(tests) != 1 {
			t.Errorf("%s: test files %v", s.Name, tests)
		}
	}
}
