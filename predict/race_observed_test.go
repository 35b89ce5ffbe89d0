// This file tests the one-bit happens-before walk (race_observed.go) against
// the full vector-clock pass with locks (clock_pass.go).

package predict

import (
	"context"
	"math/rand"
	"testing"
)

func TestHBBeforeMatchesClocks(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for it := 0; it < 400; it++ {
		tr, text := genTrace(r, syncParams(r))
		c := newCTP(tr)
		m := newMemory(c)
		hb, _ := newClocks(context.Background(), c, m, clockMode{locks: true})
		n := int32(len(c.ev))
		var qs []hbQuery
		for len(qs) < 64 && n > 1 {
			a, b := r.Int31n(n), r.Int31n(n)
			if a > b {
				a, b = b, a
			}
			if a == b || c.ev[a].G == c.ev[b].G {
				if len(qs) == 0 && r.Intn(20) == 0 {
					break
				}
				continue
			}
			qs = append(qs, hbQuery{a, b})
		}
		got := hbBefore(c, qs)
		for k, q := range qs {
			want := !hb.concurrent(q.a, q.b)
			if g := got&(1<<uint(k)) != 0; g != want {
				t.Fatalf("events %d, %d: hbBefore %v, clocks %v\n%s", q.a, q.b, g, want, text)
			}
		}
	}
}
