// This file implements the recording toolchain: the recording runtime
// compiled into seer's cache, and a shadow GOROOT in which it replaces the
// race runtime (see ../../shared/design/architecture.md, decision 1).

package gocmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// A Toolchain is a Go installation prepared for recording: its shadow
// GOROOT, where the race runtime's .syso files are seer's recorder, and a
// GOCACHE of seer's own (the go command keys standard packages by toolchain
// version, not by content, so recorded builds must not share the user's).
type Toolchain struct {
	Go        string // the go command
	GOROOT    string // the real GOROOT
	GoVersion string // "go1.26.8"
	GOOS      string
	GOARCH    string
	GOFLAGS   string // the go command's GOFLAGS (GoSelection.GOFLAGS)
	Shadow    string // the shadow GOROOT
	Cache     string // seer's GOCACHE for recorded builds
	Dir       string // seer's cache directory for this toolchain
}

// ErrNoCompiler and ErrUnsupported explain why recording cannot work here.
var (
	ErrNoCompiler  = errors.New("seer needs a C compiler (cc or gcc) to build its recording runtime, as go test -race does: install one (e.g. apt-get install gcc)")
	ErrUnsupported = errors.New("seer records on linux/amd64 and linux/arm64 only")
)

// PrepareToolchain finds the go command and returns the recording
// toolchain for it, building the recorder from its C source
// recorderSource (trace/record embeds it) and the shadow GOROOT into the
// cache directory on first use. cacheDir "" means the user cache
// directory. env is the go environment (nil = this process's): GOARCH and
// CC there select the target, so a recorder for linux/arm64 can be built
// with a cross compiler. The Go is the one the go command selects in the
// current directory; PrepareToolchainIn selects it in another. files are
// Go files the shadow GOROOT adds to the standard library (ShadowFile).
func PrepareToolchain(ctx context.Context, cacheDir string, env []string, recorderSource []byte, files ...ShadowFile) (*Toolchain, error) {
	return PrepareToolchainIn(ctx, cacheDir, "", env, recorderSource, files...)
}

// PrepareToolchainIn is PrepareToolchain for the Go that the go command
// runs in dir, the module being recorded (SelectGo): one shadow GOROOT and
// GOCACHE per Go version, and that Go's own go command in Toolchain.Go. A
// Go that seer cannot record with is refused with an *UnsupportedGoError.
func PrepareToolchainIn(ctx context.Context, cacheDir, dir string, env []string, recorderSource []byte, files ...ShadowFile) (*Toolchain, error) {
	sel, err := SelectGo(ctx, dir, env)
	if err != nil {
		return nil, err
	}
	tc := &Toolchain{Go: sel.Go, GOROOT: sel.GOROOT, GoVersion: sel.GoVersion, GOOS: sel.GOOS, GOARCH: sel.GOARCH, GOFLAGS: sel.GOFLAGS}
	if err := checkPlatform(sel); err != nil {
		return nil, err
	}
	if err := checkVersion(sel.GoVersion); err != nil {
		return nil, err
	}
	cc := sel.CC
	if cc == "" {
		cc = "gcc"
	}
	ccPath, err := exec.LookPath(strings.Fields(cc)[0])
	if err != nil {
		if ccPath, err = exec.LookPath("cc"); err != nil {
			return nil, ErrNoCompiler
		}
	}
	cacheDir = CacheDir(cacheDir)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", tc.GoVersion, tc.GOROOT, tc.GOARCH, ccPath, runtime.Version())
	h.Write(recorderSource)
	for _, f := range files {
		fmt.Fprintf(h, "\x00%s\x00%d\x00", f.Path, len(f.Source))
		h.Write(f.Source)
	}
	key := tc.GoVersion + "-" + tc.GOARCH + "-" + hex.EncodeToString(h.Sum(nil))[:12]
	tc.Dir = filepath.Join(cacheDir, key)
	tc.Shadow = filepath.Join(tc.Dir, "goroot")
	// The build cache is per recorder build: the standard library it holds
	// was compiled against this recorder and these annotations.
	tc.Cache = filepath.Join(tc.Dir, "gocache")
	if err := tc.ensure(ctx, ccPath, recorderSource, files); err != nil {
		return nil, err
	}
	return tc, nil
}

// ensure builds tc.Dir once; concurrent seer processes serialise on a lock
// file, and a half-built directory is never visible (built aside, renamed).
func (tc *Toolchain) ensure(ctx context.Context, cc string, recorderSource []byte, files []ShadowFile) error {
	if _, err := os.Stat(filepath.Join(tc.Dir, "ok")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(tc.Dir), 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(tc.Dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(filepath.Join(tc.Dir, "ok")); err == nil {
		return nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(tc.Dir), ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "recorder.c")
	if err := os.WriteFile(src, recorderSource, 0o644); err != nil {
		return err
	}
	syso := filepath.Join(tmp, "recorder.syso")
	cmd := exec.Command(cc, "-c", "-O2", "-fno-stack-protector", "-fno-exceptions", "-o", syso, src)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp) // its temporary files go with tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if _, err := RunOwned(ctx, cmd, 0); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("compiling seer's recording runtime with %s: %v\n%s", cc, err, stderr.Bytes())
	}
	if err := checkRecorder(tc.GoVersion, tc.GOROOT, syso); err != nil {
		return err
	}
	if err := buildShadow(tc.GOROOT, filepath.Join(tmp, "goroot"), syso); err != nil {
		return fmt.Errorf("building the shadow GOROOT: %v", err)
	}
	if err := addShadowFiles(tc.GOROOT, filepath.Join(tmp, "goroot"), files); err != nil {
		return fmt.Errorf("building the shadow GOROOT: %v", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "ok"), nil, 0o644); err != nil {
		return err
	}
	os.RemoveAll(tc.Dir)
	return os.Rename(tmp, tc.Dir)
}

// raceSysos are the race runtime objects the linker may pick, relative to
// GOROOT/src/runtime/race.
var raceSysos = []string{
	"internal/amd64v1/race_linux.syso",
	"internal/amd64v3/race_linux.syso",
	"race_linux_arm64.syso",
}

// buildShadow makes dst a GOROOT of symbolic links to src in which every
// race .syso is replaced by syso. Only the directories on the path to a
// replaced file are real; everything else is one link.
func buildShadow(src, dst, syso string) error {
	data, err := os.ReadFile(syso)
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for _, rel := range raceSysos {
		files[filepath.Join("src", "runtime", "race", rel)] = data
	}
	if cond, err := annotatedCond(filepath.Join(src, "src", "sync", "cond.go")); err == nil {
		files[filepath.Join("src", "sync", "cond.go")] = cond
	}
	replace := map[string]bool{}
	for p := range files {
		replace[p] = true
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			replace[d] = true
		}
	}
	var walk func(rel string) error
	walk = func(rel string) error {
		if err := os.MkdirAll(filepath.Join(dst, rel), 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(filepath.Join(src, rel))
		if err != nil {
			return err
		}
		for _, e := range entries {
			r := filepath.Join(rel, e.Name())
			switch {
			case !replace[r]:
				if err := os.Symlink(filepath.Join(src, r), filepath.Join(dst, r)); err != nil {
					return err
				}
			case e.IsDir():
				if err := walk(r); err != nil {
					return err
				}
			default:
				if err := os.WriteFile(filepath.Join(dst, r), files[r], 0o644); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return err
	}
	// A toolchain that lacks a .syso (say, no arm64 one) still gets ours
	// where the linker would look for it.
	for _, rel := range raceSysos {
		p := filepath.Join(dst, "src", "runtime", "race", rel)
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			if _, err := os.Stat(filepath.Dir(p)); err == nil {
				if err := os.WriteFile(p, data, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// CacheDir returns seer's cache directory: dir, or if dir is "", "seer"
// in the user cache directory.
func CacheDir(dir string) string {
	if dir != "" {
		return dir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "seer")
}

// GoEnv returns the environment for the go commands that seer runs against
// the real GOROOT (go list, go/packages' go list -export), starting from
// base (os.Environ() if nil): GOCACHE is seer's own, "gocache" in the
// cache directory cacheDir ("" = CacheDir's default), since even go list
// writes to the build cache (its module index, export data), and seer
// never writes to the user's.
func GoEnv(cacheDir string, base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+1)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "GOCACHE=") {
			env = append(env, kv)
		}
	}
	return append(env, "GOCACHE="+filepath.Join(CacheDir(cacheDir), "gocache"))
}

// Env returns the environment for go commands that build against the
// shadow GOROOT, starting from base (os.Environ() if nil).
func (tc *Toolchain) Env(base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+4)
	for _, kv := range base {
		switch {
		case strings.HasPrefix(kv, "GOROOT="), strings.HasPrefix(kv, "GOCACHE="),
			strings.HasPrefix(kv, "CGO_ENABLED="), strings.HasPrefix(kv, "GOTOOLCHAIN="):
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOROOT="+tc.Shadow, "GOCACHE="+tc.Cache, "CGO_ENABLED=1", "GOTOOLCHAIN=local")
}

// annotatedCond returns sync/cond.go with race annotations for Cond, which
// has none of its own (and package sync is compiled without
// instrumentation, so a Signal leaves no trace at all): Signal and
// Broadcast release-merge on &c.notify, and Wait acquires it when it wakes.
// That is real happens-before — a Wait cannot return before the Signal
// that woke it — and, like every annotation, it can only order events, so
// it never makes seer report more. If the file does not have the expected
// shape (another Go version), it is left alone and Cond stays invisible.
func annotatedCond(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := string(b)
	edits := []struct{ old, new string }{
		{"import (\n", "import (\n\t\"internal/race\"\n"},
		{"\truntime_notifyListWait(&c.notify, t)\n",
			"\truntime_notifyListWait(&c.notify, t)\n\tif race.Enabled {\n\t\trace.Acquire(unsafe.Pointer(&c.notify))\n\t}\n"},
		{"\truntime_notifyListNotifyOne(&c.notify)\n",
			"\tif race.Enabled {\n\t\trace.ReleaseMerge(unsafe.Pointer(&c.notify))\n\t}\n\truntime_notifyListNotifyOne(&c.notify)\n"},
		{"\truntime_notifyListNotifyAll(&c.notify)\n",
			"\tif race.Enabled {\n\t\trace.ReleaseMerge(unsafe.Pointer(&c.notify))\n\t}\n\truntime_notifyListNotifyAll(&c.notify)\n"},
	}
	for _, e := range edits {
		if strings.Count(s, e.old) != 1 {
			return nil, fmt.Errorf("%s: unexpected shape", path)
		}
		s = strings.Replace(s, e.old, e.new, 1)
	}
	return []byte(s), nil
}
