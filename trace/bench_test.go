// This file benchmarks recording on the Go toolchain's race suite against
// the race detector itself.

package trace_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace/racesuite"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

// raceSuiteDir copies the race suite into a module (trace/racesuite).
func raceSuiteDir(tb testing.TB) string {
	dir := tb.TempDir()
	if err := racesuite.Copy(dir); err == racesuite.ErrMissing {
		tb.Skip(err)
	} else if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkRecordRaceSuite records the whole race suite (every test must
// record without a crash) and reports events, trace bytes per event, the
// run's wall time and its ratio to running the same tests under the race
// detector (warm caches: both binaries are built before timing).
//
//	go test -run=NONE -bench=RecordRaceSuite -benchtime=1x ./trace
func BenchmarkRecordRaceSuite(b *testing.B) {
	skipIfCannotRecord(b)
	dir := raceSuiteDir(b)
	// The race detector's time, warm.
	bin := filepath.Join(b.TempDir(), "race.test")
	build := exec.Command("go", "test", "-c", "-race", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go test -race -c: %v\n%s", err, out)
	}
	start := time.Now()
	cmd := exec.Command(bin, "-test.count=1")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		// Every TestRace* test fails under the race detector: that is
		// what they are for. Only a run that did not happen is an error.
		if _, ran := err.(*exec.ExitError); !ran || !bytes.Contains(out, []byte("TestRace")) {
			b.Fatalf("race detector run: %v\n%s", err, out)
		}
	}
	raceTime := time.Since(start)
	// A first recording warms seer's build cache.
	opts := RecordOptions{Dir: dir, Output: filepath.Join(b.TempDir(), "suite.trace")}
	if _, err := Record(context.Background(), opts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var res *RecordResult
	for i := 0; i < b.N; i++ {
		var err error
		if res, err = Record(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
		if res.Outcome.Result != "pass" {
			b.Fatalf("race suite under the recorder: %+v", res.Outcome)
		}
	}
	st, _ := os.Stat(res.Path)
	b.ReportMetric(float64(res.Events), "events")
	b.ReportMetric(float64(st.Size())/float64(res.Events), "bytes/event")
	b.ReportMetric(res.Duration.Run.Seconds(), "run-s")
	b.ReportMetric(res.Duration.Convert.Seconds(), "convert-after-run-s")
	b.ReportMetric(res.Duration.Run.Seconds()/raceTime.Seconds(), "run/race-ratio")
}

// BenchmarkConvertRaceSuite converts one recording of the race suite, read
// after the run (the part of a conversion the run does not hide), and
// reports events per second and CPU seconds a conversion:
//
//	go test -run=NONE -bench=ConvertRaceSuite -benchtime=3x -cpuprofile=cpu.out ./trace
func BenchmarkConvertRaceSuite(b *testing.B) {
	skipIfCannotRecord(b)
	dir := raceSuiteDir(b)
	convertKept(b, RecordOptions{Dir: dir, NoFile: true})
}

// BenchmarkConvertPackage is BenchmarkConvertRaceSuite for any package:
// the package pattern $SEER_BENCH_PKG run in the directory $SEER_BENCH_DIR
// (skipped when unset), recorded once (its tests selected by
// $SEER_BENCH_RUN) and converted b.N times after the run, at seer's event
// cap. For the bench module's library suites:
//
//	SEER_BENCH_DIR=$PWD/bench SEER_BENCH_PKG=golang.org/x/sync/syncmap \
//	  go test -run=NONE -bench=ConvertPackage -benchtime=3x ./trace
func BenchmarkConvertPackage(b *testing.B) {
	dir, pkg := os.Getenv("SEER_BENCH_DIR"), os.Getenv("SEER_BENCH_PKG")
	if dir == "" || pkg == "" {
		b.Skip("SEER_BENCH_DIR and SEER_BENCH_PKG name the package to record")
	}
	skipIfCannotRecord(b)
	convertKept(b, RecordOptions{Dir: dir, Package: pkg, Run: os.Getenv("SEER_BENCH_RUN"), NoFile: true})
}

// convertKept records once with opts, keeping the spool, and converts it
// b.N times after the run, reporting events, events per second and CPU
// seconds a conversion.
func convertKept(b *testing.B, opts RecordOptions) {
	bin, res, spool := recordKeepingSpool(b, opts)
	runtime.GC()
	before := cpuTime()
	b.ResetTimer()
	var events int
	for i := 0; i < b.N; i++ {
		t, _, err := ConvertAgain(spool, bin.Path, bin.Shadow(), res.Trace.Header, nil, DefaultMaxEvents, ConvertOptions{})
		if err != nil {
			b.Fatal(err)
		}
		events = len(t.Events) + t.LocalAccesses()
	}
	b.StopTimer()
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	// On a machine shared with other work the wall time says little;
	// the process's CPU time (the conversion's stages and its collector)
	// says what the conversion cost.
	b.ReportMetric((cpuTime()-before).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
