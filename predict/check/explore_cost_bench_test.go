//go:build linux

// This file holds the cost benchmark of seer check -explore: CPU and peak
// memory of checking testdata/explore/cost (one test of 1.9M events) with
// 0, 1, 2 and 4 steered runs, so that what a steered run costs beyond the
// first shows as cpu-s/run and peak-MiB against explore=0.
//
//	go test ./predict/check -run '^$' -bench ExploreCost -benchtime 1x

package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

func BenchmarkExploreCost(b *testing.B) {
	for _, runs := range []int{0, 1, 2, 4} {
		b.Run(fmt.Sprintf("explore=%d", runs), func(b *testing.B) {
			var self, children time.Duration
			peak := 0
			for i := 0; i < b.N; i++ {
				debug.FreeOSMemory()
				resetPeakRSS(b)
				s0, c0 := cpuTimes()
				rep, err := Run(context.Background(), Options{
					Dir: exploreDir, Patterns: []string{"./cost"}, Timeout: time.Minute,
					Explore: runs, ExploreSeed: uint64(i + 1), ExploreStrategies: []report.Strategy{report.StrategyPCT},
				})
				if err != nil {
					b.Fatal(err)
				}
				if runs > 0 && len(rep.Explore[0].Runs) != runs {
					b.Fatalf("%d steered runs, want %d (%s)", len(rep.Explore[0].Runs), runs, rep.Explore[0].Stopped)
				}
				s1, c1 := cpuTimes()
				self, children = self+s1-s0, children+c1-c0
				peak = max(peak, peakRSS(b))
			}
			n := float64(b.N)
			b.ReportMetric((self+children).Seconds()/n, "cpu-s/op")
			b.ReportMetric(self.Seconds()/n/float64(runs+1), "seer-cpu-s/run")
			b.ReportMetric((self+children).Seconds()/n/float64(runs+1), "cpu-s/run")
			b.ReportMetric(float64(peak)/1024, "peak-MiB")
		})
	}
}

// cpuTimes is the user and system CPU of this process and of its children
// that have ended.
func cpuTimes() (self, children time.Duration) {
	var s, c syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &s)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
	d := func(r *syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return d(&s), d(&c)
}

// resetPeakRSS resets this process's peak resident memory (VmHWM) to what
// it holds now (proc(5), clear_refs).
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Fatal(err)
	}
}

// peakRSS is this process's peak resident memory in KiB since the last
// resetPeakRSS.
func peakRSS(b *testing.B) int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.Atoi(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))))
			if err != nil {
				b.Fatal(err)
			}
			return kb
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}
