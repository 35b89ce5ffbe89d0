// This file tests the misuse layer (misuse.go) on small Go-like traces:
// the misuses another schedule shows, with witnesses the checker accepts,
// the ones the run itself showed, and the correct twins of each, which
// no schedule fails on.

package predict

import (
	"context"
	"strings"
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
	"github.com/seer-tools/seer/trace"
)

func TestMisuse(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        string // describe's text of the misuse findings
	}{
		{"send racing with close", `
g1 go g2
g2 send c @10
g2 w x
g1 close c @20
g1 r x
`, "send-on-closed 20-10 predicted"},
		{"close after receiving the send", `
g1 go g2
g2 send c @10
g1 recv c
g1 close c @20
`, ""},
		{"send after close in the run", `
g1 go g2
g1 close c @20
g2 send c @10
`, "send-on-closed 20-10"},
		{"two closes in the trace", `
g1 go g2
g2 close c @10
g1 w x
g1 close c @20
`, "close-of-closed 10-20; close-of-closed 20-10 predicted"},
		{"two closes ordered", `
g1 go g2
g2 close c @10
g2 w x
g1 r x
g1 close c @20
`, "close-of-closed 10-20"},
		{"send in a section before the close's section", `
g1 go g2
g2 lock mu
g2 send c @10
g2 unlock mu
g1 lock mu
g1 close c @20
g1 w closed
g1 unlock mu
`, "send-on-closed 20-10 predicted"},
		{"send in a section that checks the flag first", `
g1 go g2
g2 lock mu
g2 r closed
g2 send c @10
g2 unlock mu
g1 lock mu
g1 close c @20
g1 w closed
g1 unlock mu
`, ""},
		{"send in a section after a check outside it", `
g1 go g2
g2 r closed
g2 lock mu
g2 send c @10
g2 unlock mu
g1 lock mu
g1 close c @20
g1 w closed
g1 unlock mu
`, "send-on-closed 20-10 predicted"},
		{"send in a section the closer receives before closing", `
g1 go g2
g2 lock mu
g2 send c @10
g2 unlock mu
g1 recv c
g1 lock mu
g1 close c @20
g1 unlock mu
`, ""},
		{"send in a section that receives first", `
g1 go g2
g1 go g3
g3 send d
g2 lock mu
g2 recv d
g2 send c @10
g2 unlock mu
g1 lock mu
g1 close c @20
g1 unlock mu
`, ""},
		{"send in a section after another send", `
g1 go g2
g2 lock mu
g2 send c @11
g2 send c @10
g2 unlock mu
g1 lock mu
g1 close c @20
g1 unlock mu
`, "send-on-closed 20-11 predicted"},
		{"two closes in sections", `
g1 go g2
g2 lock mu
g2 close c @10
g2 unlock mu
g1 lock mu
g1 close c @20
g1 unlock mu
`, "close-of-closed 10-20; close-of-closed 20-10 predicted"},
		{"Add after the go statement", `
g1 go g2
g1 add wg 1 @10
g2 done wg @20
g1 wait wg @30
`, "negative-waitgroup 20 predicted"},
		{"Done at zero in the run", `
g1 go g2
g2 done wg @20
`, "negative-waitgroup 20"},
		{"Add before the go statement", `
g1 add wg 1 @10
g1 go g2
g2 done wg @20
g1 wait wg @30
`, ""},
		{"an extra Done", `
g1 add wg 1 @10
g1 go g2
g1 add wg 1 @11
g1 go g3
g2 done wg @20
g2 done wg @21
g3 w x @30
g1 wait wg @40
`, "negative-waitgroup 21 predicted"},
		{"Add inside the goroutine", `
g1 go g2
g2 add wg 1 @10
g2 done wg @20
g1 wait wg @30
`, "waitgroup-reuse 30-10 predicted"},
		{"Add inside the goroutine, Wait first in the run", `
g1 go g2
g1 wait wg @30
g2 add wg 1 @10
g2 done wg @20
`, "waitgroup-reuse 30-10"},
		{"Add at one inside the goroutine", `
g1 add wg 1 @5
g1 go g2
g2 add wg 1 @10
g2 done wg @20
g2 done wg @21
g1 wait wg @30
`, ""},
		{"reused in rounds", `
g1 add wg 1 @5
g1 go g2
g2 done wg @20
g1 wait wg @30
g1 add wg 1 @6
g1 go g3
g3 done wg @21
g1 wait wg @31
`, ""},
		{"unlock of a lock another goroutine took", `
g1 go g2
g2 lock mu @10
g2 unlock mu @11
g1 lock mu @20
g2 unlock mu @12
`, "unlock-of-unlocked 12 predicted"},
		{"unlock in the run of a free lock", `
g1 go g2
g2 lock mu @10
g2 unlock mu @11
g2 unlock mu @12
`, "unlock-of-unlocked 12"},
		{"unlock of a mutex copied while held", `
g1 go g2
g2 unlock mu @10
g1 lock mu @20
g2 unlock mu @11
`, ""},
		{"unlock of a mutex overwritten in use", `
g1 go g2
g2 lock mu @10
g2 unlock mu @11
g1 lock mu @20
g1 w mu @21
g2 unlock mu @12
`, ""},
		{"locks used as locks", `
g1 go g2
g2 lock mu @10
g2 unlock mu @11
g1 lock mu @20
g1 unlock mu @21
`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := gotext.Build(tc.trace)
			if err != nil {
				t.Fatal(err)
			}
			res := wantMisuse(t, tr, tc.want)
			if st := stage(res, "misuse"); strings.Count(tc.want, "-") > 0 && st.MisuseSites == 0 {
				t.Errorf("misuse row %+v proves nothing", st)
			}
		})
	}
}

// wantMisuse analyses tr with the misuse layer alone, checks that
// describe's text of its findings is want and that the checker accepts
// every witness, and returns the result.
func wantMisuse(t *testing.T, tr *trace.Trace, want string) *Result {
	t.Helper()
	res, err := Analyze(context.Background(), tr, Options{NoRaces: true, NoAtomicity: true, NoDeadlocks: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(tr, res.Findings); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for i := range res.Findings {
		if err := CheckWitness(tr, &res.Findings[i], Options{}); err != nil {
			t.Errorf("witness rejected: %v", err)
		}
	}
	return res
}
