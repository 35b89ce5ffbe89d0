// This file implements the benchmark of the misuse layer's moved-section
// schedules (misuse_reorder.go) at the scale its bounds allow: senders on
// distinct lines, each sending on one channel inside a critical section
// that came before the closer's, so that every pair of sites is a
// candidate whose closure in observed order fails and whose moved
// schedule is built; checked, each sender reads the closer's flag in its
// section first (the fixed twin: nothing is proved, every candidate costs
// both), unchecked, it does not (every pattern is proved).
//
//	go test -run XXX -bench MisuseMoved ./predict

package predict

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
)

// movedSendTrace is the trace of n senders, the flag read in their
// sections when checked, then the closer's section.
func movedSendTrace(b *testing.B, n int, checked bool) string {
	b.Helper()
	var s strings.Builder
	for k := 0; k < n; k++ {
		fmt.Fprintf(&s, "g1 go g%d\n", k+2)
	}
	for k := 0; k < n; k++ {
		g := k + 2
		fmt.Fprintf(&s, "g%d lock mu\ng%d w local%d\n", g, g, k)
		if checked {
			fmt.Fprintf(&s, "g%d r closed\n", g)
		}
		fmt.Fprintf(&s, "g%d send c @%d\ng%d unlock mu\n", g, 100+k, g)
	}
	s.WriteString("g1 lock mu @10\ng1 w closed @11\ng1 close c @12\ng1 unlock mu @13\n")
	return s.String()
}

func BenchmarkMisuseMoved(b *testing.B) {
	for _, checked := range []bool{true, false} {
		for _, n := range []int{100, 1000} {
			name := fmt.Sprintf("unchecked/%d", n)
			if checked {
				name = fmt.Sprintf("checked/%d", n)
			}
			b.Run(name, func(b *testing.B) {
				tr, err := gotext.Build(movedSendTrace(b, n, checked))
				if err != nil {
					b.Fatal(err)
				}
				opts := Options{NoRaces: true, NoAtomicity: true, NoDeadlocks: true}
				var found int
				for b.Loop() {
					res, err := Analyze(context.Background(), tr, opts)
					if err != nil {
						b.Fatal(err)
					}
					found = len(res.Findings)
				}
				b.ReportMetric(float64(found), "findings")
			})
		}
	}
}
