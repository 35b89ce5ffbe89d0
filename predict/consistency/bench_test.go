// This file measures the checks on large histories: runs of a simulated
// sequentially consistent memory, so that no check can stop early.

package consistency

import (
	"fmt"
	"testing"
)

// scRun simulates procs processes doing ops operations in all on keys
// keys of a sequentially consistent memory, in a random interleaving.
func scRun(seed int64, procs, ops, keys int) *History {
	return simRun(seed, procs, ops, keys, memSC)
}

func BenchmarkCheck(b *testing.B) {
	for _, size := range []struct{ procs, ops, keys int }{{8, 10000, 16}, {4, 10000, 1}, {32, 10000, 64}} {
		h := scRun(1, size.procs, size.ops, size.keys)
		for _, m := range []Model{CC, CCv, CM, CCM} {
			b.Run(fmt.Sprintf("%s/p=%d/n=%d/k=%d", m, size.procs, size.ops, size.keys), func(b *testing.B) {
				for b.Loop() {
					res, err := Check(h, m)
					if err != nil || !res.Consistent {
						b.Fatalf("%v %v", res.Violation, err)
					}
				}
			})
		}
	}
}

// BenchmarkCheckSmall covers the NP-hard models on histories of the
// size the paper measures (200 operations, 4 processes).
func BenchmarkCheckSmall(b *testing.B) {
	h := scRun(2, 4, 200, 8)
	for _, m := range []Model{SC, TSO, WCCM} {
		b.Run(m.String(), func(b *testing.B) {
			for b.Loop() {
				res, err := Check(h, m)
				if err != nil || !res.Consistent {
					b.Fatalf("%v %v", res.Violation, err)
				}
			}
		})
	}
}

// TestLarge checks a 10,000-operation run under the polynomial criteria
// (it must be consistent), quickly enough for every go test.
func TestLarge(t *testing.T) {
	h := scRun(3, 8, 10000, 16)
	for _, m := range []Model{CC, CCv, CM, CCM} {
		res, err := Check(h, m)
		if err != nil || !res.Consistent {
			t.Fatalf("%s: %v %v", m, res.Violation, err)
		}
	}
}
