// This file tests recording real Go tests end to end: each
// testdata/record/*.txtar is a module whose test is recorded with
// Record, and whose "want" section lists, per goroutine, events that must
// appear in that goroutine's dump in that order.

package trace_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/record/*.txtar")

// skipIfCannotRecord skips tests that need the recording toolchain where it
// cannot exist.
func skipIfCannotRecord(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("recording builds the standard library once (about a minute): skipped in -short mode")
	}
	if _, err := PrepareToolchain(context.Background(), ""); err != nil {
		t.Skipf("cannot record here: %v", err)
	}
}

func TestRecordGolden(t *testing.T) {
	skipIfCannotRecord(t)
	files, err := filepath.Glob("testdata/record/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testRecordGolden(t, file)
		})
	}
}

func testRecordGolden(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var want, wantOutcome, args string
	var atomic []string
	for _, f := range ar.Files {
		switch f.Name {
		case "want":
			want = string(f.Data)
		case "outcome":
			wantOutcome = strings.TrimSpace(string(f.Data))
		case "args":
			args = strings.TrimSpace(string(f.Data))
		case "atomic":
			atomic = strings.Fields(string(f.Data))
		default:
			p := filepath.Join(dir, f.Name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	opts := RecordOptions{Dir: dir, Output: filepath.Join(dir, "out.trace"), Timeout: time.Minute, KeepLocal: true}
	if atomic != nil {
		opts.Atomic = func(fn string) bool {
			for _, a := range atomic {
				if a == fn {
					return true
				}
			}
			return false
		}
	}
	for _, a := range strings.Fields(args) {
		if v, ok := strings.CutPrefix(a, "-timeout="); ok {
			opts.Timeout, _ = time.ParseDuration(v)
		}
		if v, ok := strings.CutPrefix(a, "-run="); ok {
			opts.Run = v
		}
		if v, ok := strings.CutPrefix(a, "-hang="); ok {
			opts.Hang, _ = time.ParseDuration(v)
		}
		if strings.HasPrefix(a, "-gcflags=") {
			opts.GoFlags = append(opts.GoFlags, a)
		}
	}
	var out bytes.Buffer
	opts.Stderr = &out
	res, err := Record(context.Background(), opts)
	if err != nil {
		t.Fatalf("Record: %v\n%s", err, out.Bytes())
	}
	if wantOutcome == "" {
		wantOutcome = "pass"
	}
	if res.Outcome.Result != wantOutcome {
		t.Errorf("outcome = %+v, want %s\noutput:\n%s", res.Outcome, wantOutcome, out.Bytes())
	}
	// The file on disk must read back to the same events.
	back, err := ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Events) != len(res.Trace.Events) {
		t.Errorf("read back %d events, recorded %d", len(back.Events), len(res.Trace.Events))
	}
	got := userDump(t, back, dir)
	if *update {
		for i := range ar.Files {
			if ar.Files[i].Name == "want" {
				ar.Files[i].Data = []byte(got)
			}
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if missing := subsequences(want, got); len(missing) > 0 {
		t.Errorf("events missing from the recorded trace:\n\t%s\ngot:\n%s", strings.Join(missing, "\n\t"), got)
	}
}

var (
	goRE  = regexp.MustCompile(`\bg(\d+)\b`)
	objRE = regexp.MustCompile(`#\d+`)
	seqRE = regexp.MustCompile(` from \d+`)
)

// userDump dumps the events made in the test module's files, with
// goroutines renamed A, B, ... in order of first appearance, object ids
// dropped, sequence numbers removed, and channel operations without
// position.
func userDump(t *testing.T, tr *Trace, dir string) string {
	var buf bytes.Buffer
	if err := Dump(&buf, tr, DumpOptions{FullPaths: true}); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	var out strings.Builder
	for _, line := range strings.Split(buf.String(), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || !strings.HasPrefix(f[4], dir) {
			continue
		}
		rename := func(g string) string {
			if n, ok := names[g]; ok {
				return n
			}
			n := string(rune('A' + len(names)))
			names[g] = n
			return n
		}
		g := rename(f[1])
		obj := goRE.ReplaceAllStringFunc(f[3], rename)
		obj = seqRE.ReplaceAllString(objRE.ReplaceAllString(obj, "#"), " from")
		pos := filepath.Base(f[4])
		if f[2] == "recv" || f[2] == "send" {
			// A channel operation made on behalf of a goroutine parked in
			// it carries that goroutine's last known position, and which
			// half of the exchange links to the send depends on who parked
			// first: compare op and object only (TestRecordChanPeer checks
			// the link).
			pos = "*"
			obj = strings.TrimSuffix(obj, " from")
		}
		fmt.Fprintf(&out, "%s %s %s %s\n", g, f[2], obj, pos)
	}
	return out.String()
}

// subsequences checks that, for each goroutine, the want lines of that
// goroutine appear in order among its got lines; it returns the missing.
func subsequences(want, got string) []string {
	byG := map[string][]string{}
	for _, l := range strings.Split(got, "\n") {
		if g, _, ok := strings.Cut(l, " "); ok {
			byG[g] = append(byG[g], l)
		}
	}
	var missing []string
	pos := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		g, _, _ := strings.Cut(l, " ")
		lines := byG[g]
		i := pos[g]
		for i < len(lines) && lines[i] != l {
			i++
		}
		if i == len(lines) {
			missing = append(missing, l)
			continue
		}
		pos[g] = i + 1
	}
	return missing
}

// recordTxtar records the module in the Go files and go.mod of a txtar file.
func recordTxtar(t *testing.T, name string) *RecordResult {
	t.Helper()
	dir := txtarModule(t, name)
	// Every event, so that the conversion of each is seen (local_test.go
	// tests leaving the local ones out).
	res, err := Record(context.Background(), RecordOptions{Dir: dir, Output: filepath.Join(dir, "out.trace"), KeepLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// txtarModule writes the Go files and go.mod of a txtar file into a new
// directory.
func txtarModule(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".go") || f.Name == "go.mod" {
			os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644)
		}
	}
	return dir
}

// TestRecordAttribution checks that goroutines of parallel subtests belong
// to their top-level test and that harness goroutines belong to none.
func TestRecordAttribution(t *testing.T) {
	skipIfCannotRecord(t)
	res := recordTxtar(t, "testdata/record/parallel.txtar")
	tr := res.Trace
	writers := map[string]string{} // global -> test of the goroutine that wrote it
	harness := 0
	for i := range tr.Events {
		e := &tr.Events[i]
		g := tr.Goroutine(e.G)
		if g.Test == "" {
			harness++
		}
		if e.Op != OpWrite {
			continue
		}
		if name := tr.ObjectName(e.Obj); name == "example.com/rec.a" || name == "example.com/rec.b" {
			writers[name] = g.Test
		}
	}
	for _, v := range []string{"example.com/rec.a", "example.com/rec.b"} {
		if writers[v] != "TestParallel" {
			t.Errorf("%s written by a goroutine of test %q, want TestParallel", v, writers[v])
		}
	}
	if harness == 0 {
		t.Errorf("no events attributed to the testing harness")
	}
	var names []string
	for _, r := range res.Tests {
		names = append(names, r.Name+"="+r.Result)
	}
	if got := strings.Join(names, " "); got != "TestParallel=pass TestParallel/one=pass TestParallel/two=pass" {
		t.Errorf("test results: %s", got)
	}
}

// TestRecordChanPeer checks that every receive that took a sent value is
// linked to that send, whichever side parked first.
func TestRecordChanPeer(t *testing.T) {
	skipIfCannotRecord(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/rec\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "rec_test.go"), []byte(`package rec

import "testing"

func TestPingPong(t *testing.T) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	for i := 0; i < 50; i++ {
		ping <- i
		if <-pong != i+1 {
			t.Fatal(i)
		}
	}
	close(ping)
}
`), 0o644)
	res, err := Record(context.Background(), RecordOptions{Dir: dir, Output: filepath.Join(dir, "out.trace")})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	linked := 0
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Op != OpRecv || e.Peer < 0 || !e.Sync.Acquires() {
			continue
		}
		s := &tr.Events[e.Peer]
		if s.Op != OpSend || s.Addr != e.Addr || int(e.Peer) >= i {
			t.Errorf("receive %d linked to %d (%v on %#x), want an earlier send on %#x", i, e.Peer, s.Op, s.Addr, e.Addr)
		}
		if tr.Goroutine(s.G).Test == "TestPingPong" {
			linked++
		}
	}
	// 50 pings and 50 pongs, each received once.
	if linked < 100 {
		t.Errorf("%d receives linked to their send, want 100", linked)
	}
}

// TestRecordMaxEvents: a run that makes more events than MaxEvents is cut
// there, and says so, instead of filling memory.
func TestRecordMaxEvents(t *testing.T) {
	skipIfCannotRecord(t)
	dir := txtarModule(t, "testdata/record/parallel.txtar")
	opts := RecordOptions{Dir: dir, Output: filepath.Join(dir, "out.trace"), MaxEvents: 2000}
	res, err := Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// The file is whole (not truncated, as a killed run's is): its
	// header says it holds the run's first events.
	capped := res.Trace.Header.Capped
	if !res.Cut || res.Trace.Truncated || capped < 2000 || capped > 2100 || res.Events < 2000 || res.Events > 2100 {
		t.Errorf("cut %v, truncated %v, capped at %d, %d events; want cut, not truncated, capped at about 2000", res.Cut, res.Trace.Truncated, capped, res.Events)
	}
	back, err := ReadFile(res.Path)
	if err != nil || len(back.Events) != len(res.Trace.Events) || back.Truncated || back.Header.Capped != capped {
		t.Errorf("reading the cut trace back: %v (%d events, want %d; truncated %v; capped %d, want %d)", err, len(back.Events), len(res.Trace.Events), back.Truncated, back.Header.Capped, capped)
	}
	opts.MaxEvents = -1
	all, err := Record(context.Background(), opts)
	if err != nil || all.Cut || all.Events <= 2100 {
		t.Fatalf("without a bound: %v, cut %v, %d events", err, all.Cut, all.Events)
	}

	// A spool of 320 KiB of chunks fills up: the recorder notes where,
	// and the trace is the prefix before it, a whole file as at the cap
	// (it was written as truncated, which seer predict calls damaged).
	opts.Env = []string{fmt.Sprintf("SEER_SPOOL_CHUNKS=%d", (320<<10)/SpoolChunkBytes)}
	res, err = Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if capped := res.Trace.Header.Capped; res.Trace.Truncated || !res.Cut || res.Events == 0 || res.Events >= all.Events || capped == 0 {
		t.Errorf("spool of 320 KiB: truncated %v, cut %v, capped at %d, %d events of %d; want cut, capped, not truncated", res.Trace.Truncated, res.Cut, capped, res.Events, all.Events)
	}
	back, err = ReadFile(res.Path)
	if err != nil || back.Truncated || back.Header.Capped != res.Trace.Header.Capped || len(back.Events) != len(res.Trace.Events) {
		t.Errorf("reading the spool-full trace back: %v, truncated %v, capped %d, %d events", err, back.Truncated, back.Header.Capped, len(back.Events))
	}

	// The cap reached before a spool of 320 KiB fills (as the test
	// goes on past the cap, the converter gives no more slots back):
	// the trace is the whole prefix up to the cap, not a damaged one.
	opts.MaxEvents = 2000
	res, err = Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if capped := res.Trace.Header.Capped; res.Trace.Truncated || !res.Cut || capped < 2000 || capped > 2100 {
		t.Errorf("capped at 2000 before a spool of 320 KiB filled: truncated %v, cut %v, capped at %d; want capped at about 2000, not truncated", res.Trace.Truncated, res.Cut, capped)
	}
	back, err = ReadFile(res.Path)
	if err != nil || back.Truncated || back.Header.Capped != res.Trace.Header.Capped {
		t.Errorf("reading it back: %v, truncated %v, capped %d", err, back.Truncated, back.Header.Capped)
	}

	// NoFile: the trace stays in memory and no file is written.
	opts.Env, opts.NoFile, opts.Output = nil, true, filepath.Join(dir, "never.trace")
	res, err = Record(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, statErr := os.Stat(opts.Output); res.Path != "" || res.Trace == nil || res.Events == 0 || statErr == nil {
		t.Errorf("NoFile: path %q, %d events, file written: %v", res.Path, res.Events, statErr == nil)
	}
}

// A test that goes on long past the event cap stops being recorded at the
// cap: the spool stops growing, and reading it back costs what was kept,
// not what the test went on to do (issue 13: two goroutines of 25M
// Lock/n++/Unlock each made seer record take 75 s and 22 GB, the reader
// touching a chunk header for every failed chunk request).
func TestRecordPastCapStaysSmall(t *testing.T) {
	skipIfCannotRecord(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/cap\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "cap_test.go"), []byte(`package cap

import (
	"sync"
	"testing"
)

func TestLoop(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1_500_000; i++ {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
`), 0o644)
	opts := RecordOptions{Dir: dir, Output: filepath.Join(dir, "out.trace"), MaxEvents: 20_000}
	var res *RecordResult
	rss := peakRSSDuring(t, func() {
		var err error
		if res, err = Record(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
	})
	if !res.Cut || res.Events < 20_000 || res.Events > 21_000 {
		t.Errorf("cut %v, %d events; want a cut at about 20,000", res.Cut, res.Events)
	}
	// The kept events are about 2 MB; reading a spool that went on
	// counting chunks took gigabytes.
	if rss > 400<<20 {
		t.Errorf("peak RSS %d MiB while recording and reading a capped run", rss>>20)
	}
	t.Logf("peak RSS %d MiB", rss>>20)
}

// peakRSSDuring returns this process's peak resident set while f runs
// (VmHWM after clear_refs 5), or skips the test where Linux does not say.
func peakRSSDuring(t *testing.T, f func()) uint64 {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS: %v", err)
	}
	f()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}
