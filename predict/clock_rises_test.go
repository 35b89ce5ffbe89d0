package predict

import (
	"math/rand"
	"testing"
)

// The packed form of a component's rises answers every query as the
// plain one does: solve_plan.go reads the causal cone's history in place.
func TestRiseListPacked(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		var ents []pv
		var p16 []uint32
		pos, v := int32(0), int32(0)
		for k := r.Intn(40); k > 0; k-- {
			pos += 1 + int32(r.Intn(50))
			v += 1 + int32(r.Intn(50))
			ents = append(ents, pv{pos, v})
			p16 = append(p16, uint32(pos)<<16|uint32(v))
		}
		plain, packed := riseList{ents: ents}, riseList{p16: p16}
		for q := int32(-1); q <= pos+2; q++ {
			if a, b := plain.valueAt(q), packed.valueAt(q); a != b {
				t.Fatalf("%v: valueAt(%d) = %d plain, %d packed", ents, q, a, b)
			}
		}
		for w := int32(-1); w <= v+2; w++ {
			if a, b := plain.firstAbove(w), packed.firstAbove(w); a != b {
				t.Fatalf("%v: firstAbove(%d) = %d plain, %d packed", ents, w, a, b)
			}
		}
		if a, b := plain.valueAt(1<<16), packed.valueAt(1<<16); a != b {
			t.Fatalf("%v: valueAt past 16 bits = %d plain, %d packed", ents, a, b)
		}
	}
}
