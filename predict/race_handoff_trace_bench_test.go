// This file benchmarks the handoff check (race_handoff.go) on a recorded
// trace, its edges alone and the whole check (probe, edges, accesses):
//
//	SEER_BENCH_TRACE=T go test -run XXX -bench HandoffTrace -benchtime 5x ./predict

package predict

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func BenchmarkHandoffTrace(b *testing.B) {
	c, m := benchTrace(b)
	budget := handoffWork*len(c.ev) + 1<<16
	for _, run := range []struct {
		name string
		f    func() error
	}{
		{"edges", func() error { _, _, err := handoffEdges(context.Background(), c, budget); return err }},
		{"check", func() error { _, err := handedOver(context.Background(), c, m); return err }},
	} {
		runtime.GC()
		b.Run(run.name, func(b *testing.B) {
			cpu0 := processCPU()
			for range b.N {
				if err := run.f(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e9, "cpu-s/op")
		})
	}
}

// benchTrace reads the trace SEER_BENCH_TRACE names and returns its CTP
// and memory; without one it skips b.
func benchTrace(b *testing.B) (*ctp, *memory) {
	path := os.Getenv("SEER_BENCH_TRACE")
	if path == "" {
		b.Skip("SEER_BENCH_TRACE names no trace")
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	c := newCTP(tr)
	return c, newMemory(c)
}
