// This file tests lock-free barrier chopping (UCG paper §4, Theorem 4):
// on random traces, building each candidate's UCG on the suffixes after
// its last causality barrier gives the same verdict as building it on the
// whole prefixes; and sharing one graph among up to 64 candidates (§3.5)
// gives each the verdict of its own graph.

package predict

import (
	"context"
	"flag"
	"math/rand"
	"testing"
)

func ucgVerdicts(t *testing.T, text string, o Options, batched bool) []ucgResult {
	tr, err := buildTrace(text)
	if err != nil {
		t.Fatal(err)
	}
	o = o.defaults()
	o.MaxTries = 64
	c := newCTP(tr)
	m := newMemory(c)
	e, err := newEngine(context.Background(), tr, c, m, o)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := findCandidates(context.Background(), c, m, e.mhb, &o, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []ucgResult
	var batch []*plan
	var idx []int
	for _, k := range cs.order {
		for _, cd := range cs.bySite[k].cands {
			var p *plan
			if cd.kind == 'r' {
				p = e.racePlan(cd, true)
			} else {
				p = e.atomicityPlan(cd, 0, true)
			}
			out = append(out, ucgInfeasible)
			if p == nil {
				continue
			}
			if !batched {
				out[len(out)-1] = e.runUCG([]*plan{p})[0]
				continue
			}
			batch = append(batch, p)
			idx = append(idx, len(out)-1)
		}
	}
	for len(batch) > 0 {
		n := min(64, len(batch))
		for j, r := range e.runUCG(batch[:n]) {
			out[idx[j]] = r
		}
		batch, idx = batch[n:], idx[n:]
	}
	return out
}

var chopSeed = flag.Int64("chop.seed", 7, "seed of the chopping property test")

func TestChoppingKeepsVerdicts(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewSource(*chopSeed))
	var cands, pruned, skipped int
	for k := 0; k < n; k++ {
		p := genParams{goroutines: 2 + r.Intn(4), vars: 1 + r.Intn(3), locks: 1 + r.Intn(3), sigs: r.Intn(3),
			ops: 4 + r.Intn(10), atomics: r.Intn(2) == 0, tx: r.Intn(2) == 0, cut: 0.005}
		text := genText(r, p)
		csTx := r.Intn(2) == 0
		chop := ucgVerdicts(t, text, Options{CriticalSectionsAsTransactions: csTx}, false)
		whole := ucgVerdicts(t, text, Options{CriticalSectionsAsTransactions: csTx, NoChop: true}, false)
		shared := ucgVerdicts(t, text, Options{CriticalSectionsAsTransactions: csTx}, true)
		if len(chop) != len(whole) || len(chop) != len(shared) {
			t.Fatalf("candidate counts differ")
		}
		for i := range chop {
			cands++
			if chop[i] == ucgSkipped || whole[i] == ucgSkipped || shared[i] == ucgSkipped {
				skipped++
				continue
			}
			if chop[i] != whole[i] {
				t.Fatalf("candidate %d: chopped %v, whole %v\n%s", i, chop[i], whole[i], text)
			}
			if chop[i] != shared[i] {
				t.Fatalf("candidate %d: alone %v, shared graph %v\n%s", i, chop[i], shared[i], text)
			}
			if chop[i] == ucgInfeasible {
				pruned++
			}
		}
	}
	t.Logf("%d candidates, %d infeasible, %d too large", cands, pruned, skipped)
}
