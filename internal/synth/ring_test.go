// This file tests that Ring's traces are what its program records: the
// counts of its comment, every receive naming a send on its own channel,
// no channel over its capacity of one, and no finding.

package synth

import (
	"context"
	"testing"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
)

func TestRing(t *testing.T) {
	for _, tc := range []struct{ workers, rounds int }{{2, 1}, {3, 4}, {50, 3}} {
		tr, err := Ring(tc.workers, tc.rounds)
		if err != nil {
			t.Fatal(err)
		}
		if n, want := len(tr.Goroutines)-1, 1+tc.workers*(1+tc.rounds); n != want {
			t.Errorf("Ring(%d, %d): %d goroutines, want %d", tc.workers, tc.rounds, n, want)
		}
		held := map[trace.ObjID]int{}
		recvs := 0
		for i, e := range tr.Events {
			switch e.Op {
			case trace.OpSend:
				if held[e.Obj]++; held[e.Obj] > 1 {
					t.Fatalf("Ring(%d, %d): event %d sends on a full channel", tc.workers, tc.rounds, i)
				}
			case trace.OpRecv:
				if e.Peer < 0 {
					continue // a done channel's close
				}
				recvs++
				if s := tr.Events[e.Peer]; s.Op != trace.OpSend || s.Obj != e.Obj || int(e.Peer) > i {
					t.Fatalf("Ring(%d, %d): receive %d names %d, not an earlier send on its channel", tc.workers, tc.rounds, i, e.Peer)
				}
				held[e.Obj]--
			}
		}
		if want := tc.workers * tc.rounds; recvs != want {
			t.Errorf("Ring(%d, %d): %d token receives, want %d", tc.workers, tc.rounds, recvs, want)
		}
		res, err := predict.Analyze(context.Background(), tr, predict.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			t.Errorf("Ring(%d, %d): a finding on a race-free program: %s", tc.workers, tc.rounds, f.Kind)
		}
	}
	if _, err := Ring(1, 1); err == nil {
		t.Error("Ring(1, 1): no error for a ring of one")
	}
}
