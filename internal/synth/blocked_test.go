// This file tests that Blocked's traces are what its program records:
// one go statement, start and write a worker, each worker's write its last
// event in the test's file and its send's read after it, and no end.

package synth

import (
	"testing"

	"github.com/seer-tools/seer/trace"
)

func TestBlocked(t *testing.T) {
	for _, tc := range []struct{ workers, filler int }{{1, 0}, {3, 2}} {
		tr, writes, err := Blocked(tc.workers, tc.filler)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(tr.Goroutines) - 1; n != 1+tc.workers || len(writes) != tc.workers {
			t.Fatalf("Blocked(%d, %d): %d goroutines, %d writes; want %d and %d", tc.workers, tc.filler, n, len(writes), 1+tc.workers, tc.workers)
		}
		if n, want := len(tr.Events), tc.workers*(4+tc.filler)+1; n != want {
			t.Errorf("Blocked(%d, %d): %d events, want %d", tc.workers, tc.filler, n, want)
		}
		for _, w := range writes {
			g := tr.Events[w].G
			if tr.Events[w].Op != trace.OpWrite || tr.Events[w-1].Op != trace.OpStart || tr.Events[w-1].G != g {
				t.Fatalf("Blocked(%d, %d): event %d is not a worker's write after its start", tc.workers, tc.filler, w)
			}
			for i := w + 1; i < len(tr.Events); i++ {
				if e := tr.Events[i]; e.G == g {
					if _, user := trace.UserFrame(tr.Stack(e.Stack), tr.Header.GOROOT); user || e.Op != trace.OpRead {
						t.Errorf("Blocked(%d, %d): goroutine %d's event %d after its write is not its send's read", tc.workers, tc.filler, g, i)
					}
				}
			}
		}
	}
	if _, _, err := Blocked(0, 0); err == nil {
		t.Error("Blocked(0, 0): no error")
	}
}
