// This file implements random valid traces for property tests and
// benchmarks: random goroutine programs (accesses, atomics, critical
// sections, release/acquire signals, transactions, go and join) run by a
// random scheduler that respects locks and joins, so the trace is one a
// program could have produced. A run that deadlocks, or is cut short,
// leaves critical sections open, as a panicking test does.

package predict

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/seer-tools/seer/trace"
)

type genParams struct {
	goroutines, vars, locks, sigs int
	ops                           int     // ops per goroutine (before expansion)
	atomics, tx                   bool    // generate atomics, transactions
	nestedRead                    bool    // read-lock recursively inside some read sections
	cut                           float64 // chance to stop the run early
}

// genText returns a random trace in the test notation.
func genText(r *rand.Rand, p genParams) string {
	type op struct{ name, arg string }
	progs := make([][]op, p.goroutines+1)
	vname := func() string { return fmt.Sprintf("v%d", r.Intn(p.vars)) }
	for g := 2; g <= p.goroutines; g++ {
		progs[1] = append(progs[1], op{"fork", fmt.Sprintf("T%d", g)})
	}
	for g := 1; g <= p.goroutines; g++ {
		var prog []op
		inTx := false
		for k := 0; k < p.ops; k++ {
			switch x := r.Intn(12); {
			case x < 5:
				prog = append(prog, op{[]string{"r", "w"}[r.Intn(2)], vname()})
			case x < 7 && p.locks > 0:
				l := fmt.Sprintf("L%d", r.Intn(p.locks))
				acq, rel := "acq", "rel"
				if r.Intn(5) == 0 || p.nestedRead && r.Intn(2) == 0 {
					acq, rel = "racq", "rrel"
				}
				prog = append(prog, op{acq, l})
				for n := 1 + r.Intn(2); n > 0; n-- {
					prog = append(prog, op{[]string{"r", "w"}[r.Intn(2)], vname()})
				}
				if p.nestedRead && acq == "racq" && r.Intn(2) == 0 {
					// A recursive read lock (a method that read-locks
					// calling another that does).
					prog = append(prog, op{"racq", l}, op{[]string{"r", "w"}[r.Intn(2)], vname()}, op{"rrel", l})
				}
				prog = append(prog, op{rel, l})
			case x == 7 && p.locks > 0 && r.Intn(4) == 0:
				// Unlock a mutex that another goroutine locked (legal in
				// Go): the holder's own unlock then does nothing.
				prog = append(prog, op{"hrel", fmt.Sprintf("L%d", r.Intn(p.locks))})
			case x < 8 && p.sigs > 0:
				prog = append(prog, op{[]string{"sig", "wait", "merge", "relacq"}[r.Intn(4)], fmt.Sprintf("S%d", r.Intn(p.sigs))})
			case x < 9 && p.atomics:
				prog = append(prog, op{[]string{"ald", "ast", "armw"}[r.Intn(3)], vname()})
			case x < 11 && p.tx:
				if inTx {
					prog = append(prog, op{"end", ""})
				} else {
					prog = append(prog, op{"begin", ""})
				}
				inTx = !inTx
			default:
				prog = append(prog, op{[]string{"r", "w"}[r.Intn(2)], vname()})
			}
		}
		if inTx {
			prog = append(prog, op{"end", ""})
		}
		progs[g] = append(progs[g], prog...)
	}
	if r.Intn(3) == 0 {
		for g := 2; g <= p.goroutines; g++ {
			progs[1] = append(progs[1], op{"join", fmt.Sprintf("T%d", g)})
		}
	}
	// Run.
	pc := make([]int, p.goroutines+1)
	started := make([]bool, p.goroutines+1)
	started[1] = true
	writer := map[string]int{}
	readers := map[string]map[int]int{}
	var out strings.Builder
	line := 0
	for {
		var ready []int
		for g := 1; g <= p.goroutines; g++ {
			if !started[g] || pc[g] >= len(progs[g]) {
				continue
			}
			o := progs[g][pc[g]]
			ok := true
			switch o.name {
			case "acq":
				ok = writer[o.arg] == 0 && len(readers[o.arg]) == 0
			case "racq":
				ok = writer[o.arg] == 0
			case "hrel":
				ok = writer[o.arg] != 0 && writer[o.arg] != g
			case "join":
				var c int
				fmt.Sscanf(o.arg, "T%d", &c)
				ok = started[c] && pc[c] >= len(progs[c])
			}
			if ok {
				ready = append(ready, g)
			}
		}
		if len(ready) == 0 || r.Float64() < p.cut {
			break
		}
		g := ready[r.Intn(len(ready))]
		o := progs[g][pc[g]]
		pc[g]++
		switch o.name {
		case "acq":
			writer[o.arg] = g
		case "hrel":
			writer[o.arg] = 0
			o.name = "rel"
		case "rel":
			if writer[o.arg] != g { // handed off and released by another
				continue
			}
			writer[o.arg] = 0
		case "racq":
			if readers[o.arg] == nil {
				readers[o.arg] = map[int]int{}
			}
			readers[o.arg][g]++
		case "rrel":
			if readers[o.arg][g]--; readers[o.arg][g] == 0 {
				delete(readers[o.arg], g)
			}
		case "fork":
			var c int
			fmt.Sscanf(o.arg, "T%d", &c)
			started[c] = true
		}
		line++
		fmt.Fprintf(&out, "T%d|%s(%s)|%d\n", g, o.name, o.arg, line)
	}
	return out.String()
}

// syncParams draws the shape of a small trace for the tests that compare
// two ways of computing the same orderings: every kind of synchronisation,
// a few goroutines.
func syncParams(r *rand.Rand) genParams {
	return genParams{goroutines: 2 + r.Intn(5), vars: 1 + r.Intn(3), locks: r.Intn(3), sigs: 1 + r.Intn(3),
		ops: 3 + r.Intn(12), atomics: r.Intn(2) == 0, cut: 0.01}
}

func genTrace(r *rand.Rand, p genParams) (*trace.Trace, string) {
	text := genText(r, p)
	t, err := buildTrace(text)
	if err != nil {
		panic(fmt.Sprintf("%v\n%s", err, text))
	}
	return t, text
}

// randomTraces returns n traces of genTrace, each with the parameters
// params draws (i counts the traces), then the traces the differential
// tests share: a synthetic lock trace of 20,000 events and, if
// withChan, a channel one.
func randomTraces(seed int64, n int, params func(r *rand.Rand, i int) genParams, withChan bool) []*trace.Trace {
	r := rand.New(rand.NewSource(seed))
	var traces []*trace.Trace
	for i := 0; i < n; i++ {
		tr, _ := genTrace(r, params(r, i))
		traces = append(traces, tr)
	}
	traces = append(traces, synth(synthParams{goroutines: 20, locks: 3, vars: 16, events: 20_000, racy: 0.002, seed: 9}))
	if withChan {
		traces = append(traces, synthChan(50, 10, 5_000, 1))
	}
	return traces
}
