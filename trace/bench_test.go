// This file benchmarks recording on the Go toolchain's race suite against
// the race detector itself.

package trace_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
// reports events per second:
//
//	go test -run=NONE -bench=ConvertRaceSuite -benchtime=3x -cpuprofile=cpu.out ./trace
func BenchmarkConvertRaceSuite(b *testing.B) {
	skipIfCannotRecord(b)
	dir := raceSuiteDir(b)
	bin, res, spool := recordKeepingSpool(b, RecordOptions{Dir: dir, NoFile: true})
	b.ResetTimer()
	var events int
	for i := 0; i < b.N; i++ {
		t, _, err := ConvertAgain(spool, bin.Path, bin.Shadow(), res.Trace.Header, nil, DefaultMaxEvents, ConvertOptions{})
		if err != nil {
			b.Fatal(err)
		}
		events = len(t.Events) + t.LocalAccesses()
	}
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
