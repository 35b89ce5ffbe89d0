// This file tests the covering filter of negative-waitgroup
// (misuse_wgcover.go): a group whose every Done has its own unit of an Add
// that must come before it tries no Done, and one that has not is still
// tried and proved.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
)

func TestMisuseWaitGroupCovered(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        string // describe's text of the misuse findings
		tried       int64  // the misuse row's candidates tried
	}{
		// Done 20 must follow one Add and need not follow Done 21: the
		// per-Done filter lets it through, the pairing does not.
		{"each Add before its go statement", `
g1 add wg 1 @10
g1 go g2
g1 add wg 1 @11
g1 go g3
g2 done wg @20
g3 done wg @21
g1 wait wg @30
`, "", 0},
		// Adds of two goroutines: g4's Done takes g2's unit, g3's takes
		// g1's. (No Wait: one concurrent with g2's Add is a reuse.)
		{"Adds of two goroutines", `
g1 add wg 1 @10
g1 go g2
g1 go g3
g2 add wg 1 @11
g2 go g4
g3 done wg @20
g4 done wg @21
`, "", 0},
		{"one Add of two units", `
g1 add wg 2 @10
g1 go g2
g1 go g3
g2 done wg @20
g3 done wg @21
g1 wait wg @30
`, "", 0},
		// g2's second Done has no unit of its own: not covered, tried,
		// and proved as before.
		{"an extra Done", `
g1 add wg 1 @10
g1 go g2
g1 add wg 1 @11
g1 go g3
g2 done wg @20
g2 done wg @21
g3 w x @30
g1 wait wg @40
`, "negative-waitgroup 21 predicted", 1},
		{"Add after the go statement", `
g1 go g2
g1 add wg 1 @10
g2 done wg @20
g1 wait wg @30
`, "negative-waitgroup 20 predicted", 1},
	} {
		t.Run(tc.name, func(t *testing.T) { wantMisuseTried(t, tc.trace, tc.want, tc.tried) })
	}
}

// TestMisuseWaitGroupCoveredSound compares the misuse findings with and
// without the covering filter on random WaitGroup programs: goroutines
// that start others, Add (before or after their go statements), Done, pass
// values through shared variables, and Wait where the run's counter is
// zero. The filter may only save closures, never lose a finding; the test
// also asks that it saved some, so that it tests the filter at all.
func TestMisuseWaitGroupCoveredSound(t *testing.T) {
	defer func(c bool) { wgCover = c }(wgCover)
	r := rand.New(rand.NewSource(31))
	saved, found := 0, 0
	for n := 0; n < 300; n++ {
		text := wgProgram(r)
		tr, err := gotext.Build(text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		var got [2]string
		var tried [2]int64
		for k, cover := range []bool{true, false} {
			wgCover = cover
			res, err := Analyze(context.Background(), tr, Options{NoRaces: true, NoAtomicity: true, NoDeadlocks: true})
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			got[k], tried[k] = describe(tr, res.Findings), stage(res, "misuse").Misuse
		}
		if got[0] != got[1] {
			t.Fatalf("with the filter %q, without %q, on\n%s", got[0], got[1], text)
		}
		if tried[0] > tried[1] {
			t.Fatalf("with the filter %d tried, without %d, on\n%s", tried[0], tried[1], text)
		}
		if tried[0] < tried[1] {
			saved++
		}
		if strings.Contains(got[1], "negative-waitgroup") {
			found++
		}
	}
	if saved == 0 || found == 0 {
		t.Errorf("of 300 programs the filter saved closures on %d, %d had a negative-waitgroup finding: want some of each", saved, found)
	}
	t.Logf("filter saved closures on %d programs; %d had a negative-waitgroup finding", saved, found)
}

// wgProgram returns a random run, in gotext's notation, of up to five
// goroutines using one WaitGroup: its counter never below zero and a Wait
// only where it is zero, as a run that did not panic records them.
func wgProgram(r *rand.Rand) string {
	var b strings.Builder
	gs := 2 + r.Intn(4)
	started, next := []int{1}, 2
	counter := 0
	for line := 10; line < 10+8+r.Intn(24); line++ {
		g := started[r.Intn(len(started))]
		switch x := r.Intn(10); {
		case x < 2 && next <= gs:
			fmt.Fprintf(&b, "g%d go g%d @%d\n", g, next, line)
			started = append(started, next)
			next++
		case x < 5:
			d := 1 + r.Intn(2)
			fmt.Fprintf(&b, "g%d add wg %d @%d\n", g, d, line)
			counter += d
		case x < 8 && counter > 0:
			fmt.Fprintf(&b, "g%d done wg @%d\n", g, line)
			counter--
		case x < 9 && counter == 0:
			fmt.Fprintf(&b, "g%d wait wg @%d\n", g, line)
		default:
			fmt.Fprintf(&b, "g%d %s x @%d\n", g, []string{"r", "w"}[r.Intn(2)], line)
		}
	}
	return b.String()
}
