// This file tests recording for linux/arm64 on another machine: the
// recorder built with a cross compiler, the test run under qemu's user
// mode, and the trace classified as on amd64 (frame chains through x29,
// the g register in x28).

package trace_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	. "github.com/seer-tools/seer/trace/record"
)

func TestRecordArm64UnderQEMU(t *testing.T) {
	skipIfCannotRecord(t)
	if runtime.GOARCH == "arm64" {
		t.Skip("the golden tests already record natively on arm64")
	}
	cc, errCC := exec.LookPath("aarch64-linux-gnu-gcc")
	qemu, errQ := exec.LookPath("qemu-aarch64")
	if errCC != nil || errQ != nil {
		msg := "needs aarch64-linux-gnu-gcc and qemu-aarch64 (apt-get install gcc-aarch64-linux-gnu qemu-user)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + ": .ci/run must install them")
		}
		t.Skip(msg)
	}
	ar, err := txtar.ParseFile("testdata/record/mutex.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var want string
	for _, f := range ar.Files {
		if f.Name == "want" {
			want = string(f.Data)
			continue
		}
		os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644)
	}
	res, err := Record(context.Background(), RecordOptions{
		Dir:    dir,
		Output: filepath.Join(dir, "out.trace"),
		Env:    []string{"GOARCH=arm64", "CC=" + cc},
		Exec:   []string{qemu, "-L", "/usr/aarch64-linux-gnu"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Trace.Header.GOARCH != "arm64" || res.Outcome.Result != "pass" {
		t.Fatalf("recorded %s, outcome %+v", res.Trace.Header.GOARCH, res.Outcome)
	}
	got := userDump(t, res.Trace, dir)
	if missing := subsequences(want, got); len(missing) > 0 {
		t.Errorf("events missing from the arm64 trace:\n\t%s\ngot:\n%s", strings.Join(missing, "\n\t"), got)
	}
}
