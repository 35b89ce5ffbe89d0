// This file implements seer check's cache of package reports, after go
// test's test cache (cmd/go/internal/test: computeTestInputsID): a
// package whose tests all passed is answered from the cache when the same
// test binary would run with the same flags, under the same seer, and
// every environment variable the tests read and every file in the module
// they opened or stat'ed is as it was.
//
// A key has two levels, as go test's does. The test ID hashes seer's own
// executable and version, the build ID of the package's test main as
// `go list -test -export` reports it for the recording build (it hashes
// the content of everything the binary is compiled from, seer's recording
// runtime among it, and the build flags), the link flags, the package's
// own Go files (the report reads its comments and positions too), and
// every option that changes the report. Under the test ID the cache keeps the test log
// of the runs that made the report: the test binary writes it with
// -test.testlogfile, a line per os.Getenv, os.Open, os.Stat and os.Chdir
// (package internal/testlog). The inputs ID hashes what those name now
// (an environment variable's value, a file's size, mode and modification
// time, a directory's listing); the report is stored under both.
//
// As go test does, a run with -count or -args is never answered from the
// cache, a file opened less than two seconds after it was last modified
// keeps the report out of it, and files outside the module are not
// checked. A check with Options.Env or Options.Explore (whose steered
// runs differ from seed to seed) is not cached.

package check

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/static"
	"github.com/seer-tools/seer/trace/record"
)

// reportCache is the cache of one Run; nil means no cache.
type reportCache struct {
	dir  string               // where the entries are
	base string               // the part of every test ID that is the whole check's
	ids  map[string]testBuild // by import path
}

// testBuild is what go list says of a package's test build.
type testBuild struct {
	buildID string // of the test main
	root    string // the module's root
	atomic  bool   // built with atomicGCFlags
}

// testLogMagic opens every test log (testing/internal/testdeps).
const testLogMagic = "# test log\n"

// cacheFormat names the layout of the entries; a change of it is a change
// of every key.
const cacheFormat = "seer-report-cache-1"

// openReportCache returns the cache for checking todo, or nil when this
// check is not one the cache answers.
func openReportCache(ctx context.Context, opts Options, todo []*prepared) *reportCache {
	if len(opts.Env) > 0 || opts.Test.Count != 0 || len(opts.Test.Args) > 0 || opts.Source != nil || opts.Explore > 0 || len(todo) == 0 {
		return nil
	}
	self, err := selfID()
	if err != nil {
		return nil
	}
	c := &reportCache{dir: filepath.Join(gocmd.CacheDir(opts.CacheDir), "reports"), ids: map[string]testBuild{}}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", cacheFormat, self, opts.Version)
	fmt.Fprintf(h, "goflags %q\x00", opts.GoFlags)
	// What the build reads from the environment beyond the compile's
	// build ID: GOFLAGS's link flags, cgo's.
	for _, v := range []string{"GOFLAGS", "CGO_LDFLAGS", "GOEXPERIMENT"} {
		fmt.Fprintf(h, "%s %s\x00", v, getenvHash(v))
	}
	fmt.Fprintf(h, "run %q skip %q\x00", opts.Run, opts.Skip)
	fmt.Fprintf(h, "test %+v\x00", opts.Test)
	fmt.Fprintf(h, "atomicity %v each %v replay %v whynorace %v\x00", opts.Atomicity, opts.PerTest, opts.Replay, opts.WhyNoRace)
	fmt.Fprintf(h, "maxevents %d history %d prepass %d solve %v\x00", opts.MaxEvents, opts.HistoryBudget, opts.PrePassBudget, opts.SolveTimeout)
	c.base = hex.EncodeToString(h.Sum(nil))
	c.trim(time.Now())
	// A package whose source mentions //seer:atomic is built with
	// -gcflags=-l when it has atomic functions (prepared.build): its key
	// is that build's, and its report is stored only if it was built so.
	var plain, atomic []string
	for _, p := range todo {
		switch {
		case p.lp.Dir == "":
		case mentions(p.lp.Dir, static.AtomicDirective):
			atomic = append(atomic, p.lp.Path)
		default:
			plain = append(plain, p.lp.Path)
		}
	}
	if len(plain) > 0 {
		c.ids = testBuildIDs(ctx, opts, opts.GoFlags, plain, false)
	}
	if len(atomic) > 0 {
		for path, b := range testBuildIDs(ctx, opts, append([]string{atomicGCFlags}, opts.GoFlags...), atomic, true) {
			c.ids[path] = b
		}
	}
	return c
}

var (
	selfOnce sync.Once
	selfHash string
	selfErr  error
)

// selfID hashes seer's own executable: a seer built from a changed tree
// has another, whatever its version says.
func selfID() (string, error) {
	selfOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			selfErr = err
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			selfErr = err
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			selfErr = err
			return
		}
		selfHash = hex.EncodeToString(h.Sum(nil))
	})
	return selfHash, selfErr
}

// testBuildIDs asks go list, with the recording toolchain and goFlags, the
// flags of the recording build, for the build ID of the test main of each
// package of paths. A package go list cannot build has none.
func testBuildIDs(ctx context.Context, opts Options, goFlags, paths []string, atomic bool) map[string]testBuild {
	ids := map[string]testBuild{}
	// The toolchain Build records with: the Go the module selects.
	goEnv := append(os.Environ(), opts.Env...)
	tc, err := record.PrepareToolchainIn(ctx, opts.CacheDir, opts.Dir, goEnv)
	if err != nil {
		return ids
	}
	tmp, remove, err := gocmd.TempDir("seer-cache-")
	if err != nil {
		return ids
	}
	defer remove()
	args := append([]string{"list", "-e", "-test", "-export", "-race",
		"-f", "{{.ImportPath}}\t{{.BuildID}}\t{{.Root}}\t{{if .Error}}error{{end}}"}, goFlags...)
	cmd := exec.CommandContext(ctx, tc.Go, append(args, paths...)...)
	cmd.Dir = opts.Dir
	cmd.Env = append(tc.Env(goEnv), "GOTMPDIR="+tmp)
	out, err := cmd.Output()
	if err != nil {
		return ids
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p+".test"] = true
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 || !want[f[0]] || f[1] == "" || f[3] != "" {
			continue
		}
		ids[strings.TrimSuffix(f[0], ".test")] = testBuild{buildID: f[1], root: f[2], atomic: atomic}
	}
	return ids
}

// testID is the first level of p's key, "" when p is not cached.
func (c *reportCache) testID(p *prepared) string {
	b, ok := c.ids[p.lp.Path]
	if !ok {
		return ""
	}
	src, err := sourceHash(p.lp.Dir)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(c.base + "\x00" + p.lp.Path + "\x00" + b.buildID + "\x00" + src))
	return hex.EncodeToString(sum[:])
}

// sourceHash hashes the Go files of a package's directory. The report
// reads the source beyond what the binary is compiled from: a comment
// such as //seer:atomic, the columns and names of accesses. A change of
// a comment alone leaves the build ID as it was (the compiled code is the
// same, and go test would answer from its cache), not the report.
func sourceHash(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\x00", e.Name(), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// answer fills parts from the cache for the packages of todo it holds,
// and returns the others. Those it will store after their run get
// p.cacheID.
func (c *reportCache) answer(todo []*prepared, parts []*report.Report, progress func(Progress)) []*prepared {
	if c == nil {
		return todo
	}
	var rest []*prepared
	for _, p := range todo {
		p.cacheID = c.testID(p)
		if p.cacheID != "" {
			if part := c.lookup(p); part != nil {
				parts[p.index] = part
				if progress != nil {
					progress(Progress{Package: p.lp.Path, Stage: StageCached})
				}
				continue
			}
		}
		rest = append(rest, p)
	}
	return rest
}

// StageCached is the Progress stage of a package answered from the cache.
const StageCached = "cached"

// lookup returns p's cached report, or nil.
func (c *reportCache) lookup(p *prepared) *report.Report {
	log, err := os.ReadFile(filepath.Join(c.dir, p.cacheID+".log"))
	if err != nil {
		return nil
	}
	inputs, err := inputsID(log, p.lp.Dir, c.ids[p.lp.Path].root)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(c.dir, entryName(p.cacheID, inputs)))
	if err != nil {
		return nil
	}
	var part report.Report
	if err := json.Unmarshal(data, &part); err != nil || len(part.Packages) != 1 {
		return nil
	}
	c.used(p.cacheID+".log", entryName(p.cacheID, inputs))
	part.Packages[0].Cached = true
	return &part
}

func entryName(testID, inputs string) string {
	sum := sha256.Sum256([]byte(testID + "\x00" + inputs))
	return hex.EncodeToString(sum[:]) + ".json"
}

// store keeps part, p's report, when every test passed (or was skipped)
// and the test log says what the tests read.
func (c *reportCache) store(p *prepared, part *report.Report) {
	if c == nil || p.cacheID == "" || len(part.Packages) != 1 || part.Packages[0].Status != "ok" {
		return
	}
	if built := len(p.ropts.GoFlags) > 0 && p.ropts.GoFlags[0] == atomicGCFlags; built != c.ids[p.lp.Path].atomic {
		return // not built as its key says
	}
	inputs, err := inputsID(p.testLog, p.lp.Dir, c.ids[p.lp.Path].root)
	if err != nil {
		return
	}
	data, err := json.Marshal(part)
	if err != nil {
		return
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return
	}
	// The report first: a log names an entry only once it is there.
	if writeAtomic(filepath.Join(c.dir, entryName(p.cacheID, inputs)), data) == nil {
		writeAtomic(filepath.Join(c.dir, p.cacheID+".log"), p.testLog)
	}
}

// Entries not used for trimAge are removed, at most once per trimEvery,
// as go's build and test cache does; an entry in use has its modification
// time brought forward at most once per touchEvery.
const (
	trimAge    = 5 * 24 * time.Hour
	trimEvery  = 24 * time.Hour
	touchEvery = time.Hour
)

// trim removes the entries not used for trimAge, if the last trim was
// trimEvery ago.
func (c *reportCache) trim(now time.Time) {
	mark := filepath.Join(c.dir, "trim.txt")
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < trimEvery {
		return
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && e.Name() != "trim.txt" && now.Sub(fi.ModTime()) > trimAge {
			os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
	os.WriteFile(mark, []byte(now.Format(time.RFC3339)+"\n"), 0o644)
}

// used marks the named entries as in use.
func (c *reportCache) used(names ...string) {
	now := time.Now()
	for _, name := range names {
		path := filepath.Join(c.dir, name)
		if fi, err := os.Stat(path); err == nil && now.Sub(fi.ModTime()) > touchEvery {
			os.Chtimes(path, now, now)
		}
	}
}

// writeAtomic writes a file that readers see whole or not at all.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

var errBadTestLog = errors.New("test log malformed")

// errFileTooNew keeps a report whose tests read a file modified in the
// last modTimeCutoff out of the cache: a write within the file system's
// time resolution might not change the modification time.
var errFileTooNew = errors.New("file used as input is too new")

const modTimeCutoff = 2 * time.Second

// inputsID hashes what the test log log (of one or more runs) names, as
// it is now: pkgDir is where the tests started, root the module's root,
// outside which files are not checked.
func inputsID(log []byte, pkgDir, root string) (string, error) {
	if !bytes.HasPrefix(log, []byte(testLogMagic)) {
		return "", errBadTestLog
	}
	h := sha256.New()
	// The runtime reads GODEBUG without saying so in the log.
	fmt.Fprintf(h, "env GODEBUG %s\n", getenvHash("GODEBUG"))
	pwd := pkgDir
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line == strings.TrimSuffix(testLogMagic, "\n") {
			pwd = pkgDir // the log of the next run
			continue
		}
		op, name, ok := strings.Cut(line, " ")
		if !ok {
			return "", errBadTestLog
		}
		switch op {
		case "getenv":
			fmt.Fprintf(h, "env %s %s\n", name, getenvHash(name))
		case "chdir":
			pwd = name // always absolute
			fmt.Fprintf(h, "chdir %s %s\n", name, statHash(name))
		case "stat", "open":
			if !filepath.IsAbs(name) {
				name = filepath.Join(pwd, name)
			}
			if root == "" || !inDir(name, root) {
				continue // as go test: files outside the module are not checked
			}
			if op == "stat" {
				fmt.Fprintf(h, "stat %s %s\n", name, statHash(name))
				continue
			}
			oh, err := openHash(name)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "open %s %s\n", name, oh)
		default:
			return "", errBadTestLog
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func inDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func getenvHash(name string) string {
	if v, ok := os.LookupEnv(name); ok {
		return fmt.Sprintf("%q", "="+v)
	}
	return "unset"
}

func statLine(info os.FileInfo) string {
	return fmt.Sprintf("%d %x %v %v", info.Size(), uint64(info.Mode()), info.ModTime().UnixNano(), info.IsDir())
}

func statHash(name string) string {
	var b strings.Builder
	if info, err := os.Stat(name); err != nil {
		fmt.Fprintf(&b, "err %v;", err)
	} else {
		b.WriteString(statLine(info) + ";")
	}
	if info, err := os.Lstat(name); err != nil {
		fmt.Fprintf(&b, "err %v", err)
	} else {
		b.WriteString(statLine(info))
	}
	return fmt.Sprintf("%q", b.String())
}

// openHash describes a file the tests opened: its size, mode and
// modification time (not its content, which may be large), or a
// directory's listing.
func openHash(name string) (string, error) {
	info, err := os.Stat(name)
	if err != nil {
		return fmt.Sprintf("%q", "err "+err.Error()), nil
	}
	var b strings.Builder
	b.WriteString(statLine(info))
	if info.IsDir() {
		entries, err := os.ReadDir(name)
		if err != nil {
			fmt.Fprintf(&b, "; err %v", err)
		}
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				fmt.Fprintf(&b, "; %s %s", e.Name(), statLine(fi))
			} else {
				fmt.Fprintf(&b, "; %s err %v", e.Name(), err)
			}
		}
	} else if info.Mode().IsRegular() && time.Since(info.ModTime()) < modTimeCutoff {
		return "", errFileTooNew
	}
	return fmt.Sprintf("%q", b.String()), nil
}

// testLogs gathers the test logs of a package's runs, when its report is
// to be cached.
type testLogs struct {
	path string // the file each run writes; "" when not logging
	log  []byte // the logs so far
}

// logRuns returns the test logs of p's runs of bin.
func (p *prepared) logRuns(bin *record.Binary) *testLogs {
	if p.cacheID == "" {
		return &testLogs{}
	}
	return &testLogs{path: filepath.Join(filepath.Dir(bin.Path), "testlog")}
}

// flags are the test binary's flags that write the log.
func (l *testLogs) flags() []string {
	if l.path == "" {
		return nil
	}
	return []string{"-test.testlogfile=" + l.path}
}

// collect adds the log of the run that just ended. A run that wrote
// none (it died before) leaves the logs without their magic, which keeps
// the report out of the cache.
func (l *testLogs) collect() {
	if l.path == "" {
		return
	}
	data, err := os.ReadFile(l.path)
	os.Remove(l.path)
	if err != nil || !bytes.HasPrefix(data, []byte(testLogMagic)) {
		l.log = []byte("no test log\n")
		l.path = ""
		return
	}
	l.log = append(l.log, data...)
}
