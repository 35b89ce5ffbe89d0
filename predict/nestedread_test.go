// This file checks recursive read locking (ctp_sections.go's outer read
// sections, deadlock_rwmutex.go) against the exhaustive oracle
// (oracle_test.go) on random traces whose read sections sometimes
// read-lock again inside: every race and atomicity finding is one the
// oracle finds, and every finding's witness passes the checker (Analyze
// fails otherwise).

package predict

import (
	"context"
	"math/rand"
	"strings"
	"testing"
)

func TestOracleSoundnessNestedRead(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	r := rand.New(rand.NewSource(32))
	tested, nested := 0, 0
	for k := 0; k < n; k++ {
		p := genParams{goroutines: 2 + r.Intn(3), vars: 1 + r.Intn(2), locks: 1 + r.Intn(2), sigs: r.Intn(2),
			ops: 2 + r.Intn(4), tx: r.Intn(2) == 0, cut: 0.02, nestedRead: true}
		tr, text := genTrace(r, p)
		if len(tr.Events) > 16 {
			continue
		}
		tested++
		if nestedReadIn(text) {
			nested++
		}
		csTx := r.Intn(2) == 0
		res, err := Analyze(context.Background(), tr, Options{CriticalSectionsAsTransactions: csTx})
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		o := newOracle(tr, csTx)
		o.run()
		o.sound(t, res, text)
	}
	t.Logf("%d traces, %d with a recursive read lock", tested, nested)
	if nested < tested/20 {
		t.Errorf("only %d of %d traces read-lock recursively", nested, tested)
	}
}

// nestedReadIn reports whether a trace in the test notation read-locks a
// lock its goroutine already holds for reading.
func nestedReadIn(text string) bool {
	depth := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Split(line, "|")
		if len(f) < 2 {
			continue
		}
		switch {
		case strings.HasPrefix(f[1], "racq("):
			k := f[0] + f[1][len("racq"):]
			if depth[k]++; depth[k] > 1 {
				return true
			}
		case strings.HasPrefix(f[1], "rrel("):
			depth[f[0]+f[1][len("rrel"):]]--
		}
	}
	return false
}

// sound fails t unless every race and atomicity finding of res is one
// the oracle found on its trace (text, for the message).
func (o *oracle) sound(t *testing.T, res *Result, text string) {
	t.Helper()
	for _, f := range res.Findings {
		switch f.Kind {
		case KindRace:
			if !o.races[[2]int{f.Events[0], f.Events[1]}] {
				t.Fatalf("unsound race %v (witness %v)\n%s", f.Events, f.Schedule(o.t), text)
			}
		case KindAtomicity:
			if !o.atoms[[3]int{f.Events[0], f.Events[1], f.Events[2]}] {
				t.Fatalf("unsound atomicity %v (witness %v)\n%s", f.Events, f.Schedule(o.t), text)
			}
		}
	}
}
