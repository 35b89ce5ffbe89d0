package predict

import (
	"math/rand"
	"testing"
)

// A cursor reads what valueAt reads, for positions that never decrease,
// from packed and unpacked rises alike.
func TestRiseCursor(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for it := 0; it < 3000; it++ {
		n := r.Intn(40)
		if it%10 == 0 {
			n = r.Intn(2000)
		}
		var ents []pv
		var p16 []uint32
		pos, v := int32(r.Intn(3)), int32(0)
		for k := 0; k < n; k++ {
			pos += 1 + int32(r.Intn(20))
			v += 1 + int32(r.Intn(5))
			ents = append(ents, pv{pos, v})
			p16 = append(p16, uint32(pos)<<16|uint32(v))
		}
		for _, rl := range []riseList{{ents: ents}, {p16: p16}} {
			c := riseCursor{r: rl}
			q := int32(0)
			for step := 0; step < 60; step++ {
				if r.Intn(3) > 0 {
					q += int32(r.Intn(1 + int(pos)/8))
				}
				if step == 59 {
					q = 1<<16 + 5
				}
				if got, want := c.valueAt(q), rl.valueAt(q); got != want {
					t.Fatalf("it %d: value at %d: cursor %d, valueAt %d", it, q, got, want)
				}
			}
		}
	}
}
