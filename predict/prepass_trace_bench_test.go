// This file benchmarks the pre-pass (analysis.prePass) on a recorded
// trace, each of its parts alone: the grouping of accesses into
// locations (trace.GroupAccesses), the memory pre-pass given the
// grouping (newMemoryOf: sharing and read-from) and the CTP (newCTP):
//
//	SEER_BENCH_TRACE=T go test -run XXX -bench PrePassTrace -benchtime 5x ./predict

package predict

import (
	"runtime"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func BenchmarkPrePassTrace(b *testing.B) {
	c, _ := benchTrace(b) // race_handoff_trace_bench_test.go
	t := c.t
	c = nil
	loc, spans := trace.GroupAccesses(t.Events)
	for _, run := range []struct {
		name string
		f    func()
	}{
		{"group", func() { trace.GroupAccesses(t.Events) }},
		{"memory", func() { newMemoryOf(t.Events, append([]int32(nil), loc...), spans) }},
		{"ctp", func() { newCTP(t) }},
	} {
		runtime.GC()
		b.Run(run.name, func(b *testing.B) {
			cpu0 := processCPU()
			for range b.N {
				run.f()
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e9, "cpu-s/op")
		})
	}
}
