// This file benchmarks the SHB layer (race_shb.go's shbLayer) alone on a
// recorded trace, as seer predict runs it on a trace whose history is cut
// (no budget of its own, the whole trace):
//
//	SEER_BENCH_TRACE=T go test -run XXX -bench SHBTrace -benchtime 5x ./predict

package predict

import (
	"context"
	"runtime"
	"testing"
)

func BenchmarkSHBTrace(b *testing.B) {
	c, m := benchTrace(b) // race_handoff_trace_bench_test.go
	e, err := relevance(context.Background(), c.t, c, m, Options{})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	cpu0 := processCPU()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var order []siteKey
		if _, err := e.shbLayer(map[siteKey]*proof{}, &order); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e9, "cpu-s/op")
}
