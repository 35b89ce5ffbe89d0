// This file benchmarks the analysis on issue 31's ring (internal/synth):
// 1,000 goroutines passing tokens over buffered channels for 50 rounds,
// each round of each starting a short-lived goroutine that closes a done
// channel (51,001 goroutines, 0.56M events). Every worker's clock comes to
// hold thousands of goroutines, and every channel operation joins two
// clocks that share no base (clock_vc.go): the case where a join costs the
// number of goroutines rather than what changed.
//
//	go test -run XXX -bench Ring -benchtime 1x ./predict

package predict

import (
	"context"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
)

func BenchmarkRing(b *testing.B) {
	tr, err := synthtrace.Ring(1000, 50)
	if err != nil {
		b.Fatal(err)
	}
	var res *Result
	run := func() {
		if res, err = Analyze(context.Background(), tr, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	timeEvents(b, len(tr.Events), run)
	b.ReportMetric(res.Stats.PrePass.Seconds(), "prepass-s")
	for _, st := range res.Stats.Stages {
		if st.Name == "shb" {
			b.ReportMetric(st.Time.Seconds(), "shb-s")
		}
	}
	b.ReportMetric(float64(peak(run))/(1<<20), "peak-MiB")
}
