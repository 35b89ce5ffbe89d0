// This file tests the choice of Go (SelectGo) in modules whose go.mod and
// environment name different toolchains, and the refusal of a Go seer
// cannot record with: by version, by platform, and by a race runtime
// interface the recorder does not define.

package gocmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// newGo is a Go newer than the machine's that the module proxy serves; the
// tests that need it skip when it cannot be downloaded, and fail under CI.
const newGo = "go1.27.3"

func needToolchain(t *testing.T, v string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := FetchToolchain(ctx, v); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must be able to run %s (.ci/run fetches it): %v", v, err)
		}
		t.Skipf("needs %s from the module proxy: %v", v, err)
	}
}

// machineGo is the version of the go command on PATH, run with
// GOTOOLCHAIN=local.
func machineGo(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "env", "GOVERSION")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func TestSelectGo(t *testing.T) {
	local := machineGo(t)
	lang := local[:strings.LastIndex(local, ".")] // go1.26
	for _, tc := range []struct {
		name    string
		gomod   string // after the module line
		env     []string
		needs   string // a toolchain to download first
		want    string // GoVersion, or
		wantErr string // part of the error
	}{
		{"the machine's", "go " + strings.TrimPrefix(lang, "go"), []string{"GOTOOLCHAIN=local"}, "", local, ""},
		{"GOTOOLCHAIN names it", "go " + strings.TrimPrefix(lang, "go"), []string{"GOTOOLCHAIN=" + newGo}, newGo, newGo, ""},
		{"go.mod's toolchain line", "go 1.27\n\ntoolchain " + newGo, []string{"GOTOOLCHAIN=auto"}, newGo, newGo, ""},
		{"go.mod's toolchain line, local+auto", "go 1.27\n\ntoolchain " + newGo, []string{"GOTOOLCHAIN=local+auto"}, newGo, newGo, ""},
		{"a go line newer than GOTOOLCHAIN=local allows", "go 1.99", []string{"GOTOOLCHAIN=local"}, "", "", "go.mod requires go >= 1.99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				needToolchain(t, tc.needs)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\n"+tc.gomod+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sel, err := SelectGo(context.Background(), dir, append(os.Environ(), tc.env...))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("SelectGo = %+v, %v; want an error saying %q", sel, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sel.GoVersion != tc.want {
				t.Errorf("GoVersion = %s, want %s", sel.GoVersion, tc.want)
			}
			// The go command is the selected Go's own.
			out, err := exec.Command(sel.Go, "version").Output()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(out), "go version "+tc.want+" ") {
				t.Errorf("%s version = %q, want %s", sel.Go, out, tc.want)
			}
			if sel.GOOS != runtime.GOOS || sel.GOARCH != runtime.GOARCH {
				t.Errorf("platform %s/%s, want %s/%s", sel.GOOS, sel.GOARCH, runtime.GOOS, runtime.GOARCH)
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		refused bool
	}{
		{"go1.27.3", false},
		{"go1.26.8", false},
		{"go1.25.0", false},
		{"go1.25rc1", false},
		{"go1.24.9", true},
		{"go1.21.0", true},
		{"go1.20", true},
		{"devel go1.28-0123456789 Thu Jan 1 00:00:00 2026 +0000", false}, // left to the interface check
	} {
		err := checkVersion(tc.version)
		if (err != nil) != tc.refused {
			t.Errorf("checkVersion(%q) = %v, want refused %v", tc.version, err, tc.refused)
			continue
		}
		if err != nil {
			want := "Go " + tc.version + " is not supported: seer records with " + MinGoVersion + " or later"
			if err.Error() != want {
				t.Errorf("checkVersion(%q) = %q, want %q", tc.version, err, want)
			}
		}
	}
}

func TestCheckPlatform(t *testing.T) {
	for _, tc := range []struct {
		goos, goarch string
		refused      bool
	}{
		{"linux", "amd64", false},
		{"linux", "arm64", false},
		{"linux", "386", true},
		{"darwin", "arm64", true},
		{"windows", "amd64", true},
	} {
		err := checkPlatform(&GoSelection{GoVersion: "go1.26.8", GOOS: tc.goos, GOARCH: tc.goarch})
		if (err != nil) != tc.refused {
			t.Errorf("%s/%s: %v, want refused %v", tc.goos, tc.goarch, err, tc.refused)
			continue
		}
		if err == nil {
			continue
		}
		var u *UnsupportedGoError
		if !errors.As(err, &u) || !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s/%s: %#v is not an UnsupportedGoError wrapping ErrUnsupported", tc.goos, tc.goarch, err)
		}
		want := "Go go1.26.8 is not supported: seer records on linux/amd64 and linux/arm64 only (this Go targets " + tc.goos + "/" + tc.goarch + ")"
		if err.Error() != want {
			t.Errorf("%s/%s: %q, want %q", tc.goos, tc.goarch, err, want)
		}
	}
}

// TestCheckRecorder checks a GOROOT's race runtime interface against an
// object file compiled here, which defines some __tsan_ functions.
func TestCheckRecorder(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			t.Skip("needs a C compiler")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "r.c")
	os.WriteFile(src, []byte("void __tsan_read(void) {}\nvoid __tsan_write(void) {}\nstatic void __tsan_hidden(void) {}\nvoid use(void) { __tsan_hidden(); }\n"), 0o644)
	obj := filepath.Join(dir, "r.o")
	if out, err := exec.Command(cc, "-c", "-O0", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, tc := range []struct {
		name    string
		raceGo  string // "" = no runtime/race.go
		wantErr string
	}{
		{"the same interface", "//go:cgo_import_static __tsan_read\n//go:cgo_import_static __tsan_write\n", ""},
		{"a subset", "//go:cgo_import_static __tsan_read\n", ""},
		{"a function the recorder lacks", "//go:cgo_import_static __tsan_read\n//go:cgo_import_static __tsan_go_new\n//go:cgo_import_static __tsan_a_new\n",
			"Go go1.99.0 is not supported: its race runtime interface differs from the one seer's recorder implements: runtime/race.go calls __tsan_a_new, __tsan_go_new, which the recorder does not define"},
		{"a function the recorder has only as a local symbol", "//go:cgo_import_static __tsan_hidden\n",
			"runtime/race.go calls __tsan_hidden, which the recorder does not define"},
		{"no imports", "package runtime\n", "its runtime/race.go imports no __tsan_ functions"},
		{"no runtime/race.go", "", "Go go1.99.0 is not supported: it has no race runtime interface"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goroot := t.TempDir()
			if tc.raceGo != "" {
				os.MkdirAll(filepath.Join(goroot, "src", "runtime"), 0o755)
				os.WriteFile(filepath.Join(goroot, "src", "runtime", "race.go"), []byte(tc.raceGo), 0o644)
			}
			err := checkRecorder("go1.99.0", goroot, obj)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var u *UnsupportedGoError
			if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("checkRecorder = %v, want an UnsupportedGoError saying %q", err, tc.wantErr)
			}
		})
	}
}

// TestRaceImports reads the interface of the machine's Go, whose race
// runtime seer's recorder is written for.
func TestRaceImports(t *testing.T) {
	raceGo, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "runtime", "race.go"))
	if err != nil {
		t.Skip(err)
	}
	names := raceImports(raceGo)
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, n := range []string{"__tsan_init", "__tsan_read_pc", "__tsan_go_start", "__tsan_release_merge", "__tsan_go_atomic64_compare_exchange"} {
		if !have[n] {
			t.Errorf("raceImports of %s lacks %s (it found %d: %v)", runtime.Version(), n, len(names), names)
		}
	}
}
