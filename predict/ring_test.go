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
	"fmt"
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

// BenchmarkRingMHB times the must-happen-before pass alone on the ring
// (clockMode{rfCheck: true}, the pass that leads its profile), with the
// journal's joins passing over the groups a receiver holds (treePrune,
// clock_journal.go) and without:
//
//	go test -run XXX -bench RingMHB -benchtime 3x ./predict
func BenchmarkRingMHB(b *testing.B) {
	tr, err := synthtrace.Ring(1000, 50)
	if err != nil {
		b.Fatal(err)
	}
	c := newCTP(tr)
	m := newMemory(c)
	for _, prune := range []bool{false, true} {
		b.Run(fmt.Sprintf("prune=%v", prune), func(b *testing.B) {
			defer func(p bool) { treePrune = p }(treePrune)
			treePrune = prune
			run := func() {
				if _, err := newClocks(context.Background(), c, m, clockMode{rfCheck: true}); err != nil {
					b.Fatal(err)
				}
			}
			timeEvents(b, len(tr.Events), run)
		})
	}
}
