// This file benchmarks the must-happen-before pass (clock_pass.go) on a
// recorded trace, as seer predict runs it: its history in a file-backed
// arena, within the budget of -maxmem's default (a tenth of 1 GiB), the
// prefix's index waited for when the history is cut (history_cut.go):
//
//	SEER_BENCH_TRACE=T go test -run XXX -bench MHBTrace -benchtime 5x ./predict

package predict

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

func BenchmarkMHBTrace(b *testing.B) {
	c, m := benchTrace(b) // race_handoff_trace_bench_test.go
	e, err := relevance(context.Background(), c.t, c, m, Options{HistoryBudget: 1 << 30 / 10})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	cpu0 := processCPU()
	b.ResetTimer()
	for range b.N {
		e.opts.arena = new(riseArena)
		if err := e.buildMHB(); err != nil {
			var hb *historyBudgetError
			if !errors.As(err, &hb) {
				b.Fatal(err)
			}
			if _, err := hb.Index.result(); err != nil {
				b.Fatal(err)
			}
		}
		e.mhb = nil
		e.opts.arena.free()
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e9, "cpu-s/op")
}
