// This file tests seer check on each Go a module may run: the machine's,
// and Go 1.27 as GOTOOLCHAIN selects it (the go command's choice for a
// `go 1.27` module), recording and predicting with a shadow toolchain of
// that version; and the refusal, once and by name, of a Go seer cannot
// record with.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/predict/report"
)

// newGo is the Go newer than the machine's that the end-to-end check also
// runs on; the module proxy serves it.
const newGo = "go1.27.3"

// mapsTest races a map read in a helper (the Go 1.27 runtime reports it
// from inside mapaccess1) against a write of another key, and a map read's
// struct key (which the runtime reads as a range on the caller's behalf)
// against a write of the key variable.
const mapsTest = `package bank

import (
	"sync"
	"testing"
)

func get(m map[int]int) int {
	return m[1]
}

func TestMap(t *testing.T) {
	m := map[int]int{1: 1}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); m[2] = 2 }()
	go func() { defer wg.Done(); _ = get(m) }()
	wg.Wait()
}

type pair struct{ a, b int }

func TestMapKey(t *testing.T) {
	m := map[pair]int{{1, 2}: 3}
	k := pair{1, 2}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); k.a = 5 }()
	_ = m[k]
	wg.Wait()
}
`

// bankModule writes examples/bank and mapsTest into a module of its own
// whose go line is goLine, and returns its directory.
func bankModule(t *testing.T, goLine string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/bank\n\ngo " + goLine + "\n",
		"maps_test.go": mapsTest,
	}
	for _, name := range []string{"bank.go", "bank_test.go"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "bank", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// localGo is the version of the machine's Go.
func localGo(t *testing.T) string {
	t.Helper()
	sel, err := gocmd.SelectGo(context.Background(), "", append(os.Environ(), "GOTOOLCHAIN=local"))
	if err != nil {
		t.Fatal(err)
	}
	return sel.GoVersion
}

func TestCheckEachGo(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	local := localGo(t)
	for _, tc := range []struct {
		name, goLine, toolchain string
	}{
		{"the machine's Go", strings.TrimPrefix(local[:strings.LastIndex(local, ".")], "go"), "local"},
		{newGo + ", as GOTOOLCHAIN selects it for a go 1.27 module", "1.27", newGo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := local
			if tc.toolchain != "local" {
				want = tc.toolchain
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				if err := gocmd.FetchToolchain(ctx, tc.toolchain); err != nil {
					if os.Getenv("CI") != "" {
						t.Fatalf("CI must be able to run %s (.ci/run fetches it): %v", tc.toolchain, err)
					}
					t.Skipf("needs %s from the module proxy: %v", tc.toolchain, err)
				}
			}
			dir := bankModule(t, tc.goLine)
			cmd, _ := seerCmd(t, dir, []string{"GOTOOLCHAIN=" + tc.toolchain}, "check", "-json", ".")
			out, stderr, code := runSeer(t, cmd)
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
				t.Fatalf("exit %d (want 1), %v\nstdout:\n%s\nstderr:\n%s", code, err, out, stderr)
			}
			// The standard library's frames are the module's Go's.
			sel, err := gocmd.SelectGo(context.Background(), dir, append(os.Environ(), "GOTOOLCHAIN="+tc.toolchain))
			if err != nil || sel.GoVersion != want {
				t.Fatalf("SelectGo in the module: %+v, %v; want %s", sel, err, want)
			}
			goroot := sel.GOROOT + string(filepath.Separator)
			found := map[string]bool{}
			for _, f := range rep.Findings {
				if f.Kind != report.KindRace || len(f.Accesses) != 2 {
					continue
				}
				a, b := f.Accesses[0], f.Accesses[1]
				if a.Op == "read" {
					a, b = b, a
				}
				v := f.Variable
				switch {
				case strings.HasPrefix(v, "m["):
					v = "m[k]" // named by either access's key
				case strings.HasPrefix(v, "k ("), strings.HasPrefix(v, "k.a ("):
					v = "k" // named by the access the finding lists first
				}
				key := fmt.Sprintf("%s %s@%s:%d:%d %s@%s:%d:%d (predicted %v)", v,
					a.Op, filepath.Base(a.File), a.Line, a.Column, b.Op, filepath.Base(b.File), b.Line, b.Column, f.Predicted)
				found[key] = true
				if v == "m[k]" || v == "k" {
					inGo := false
					for _, fr := range b.Stack {
						inGo = inGo || strings.HasPrefix(fr.File, goroot)
					}
					if !inGo {
						t.Errorf("the map read's stack names no file of %s (%s): %+v", want, goroot, b.Stack)
					}
				}
			}
			for _, k := range []string{
				"a.note write@bank.go:21:2 read@bank.go:35:9 (predicted true)",
				"m[k] write@maps_test.go:16:31 read@maps_test.go:9:9 (predicted false)",
				"k write@maps_test.go:28:31 read@maps_test.go:29:8 (predicted false)", // the key, by its size
			} {
				if !found[k] {
					t.Errorf("no race %q among %v\nstderr:\n%s", k, found, stderr)
				}
			}
		})
	}
}

// TestCheckRefusesGo checks a module of three packages with a Go that
// seer cannot record with (here one that targets windows): seer check says
// so once, by version and reason, with the exit status of an error, and
// blames no package.
func TestCheckRefusesGo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/multi\n\ngo 1.25\n"}
	for _, p := range []string{"a", "b", "c"} {
		files[filepath.Join(p, "x_test.go")] = "package " + p + "\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"
	}
	for name, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd, _ := seerCmd(t, dir, []string{"GOOS=windows", "GOTOOLCHAIN=local"}, "check", "./...")
	out, stderr, code := runSeer(t, cmd)
	want := "seer check: Go " + localGo(t) + " is not supported: seer records on linux/amd64 and linux/arm64 only (this Go targets windows/amd64)\n"
	if code != 2 || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no output and stderr %q", code, out, stderr, want)
	}
}
