// This file tests the schedule half of the nil-dereference layer
// (nilderef.go) on small Go-like traces. The static half is the source's
// (package static, tested there and end to end in predict/check); here
// the store of nil is the write on line 20 and the dereferenced read the
// read on line 10 (a map's read assigned an entry, line 11), as the
// source would say, and the table checks which
// orders of critical sections the layer proves, with witnesses the
// checker accepts (Analyze rejects a finding whose witness it does not),
// and which it leaves.

package predict

import (
	"context"
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

func TestNilDerefSchedules(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        string // describe's text of the findings
	}{
		{"reader's section first", `
g1 go g2
g2 lock mu
g2 r p @10
g2 unlock mu
g1 lock mu
g1 w p @20
g1 unlock mu
`, "nil-dereference 20-10 predicted"},
		{"a map's writer's section first", `
g1 go g2
g2 lock mu
g2 r p @11
g2 unlock mu
g1 lock mu
g1 w p @20
g1 unlock mu
`, "nil-map-write 20-11 predicted"},
		{"no locks", `
g1 go g2
g2 r p @10
g1 w p @20
`, "nil-dereference 20-10 predicted"},
		{"the store's section sets a flag the reader checks first", `
g1 go g2
g2 lock mu
g2 r closed
g2 r p @10
g2 unlock mu
g1 lock mu
g1 w closed
g1 w p @20
g1 unlock mu
`, ""},
		{"the reader hands over before the store", `
g1 go g2
g2 lock mu
g2 r p @10
g2 unlock mu
g2 send c
g1 recv c
g1 lock mu
g1 w p @20
g1 unlock mu
`, ""},
		{"the reader receives inside its section", `
g1 go g2
g1 go g3
g2 lock mu
g3 send c
g2 recv c
g2 r p @10
g2 unlock mu
g1 lock mu
g1 w p @20
g1 unlock mu
`, ""},
		{"the store's section never ends", `
g1 go g2
g2 lock mu
g2 r p @10
g2 unlock mu
g1 lock mu
g1 w p @20
`, ""},
		{"another write between the store and the read's section", `
g1 go g2
g1 go g3
g2 lock mu
g2 r p @10
g2 unlock mu
g1 lock mu
g1 w p @20
g1 unlock mu
g3 lock mu
g3 w p @30
g3 unlock mu
`, "nil-dereference 20-10 predicted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := gotext.Build(tc.trace)
			if err != nil {
				t.Fatal(err)
			}
			line := func(t *trace.Trace, i int) int { return t.Site(&t.Events[i]).Line }
			opts := Options{NoRaces: true, NoAtomicity: true, NoDeadlocks: true, NoMisuse: true,
				NilStore: func(t *trace.Trace, w int) bool { return line(t, w) == 20 },
				NilUse: func(t *trace.Trace, r int) report.Kind {
					switch line(t, r) {
					case 10:
						return KindNilDeref
					case 11:
						return KindNilMapWrite
					}
					return ""
				}}
			res, err := Analyze(context.Background(), tr, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(tr, res.Findings); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
			for i := range res.Findings {
				if err := CheckWitness(tr, &res.Findings[i], opts); err != nil {
					t.Errorf("witness rejected: %v", err)
				}
			}
		})
	}
}
