package predict

import (
	"math/rand"
	"testing"
)

// sparseVals reads back what was added, and 0 for the rest, whether few
// events or most have a value.
func TestSparseVals(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, share := range []float64{0, 0.01, 0.5, 1} {
		n := 1000 + r.Intn(200)
		want := make([]int32, n)
		s := newSparseVals(n)
		for i := range want {
			if r.Float64() < share {
				want[i] = 1 + r.Int31n(50)
			}
			s.add(int32(i), want[i])
		}
		s.done()
		for i, w := range want {
			if got := s.at(int32(i)); got != w {
				t.Fatalf("share %v: event %d has %d, want %d", share, i, got, w)
			}
		}
	}
}
