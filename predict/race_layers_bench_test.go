// This file benchmarks the layered engine against the SHB baseline on
// traces shaped like the synthetic ones of RAPID's STD format that issue
// 12 measured: threads that take locks around the variables each lock
// guards and touch the other variables without one, from many code
// locations.
//
//	go test -run XXX -bench Layers -benchtime 1x ./predict
//	go test -run XXX -bench Layers10M -benchtime 1x ./predict

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// rapidSTD returns a trace in RAPID's STD format: threads forked by T0, 8
// locks, 200 variables (half guarded, each by one lock), every access from
// one of ten code locations of its variable and kind.
func rapidSTD(threads, events int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	const locks, vars = 8, 200
	guard := make([]int, vars)
	for v := range guard {
		guard[v] = -1
		if v < vars/2 {
			guard[v] = r.Intn(locks)
		}
	}
	byLock := make([][]int, locks)
	for v, l := range guard {
		if l >= 0 {
			byLock[l] = append(byLock[l], v)
		}
	}
	var b strings.Builder
	n := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		n++
	}
	for t := 1; t < threads; t++ {
		line("T0|fork(T%d)|1", t)
	}
	held := make([]int, threads) // lock held + 1
	owner := make([]int, locks)  // thread holding + 1
	for n < events {
		t := r.Intn(threads)
		var v int
		switch l := held[t] - 1; {
		case l >= 0 && r.Intn(5) == 0:
			line("T%d|rel(L%d)|%d", t, l, 2000+l)
			held[t], owner[l] = 0, 0
			continue
		case l >= 0:
			if len(byLock[l]) == 0 {
				continue
			}
			v = byLock[l][r.Intn(len(byLock[l]))]
		case r.Intn(5) == 0:
			l := r.Intn(locks)
			if owner[l] != 0 {
				continue
			}
			owner[l], held[t] = t+1, l+1
			line("T%d|acq(L%d)|%d", t, l, 1000+l)
			continue
		case r.Intn(10) < 3:
			v = vars/2 + r.Intn(vars/2)
		default:
			v = r.Intn(vars / 2)
			if guard[v] >= 0 {
				continue // guarded: only under its lock
			}
		}
		op, w := "r", 0
		if r.Intn(2) == 0 {
			op, w = "w", 1
		}
		line("T%d|%s(V%d)|%d", t, op, v, 3000+v*20+r.Intn(10)*2+w)
	}
	for t, l := range held {
		if l > 0 {
			line("T%d|rel(L%d)|%d", t, l-1, 2000+l-1)
		}
	}
	return b.String()
}

func readSTD(tb testing.TB, text string) *trace.Trace {
	tr, err := trace.ReadSTD(strings.NewReader(text))
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// benchLayers runs the seer analysis and the SHB baseline on one trace
// and reports events per second, race site pairs, peak heap and each
// layer's time.
func benchLayers(b *testing.B, tr *trace.Trace, analyses ...string) {
	for _, a := range analyses {
		b.Run(a, func(b *testing.B) {
			var res *Result
			run := func() {
				var err error
				if res, err = Analyze(context.Background(), tr, Options{Analysis: a, NoAtomicity: true}); err != nil {
					b.Fatal(err)
				}
			}
			timeEvents(b, len(tr.Events), run)
			b.ReportMetric(float64(len(res.Findings)), "site-pairs")
			for _, st := range res.Stats.Stages {
				if st.RaceSites > 0 || st.Time > 0 {
					b.ReportMetric(st.Time.Seconds(), st.Name+"-s")
				}
			}
			b.ReportMetric(res.Stats.PrePass.Seconds(), "prepass-s")
			b.ReportMetric(res.Stats.Cone.Seconds(), "cone-s")
			b.ReportMetric(res.Stats.Check.Seconds(), "check-s")
			b.ReportMetric(float64(peak(run))/(1<<20), "peak-MiB")
			b.ReportMetric(float64(peakRSS(run))/(1<<20), "peak-RSS-MiB")
		})
	}
}

// BenchmarkLayers compares seer with its SHB baseline on 20k-event traces
// of 4 and 32 threads and a 1M-event trace of 8.
func BenchmarkLayers(b *testing.B) {
	for _, s := range []struct {
		name            string
		threads, events int
	}{{"20k-4t", 4, 20_000}, {"20k-32t", 32, 20_000}, {"200k-8t", 8, 200_000}, {"1M-8t", 8, 1_000_000}} {
		tr := readSTD(b, rapidSTD(s.threads, s.events, 1))
		b.Run(s.name, func(b *testing.B) { benchLayers(b, tr, AnalysisSeer, AnalysisSHB) })
	}
}

// BenchmarkLayers10M runs seer alone on 10M events: peak heap and whether
// the findings keep up with the trace's length.
func BenchmarkLayers10M(b *testing.B) {
	tr := readSTD(b, rapidSTD(8, 10_000_000, 1))
	benchLayers(b, tr, AnalysisSeer)
}

// TestFindingsGrowWithTrace checks issue 12's regression, on traces small
// enough for a test: a longer run of the same program never gives fewer
// race findings, and never fewer than its SHB baseline.
func TestFindingsGrowWithTrace(t *testing.T) {
	prev := 0
	for _, n := range []int{5_000, 20_000, 80_000} {
		tr := readSTD(t, rapidSTD(8, n, 1))
		// Analyze checks every witness itself; analyze's second, expanded
		// check would cost the trace's length per finding.
		seer, err := Analyze(context.Background(), tr, Options{NoAtomicity: true})
		if err != nil {
			t.Fatal(err)
		}
		shb, err := Analyze(context.Background(), tr, Options{Analysis: AnalysisSHB})
		if err != nil {
			t.Fatal(err)
		}
		if len(seer.Findings) < len(shb.Findings) || len(seer.Findings) < prev {
			t.Errorf("%d events: %d findings, SHB %d, %d at the shorter trace", n, len(seer.Findings), len(shb.Findings), prev)
		}
		t.Logf("%d events: %d race site pairs (SHB baseline %d)", n, len(seer.Findings), len(shb.Findings))
		prev = len(seer.Findings)
	}
}
