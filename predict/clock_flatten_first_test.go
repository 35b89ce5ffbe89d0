// This file tests joinDense's early flatten (clock_vc.go's flattenFirst):
// a join whose receiver's delta, or whose rises alone, pass flattens'
// bound folds the clock into a new base without merging the delta first,
// and must give the very clock, mirror, rises and ownership the merge
// and then flatten gave.

package predict

import (
	"math/rand"
	"slices"
	"testing"
)

func TestJoinDenseFlattenFirstSame(t *testing.T) {
	defer func(fd int, on bool) { flattenDelta, flattenFirst = fd, on }(flattenDelta, flattenFirst)
	r := rand.New(rand.NewSource(17))
	const ng = 200
	var early, late, kept int
	for _, fd := range []int{0, 8, 32} {
		flattenDelta = fd
		pool := []vclock{{}}
		for step := 0; step < 8000; step++ {
			a, b, extras := randomJoin(r, pool, ng) // dense_test.go
			own := r.Intn(2) == 0
			type out struct {
				c            vclock
				d            []int32
				rises        []centry
				changed, own bool
			}
			var res [2]out
			for i, on := range []bool{false, true} {
				flattenFirst = on
				// Each way gets its own receiver: an owned delta may be
				// merged in place, and spare room lets it be.
				c := vclock{base: a.base, mid: a.mid, delta: append(make([]centry, 0, len(a.delta)+r.Intn(2*ng)), a.delta...)}
				d := make([]int32, ng)
				c.each(func(k, v int32) { d[k] = v })
				sc := &joinScratch{wantRises: true, tagged: true, self: int32(step % ng), pos: int32(step)}
				got, changed, o := joinDense(sc, c, own, d, b, extras...)
				res[i] = out{got, d, slices.Clone(sc.rises), changed, o}
			}
			off, on := res[0], res[1]
			if off.changed != on.changed || off.own != on.own || !slices.Equal(off.d, on.d) || !slices.Equal(off.rises, on.rises) {
				t.Fatalf("flattenDelta %d step %d: early flatten gave changed %v own %v mirror %v rises %v; merging first %v %v %v %v",
					fd, step, on.changed, on.own, on.d, on.rises, off.changed, off.own, off.d, off.rises)
			}
			// Layer and delta as one list: the receivers' deltas have
			// room of their own, and one merged in place where the other
			// kept its delta as a layer (clock_layer.go).
			if !slices.Equal(off.c.overTo(nil), on.c.overTo(nil)) || (off.c.base == nil) != (on.c.base == nil) {
				t.Fatalf("flattenDelta %d step %d: early flatten gave delta %v base %v; merging first %v %v", fd, step, on.c.overTo(nil), on.c.base, off.c.overTo(nil), off.c.base)
			}
			if fb, nb := off.c.base, on.c.base; fb != nil && fb != a.base {
				if nb == a.base || !slices.Equal(fb.ents, nb.ents) || fb.len() != nb.len() || fb.prev != nb.prev || fb.og != nb.og || fb.op != nb.op {
					t.Fatalf("flattenDelta %d step %d: early flatten gave base %+v; merging first %+v", fd, step, *nb, *fb)
				}
			}
			bl := 0
			if a.base != nil {
				bl = a.base.len()
			}
			switch {
			case off.c.base != a.base && flattens(max(len(a.delta), len(off.rises)), bl):
				early++
			case off.c.base != a.base:
				late++
			default:
				kept++
			}
			pool = append(pool, on.c)
			if len(pool) > 64 {
				pool = pool[len(pool)-64:]
			}
		}
	}
	// Each way must have been taken, or the test says nothing.
	if early == 0 || late == 0 || kept == 0 {
		t.Fatalf("joins flattened early %d, after merging %d, kept their base %d", early, late, kept)
	}
	t.Logf("joins flattened early %d, after merging %d, kept their base %d", early, late, kept)
}
