// This file tests that the recorder faults its spool in ahead of the
// goroutines that write it (recorder.c's "Faulting in ahead"): a
// goroutine that writes many records takes almost no page faults of its
// own, where without the helper thread it faulted in every page of the
// spool it filled.

package trace_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/seer-tools/seer/trace/record"
)

func TestRecordWriterFaultsAhead(t *testing.T) {
	skipIfCannotRecord(t)
	if _, err := os.Stat("/proc/thread-self/stat"); err != nil {
		t.Skipf("no per-thread fault counts here: %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/ahead\n\ngo 1.26\n"), 0o644)
	// The test counts its own thread's minor faults while it writes a
	// global 5 * 2^20 times: 80 MiB of two-word write records (20,480
	// pages), in steps of 2 MiB with a pause after each, so that the
	// helper has a core to run on even on a loaded machine. Without the
	// helper the writer faults in each region as it crosses into it
	// (populate): 767 and 1,385 faults on the kernel this was written on
	// (6.18, which maps the file's pages a folio at a time; one a page on
	// kernels without large folios), against 16-31 with it. More than
	// one fault in 64 pages fails.
	os.WriteFile(filepath.Join(dir, "ahead_test.go"), []byte(`package ahead

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

var sink int

func minflt(t *testing.T) int {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n, err := strconv.Atoi(f[7]) // minflt, the stat's tenth field
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// helper returns the state of the recorder's helper thread (named
// seer-ahead), or "" if there is none.
func helper(t *testing.T) string {
	stats, _ := filepath.Glob("/proc/self/task/*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if s := string(b); err == nil && strings.Contains(s, "(seer-ahead)") {
			return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
		}
	}
	return ""
}

func TestWrite(t *testing.T) {
	if helper(t) == "" {
		t.Fatal("the recorder has no helper thread (seer-ahead)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const records, step = 5 << 20, 1 << 17
	before := minflt(t)
	for i := 0; i < records; i++ {
		sink = i
		if i%step == step-1 {
			time.Sleep(30 * time.Millisecond)
		}
	}
	faults, pages := minflt(t)-before, records*16/4096 // two words a write
	t.Logf("the writer took %d page faults writing %d pages of records", faults, pages)
	if faults > pages/64 {
		t.Errorf("the writer took %d page faults writing %d pages of records: the spool was not faulted in ahead of it (helper thread state %s)", faults, pages, helper(t))
	}
}
`), 0o644)
	var out bytes.Buffer
	res, err := Record(context.Background(), RecordOptions{Dir: dir, NoFile: true, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 1 || res.Tests[0].Result != "pass" {
		t.Errorf("TestWrite did not pass under recording: %+v\n%s", res.Tests, out.Bytes())
	}
	t.Logf("%s", bytes.TrimSpace(out.Bytes()))
}
