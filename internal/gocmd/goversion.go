// This file implements the choice of the Go that seer records with: the Go
// the go command runs for the module being checked (GOTOOLCHAIN, go.mod's
// toolchain and go lines; https://go.dev/doc/toolchain), asked of the go
// command in the module's directory rather than worked out again here, and
// the refusal, by version and reason, of a Go whose race runtime interface
// seer's recorder does not implement.

package gocmd

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// MinGoVersion is the oldest Go seer records with: the oldest one its
// end-to-end check has been run on (.ci/run runs it on the machine's Go
// and on go1.27.3; go1.25.0 was checked by hand). An older Go may declare
// the same race runtime functions and still annotate its synchronisation
// differently, which seer would read wrongly rather than fail on, so it is
// refused.
const MinGoVersion = "go1.25"

// A GoSelection is the Go that the go command runs in a directory, as
// `go env` reports it there.
type GoSelection struct {
	Go        string // its go command: GOROOT/bin/go
	GOROOT    string
	GoVersion string // "go1.27.3"
	GOOS      string
	GOARCH    string
	CC        string
	// GOFLAGS is the go command's GOFLAGS there, from the environment
	// or the go env file: flags every go command adds to its own.
	GOFLAGS string
}

// SelectGo asks the go command on PATH which Go it runs in dir ("" = the
// current directory) with the environment env (nil = this process's): the
// go command itself applies GOTOOLCHAIN and go.mod's toolchain and go
// lines, switching to (and if need be downloading) another toolchain, and
// `go env` reports that toolchain's GOROOT and GOVERSION.
func SelectGo(ctx context.Context, dir string, env []string) (*GoSelection, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("cannot find the go command on PATH")
	}
	cmd := exec.CommandContext(ctx, goCmd, "env", "-json", "GOROOT", "GOVERSION", "GOOS", "GOARCH", "CC", "GOMOD", "GOTOOLCHAIN", "GOFLAGS")
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("go env: %s", msg)
	}
	var e struct{ GOROOT, GOVERSION, GOOS, GOARCH, CC, GOMOD, GOTOOLCHAIN, GOFLAGS string }
	if err := json.Unmarshal(out, &e); err != nil || e.GOROOT == "" || e.GOVERSION == "" {
		return nil, fmt.Errorf("go env: unexpected output %q", out)
	}
	// go env does not load the module, so it does not refuse one that
	// needs a newer Go than GOTOOLCHAIN lets it run; every other go
	// command would, as this does.
	if need := goLine(e.GOMOD); need != "" && version.Compare("go"+need, e.GOVERSION) > 0 {
		return nil, fmt.Errorf("%s requires go >= %s (running go %s; GOTOOLCHAIN=%s)", e.GOMOD, need, strings.TrimPrefix(e.GOVERSION, "go"), e.GOTOOLCHAIN)
	}
	sel := &GoSelection{GOROOT: e.GOROOT, GoVersion: e.GOVERSION, GOOS: e.GOOS, GOARCH: e.GOARCH, CC: e.CC, GOFLAGS: e.GOFLAGS}
	// The selected toolchain's own go command: the one on PATH may be
	// another version, and a go command builds only with the compiler of
	// its own version.
	sel.Go = filepath.Join(sel.GOROOT, "bin", "go")
	if _, err := os.Stat(sel.Go); err != nil {
		return nil, fmt.Errorf("Go %s in %s has no go command (%s): %v", sel.GoVersion, sel.GOROOT, sel.Go, err)
	}
	return sel, nil
}

// goLineRE finds a go.mod's go line.
var goLineRE = regexp.MustCompile(`(?m)^go[ \t]+([0-9][^ \t\r\n/]*)`)

// goLine returns the version of the go line of the go.mod file gomod ("",
// or "/dev/null" outside a module, gives "").
func goLine(gomod string) string {
	if gomod == "" || gomod == os.DevNull {
		return ""
	}
	b, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	m := goLineRE.FindSubmatch(b)
	if m == nil || !version.IsValid("go"+string(m[1])) {
		return ""
	}
	return string(m[1])
}

// An UnsupportedGoError refuses a Go toolchain that seer cannot record
// with; Err says why.
type UnsupportedGoError struct {
	Version string // "go1.27.3"
	Err     error
}

func (e *UnsupportedGoError) Error() string {
	return fmt.Sprintf("Go %s is not supported: %v", e.Version, e.Err)
}

func (e *UnsupportedGoError) Unwrap() error { return e.Err }

// checkPlatform refuses a Go that targets a platform the recorder is not
// written for (its trampolines are amd64 and arm64 assembly, and it maps
// its spool with Linux calls).
func checkPlatform(sel *GoSelection) error {
	if sel.GOOS != "linux" || (sel.GOARCH != "amd64" && sel.GOARCH != "arm64") {
		return &UnsupportedGoError{sel.GoVersion, fmt.Errorf("%w (this Go targets %s/%s)", ErrUnsupported, sel.GOOS, sel.GOARCH)}
	}
	return nil
}

// checkVersion refuses a Go older than MinGoVersion. A version the
// go/version package cannot read (a development build, "devel go1.28-...")
// is left to the interface check.
func checkVersion(v string) error {
	if version.IsValid(v) && version.Compare(v, MinGoVersion) < 0 {
		return &UnsupportedGoError{v, fmt.Errorf("seer records with %s or later", MinGoVersion)}
	}
	return nil
}

// importStaticRE finds the race runtime functions that runtime/race.go
// declares: the Go linker imports each from the race .syso.
var importStaticRE = regexp.MustCompile(`(?m)^//go:cgo_import_static (__tsan_\w+)\s*$`)

// raceImports returns the __tsan_ functions that a GOROOT's
// runtime/race.go (raceGo, its content) imports.
func raceImports(raceGo []byte) []string {
	var names []string
	for _, m := range importStaticRE.FindAllSubmatch(raceGo, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

// checkInterface refuses a Go whose runtime calls a race runtime function
// the recorder does not define (implemented): its race runtime interface
// (raceGo, the content of runtime/race.go) is not the one seer implements,
// and a binary linked against the recorder would not link, or would call
// what the recorder does not record.
func checkInterface(v string, raceGo []byte, implemented map[string]bool) error {
	names := raceImports(raceGo)
	if len(names) == 0 {
		return &UnsupportedGoError{v, errors.New("its runtime/race.go imports no __tsan_ functions, so its race runtime interface is not the one seer's recorder implements")}
	}
	var missing []string
	for _, n := range names {
		if !implemented[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return &UnsupportedGoError{v, fmt.Errorf("its race runtime interface differs from the one seer's recorder implements: runtime/race.go calls %s, which the recorder does not define", strings.Join(missing, ", "))}
	}
	return nil
}

// definedTsan returns the __tsan_ functions that the ELF object file
// (the compiled recorder) defines.
func definedTsan(object string) (map[string]bool, error) {
	f, err := elf.Open(object)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	defined := map[string]bool{}
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "__tsan_") && s.Section != elf.SHN_UNDEF &&
			elf.ST_BIND(s.Info) == elf.STB_GLOBAL {
			defined[s.Name] = true
		}
	}
	return defined, nil
}

// checkRecorder checks the Go at goroot against the compiled recorder
// (object): the interface its runtime/race.go declares must be one the
// recorder defines in full.
func checkRecorder(v, goroot, object string) error {
	raceGo, err := os.ReadFile(filepath.Join(goroot, "src", "runtime", "race.go"))
	if err != nil {
		return &UnsupportedGoError{v, fmt.Errorf("it has no race runtime interface (%v)", err)}
	}
	implemented, err := definedTsan(object)
	if err != nil {
		return fmt.Errorf("reading seer's recording runtime %s: %v", object, err)
	}
	return checkInterface(v, raceGo, implemented)
}

// FetchToolchain makes sure that the go command on PATH can run Go
// version v ("go1.27.3"), downloading it from the module proxy into the
// module cache if it has not yet, as GOTOOLCHAIN=v makes the go command do
// (https://go.dev/doc/toolchain#download). It returns the go command's
// error when it cannot, offline for one.
func FetchToolchain(ctx context.Context, v string) error {
	cmd := exec.CommandContext(ctx, "go", "version")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+v)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("GOTOOLCHAIN=%s go version: %v\n%s", v, err, bytes.TrimSpace(out))
	}
	if !bytes.Contains(out, []byte("go version "+v+" ")) {
		return fmt.Errorf("GOTOOLCHAIN=%s go version printed %q", v, bytes.TrimSpace(out))
	}
	return nil
}
