// This file tests the lock and from-read filter (cone_lockread.go): pond's
// submit and Stop, dropped without the cone where the submitter's flag
// read saw the initial value, kept where it saw Stop's write or a write
// Stop's may follow; and, on random programs of such sections, the
// findings with and without the filter are the same while it drops
// candidates.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestLockReadFilterPond: T2 submits (under mu, reads the stopped flag f,
// then touches x), T3 stops (under mu, writes f; after it, writes x).
func TestLockReadFilterPond(t *testing.T) {
	const head = `
T1|fork(T2)|6
T1|fork(T3)|7
`
	const submit = `
T2|acq(mu)|10
T2|ald(f)|11
T2|r(x)|12
T2|rel(mu)|13
`
	// stop is T3's section writing the flag with op, then its write of x.
	stop := func(op string) string {
		return fmt.Sprintf("T3|acq(mu)|20\nT3|%s|21\nT3|rel(mu)|22\nT3|w(x)|23\n", op)
	}
	reads := strings.NewReplacer("acq(mu)", "racq(mu)", "rel(mu)", "rrel(mu)")
	const race = "race 12-23 predicted"
	filterCases(t, &lockReadFilter, []filterCase{
		// The submitter's load saw the initial flag: Stop's section,
		// which writes it, cannot run before the submitter's.
		{"flag read the initial value", head + submit + stop("ast(f)"), "", false},
		// The same with a plain read and write of the flag.
		{"plain flag", head + strings.Replace(submit, "ald(f)", "r(f)", 1) + stop("w(f)"), "", false},
		// T1 wrote the flag before starting T3, so the load's writer
		// still precedes Stop's write: refused the same.
		{"flag read a write before the fork", "T1|ast(f)|5" + head + submit + stop("ast(f)"), "", false},
		// The same write after the forks: a witness runs Stop's
		// section, then T1's write, then the submitter.
		{"flag read a write after the fork", head + "T1|ast(f)|5\n" + submit + stop("ast(f)"), race, true},
		// Stop writes another variable: its section may run first.
		{"stop writes no flag", head + submit + stop("ast(g)"), race, true},
		// The flag's writer is T4, unordered with Stop's write: a
		// witness runs Stop's section, T4's write, then the submitter.
		{"flag read an unordered write", head + "T1|fork(T4)|8\nT4|ast(f)|30\n" + submit + stop("ast(f)"), race, true},
		// Stop writes the flag after its section: a witness runs
		// the section, the submitter's up to x, then that write and y.
		{"flag written after the section", head + submit + "T3|acq(mu)|20\nT3|rel(mu)|22\nT3|ast(f)|21\nT3|w(x)|23\n", race, true},
		// Read sections may overlap: the filter does not apply.
		{"two read sections", head + reads.Replace(submit+stop("ast(f)")), race, true},
	})
}

// filterCase is a run in the STD notation, the findings wanted (describe's
// text) and whether the cone is made with the filter on.
type filterCase struct {
	name, trace, want string
	cone              bool
}

// filterCases analyses each case with *filter on and off: the findings
// must be the same, and the cone made as the case says with the filter,
// always without it.
func filterCases(t *testing.T, filter *bool, cases []filterCase) {
	t.Helper()
	defer func(f bool) { *filter = f }(*filter)
	for _, tc := range cases {
		for _, on := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/filter=%v", tc.name, on), func(t *testing.T) {
				*filter = on
				tr, err := buildTrace(tc.trace)
				if err != nil {
					t.Fatal(err)
				}
				res := analyze(t, tr, Options{NoAtomicity: true, NoDeadlocks: true, NoMisuse: true})
				if got := describe(tr, res.Findings); got != tc.want {
					t.Errorf("got %q, want %q", got, tc.want)
				}
				if made := res.Stats.Cone > 0; made != (tc.cone || !on) {
					t.Errorf("cone made: %v, want %v", made, tc.cone || !on)
				}
			})
		}
	}
}

// TestLockReadFilterSound compares the findings with and without the
// filter on random programs of submit- and Stop-like sections of one or
// two locks (exclusive or read), with plain and atomic flag accesses
// inside and outside them and writes before the goroutines start. The
// filter may only leave fewer candidates to the cone's layers, never
// change a finding; the test asks that it dropped some, and that some
// programs have races, so that it tests the filter at all.
func TestLockReadFilterSound(t *testing.T) {
	defer func(f bool) { lockReadFilter = f }(lockReadFilter)
	r := rand.New(rand.NewSource(7))
	var dropped, races int
	for n := 0; n < 400; n++ {
		text := lockReadProgram(r)
		tr, err := buildTrace(text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		var got [2]string
		var left [2]int64
		for k, f := range []bool{true, false} {
			lockReadFilter = f
			res, err := Analyze(context.Background(), tr, Options{NoAtomicity: true, NoDeadlocks: true, NoMisuse: true})
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			got[k], left[k] = describe(tr, res.Findings), stage(res, "sync-preserving").Races
		}
		if got[0] != got[1] {
			t.Fatalf("with the filter %q, without %q, on\n%s", got[0], got[1], text)
		}
		if left[0] > left[1] {
			t.Fatalf("with the filter %d candidates left to the cone, without %d, on\n%s", left[0], left[1], text)
		}
		if left[0] < left[1] {
			dropped++
		}
		if strings.Contains(got[1], "race") {
			races++
		}
	}
	if dropped == 0 || races == 0 {
		t.Errorf("the filter dropped candidates on %d programs, %d had a race: want some of each", dropped, races)
	}
	t.Logf("the filter dropped candidates on %d programs, %d had a race", dropped, races)
}

// lockReadProgram returns a random run, in the STD notation, of up to
// five threads: T1 may write the flags, then starts the others, which run
// whole blocks in turn: a submit (lock, flag read, access of x or y,
// unlock), a stop (lock, flag write, unlock, access of x or y; or the
// flag written after the unlock), or a
// plain or atomic access of a flag or of x.
func lockReadProgram(r *rand.Rand) string {
	var b strings.Builder
	line := 10
	sameSites := r.Intn(2) == 0 // the blocks' events share sites by role
	emit := func(g, op string, site int) {
		if !sameSites {
			site = line
		}
		fmt.Fprintf(&b, "%s|%s|%d\n", g, op, site)
		line++
	}
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	threads := 2 + r.Intn(4)
	for k := 0; k < r.Intn(3); k++ {
		emit("T1", pick("w(f)", "ast(f)", "w(h)"), 1)
	}
	for k := 2; k <= threads; k++ {
		emit("T1", fmt.Sprintf("fork(T%d)", k), 2)
	}
	lock := func() (string, string, string) {
		mu := pick("mu", "mu", "nu")
		if r.Intn(4) == 0 {
			return mu, "racq(" + mu + ")", "rrel(" + mu + ")"
		}
		return mu, "acq(" + mu + ")", "rel(" + mu + ")"
	}
	for k := 0; k < 4+r.Intn(10); k++ {
		g := fmt.Sprintf("T%d", 2+r.Intn(threads-1))
		switch r.Intn(5) {
		case 0, 1: // submit
			_, acq, rel := lock()
			emit(g, acq, 20)
			emit(g, pick("r(f)", "ald(f)", "r(h)"), 21)
			if r.Intn(3) == 0 {
				emit(g, pick("r(f)", "ald(h)"), 22)
			}
			emit(g, pick("r(x)", "w(x)", "r(y)"), 23)
			emit(g, rel, 24)
		case 2, 3: // stop, the flag written in its section or after it
			_, acq, rel := lock()
			after := r.Intn(3) == 0
			emit(g, acq, 30)
			if !after {
				emit(g, pick("w(f)", "ast(f)", "ast(h)", "r(f)"), 31)
			}
			emit(g, rel, 32)
			if after {
				emit(g, pick("w(f)", "ast(f)"), 34)
			}
			emit(g, pick("w(x)", "r(x)", "w(y)"), 33)
		default:
			emit(g, pick("w(f)", "ast(f)", "r(f)", "w(x)", "w(h)"), 40)
		}
	}
	return b.String()
}
