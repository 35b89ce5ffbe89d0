// This file benchmarks the must-happen-before pass alone
// (clockMode{rfCheck: true}, the pass that leads the profiles of issue
// 31's ring and of the channel stress trace) with the journal's joins
// passing over the groups a receiver holds (treePrune, clock_journal.go)
// and without:
//
//	go test -run XXX -bench PassPrune -benchtime 3x ./predict

package predict

import (
	"context"
	"fmt"
	"testing"

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
