// This file benchmarks the must-happen-before pass alone
// (clockMode{rfCheck: true}, the pass that leads the profiles of issue
// 31's ring and of the channel stress trace) with the journal's joins
// passing over the groups a receiver holds (treePrune, clock_journal.go)
// and without:
//
//	go test -run XXX -bench PassPrune -benchtime 3x ./predict
//
// and, on a recorded trace, with the journal's back-off
// (clock_journal_backoff.go) and without, the pass as seer predict runs
// it under its default -maxmem (the history's budget a tenth of 1 GiB):
//
//	SEER_BENCH_TRACE=T go test -run XXX -bench JournalBackoff -benchtime 2x ./predict

package predict

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

func BenchmarkPassPrune(b *testing.B) {
	ring, err := synthtrace.Ring(1000, 50)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tr   *trace.Trace
	}{{"ring", ring}, {"chan", synthChan(1000, 100, 50_000, 1)}} {
		c := newCTP(tc.tr)
		m := newMemory(c)
		for _, prune := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/prune=%v", tc.name, prune), func(b *testing.B) {
				defer func(p bool) { treePrune = p }(treePrune)
				treePrune = prune
				run := func() {
					if _, err := newClocks(context.Background(), c, m, clockMode{rfCheck: true}); err != nil {
						b.Fatal(err)
					}
				}
				timeEvents(b, len(tc.tr.Events), run)
			})
		}
	}
}

func BenchmarkJournalBackoff(b *testing.B) {
	c, m := benchTrace(b) // race_handoff_trace_bench_test.go
	// In turn, three times: the machine's speed drifts.
	for range 3 {
		for _, cap := range []uint8{0, journalBackoffCap} {
			runtime.GC()
			b.Run(fmt.Sprintf("cap=%d", cap), func(b *testing.B) {
				defer func(c uint8) { journalBackoffCap = c }(journalBackoffCap)
				journalBackoffCap = cap
				cpu0 := processCPU()
				for range b.N {
					mode := clockMode{rfCheck: true, budget: 1 << 30 / 10}
					if useChains {
						mode.chains = newChainMap(c)
					}
					_, err := newClocks(context.Background(), c, m, mode)
					if hb := (*historyBudgetError)(nil); err != nil && !errors.As(err, &hb) {
						b.Fatal(err)
					}
				}
				b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// processCPU is the user and system CPU time the process has used, on
// all its threads (the collector's too).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
