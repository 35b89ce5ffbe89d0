// This file measures SC and TSO on large histories two ways: the check
// (saturation and search, extend.go) and the solver alone over the
// partial store order, which was the check before: on simulated SC runs
// (consistent), on simulated TSO runs (store buffers: TSO but rarely
// SC) and on simulated SC runs with Figure 1d beside them (not SC, though
// CCM) of 1,000 to 100,000 operations.
//
//	go test -run '^$' -bench Extend -benchtime 1x ./predict/consistency/

package consistency

import (
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// tsoRun simulates procs processes doing ops operations in all on keys
// keys of a TSO memory: writes go to a FIFO buffer per process, flushed
// to memory at random moments; a read sees its process's last buffered
// write to its key, else memory.
func tsoRun(seed int64, procs, ops, keys int) *History {
	return simRun(seed, procs, ops, keys, memTSO)
}

// The memories simRun simulates.
type memory uint8

const (
	memSC  memory = iota // every write reaches memory at once
	memTSO               // through a FIFO store buffer per process
	memPSO               // through a store buffer per process that flushes in any order (not TSO)
)

// simRun is scRun, tsoRun, and a PSO memory's run.
func simRun(seed int64, procs, ops, keys int, mem memory) *History {
	rng := rand.New(rand.NewSource(seed))
	h := New()
	cell := make([]int64, keys)
	next := make([]int64, keys)
	type buffered struct {
		k int
		v int64
	}
	buf := make([][]buffered, procs)
	for done := 0; done < ops; {
		p := rng.Intn(procs)
		if len(buf[p]) > 0 && rng.Intn(3) == 0 {
			i := 0
			if mem == memPSO {
				i = rng.Intn(len(buf[p]))
			}
			cell[buf[p][i].k] = buf[p][i].v
			buf[p] = append(buf[p][:i], buf[p][i+1:]...)
			continue
		}
		name := fmt.Sprintf("P%d", p)
		k := rng.Intn(keys)
		key := fmt.Sprintf("k%d", k)
		if rng.Intn(2) == 0 {
			next[k]++
			if mem == memSC {
				cell[k] = next[k]
			} else {
				buf[p] = append(buf[p], buffered{k, next[k]})
			}
			h.Write(name, key, next[k])
		} else {
			v := cell[k]
			for _, b := range buf[p] {
				if b.k == k {
					v = b.v
				}
			}
			h.Read(name, key, v)
		}
		done++
	}
	return h
}

// scRunFig1d is scRun with two more processes doing Figure 1d of the
// paper on keys of their own: CCM, so the polynomial check passes, but
// not SC.
func scRunFig1d(seed int64, procs, ops, keys int) *History {
	h := scRun(seed, procs, ops, keys)
	h.Write("t0", "fx", 1)
	h.Read("t0", "fy", 0)
	h.Write("t0", "fy", 1)
	h.Read("t0", "fx", 1)
	h.Write("t1", "fx", 2)
	h.Read("t1", "fy", 0)
	h.Write("t1", "fy", 2)
	h.Read("t1", "fx", 2)
	return h
}

// extendTimeout bounds the solver alone in BenchmarkExtend (it is
// reported undecided past it).
const extendTimeout = time.Minute

func BenchmarkExtend(b *testing.B) {
	type gen struct {
		name string
		run  func(seed int64, procs, ops, keys int) *History
	}
	for _, g := range []gen{{"scRun", scRun}, {"tsoRun", tsoRun}, {"scRun+fig1d", scRunFig1d}} {
		for _, n := range []int{1000, 10000, 100000} {
			h := g.run(3, 8, n, 16)
			for _, m := range []Model{SC, TSO} {
				b.Run(fmt.Sprintf("%s/n=%d/%s/search", g.name, n, m), func(b *testing.B) {
					var res *Result
					for b.Loop() {
						var err error
						res, err = CheckContext(b.Context(), h, m, Options{Timeout: extendTimeout})
						if err != nil {
							b.Fatal(err)
						}
					}
					reportResult(b, res)
				})
				// The weak criterion alone: what the search adds is the
				// difference.
				weak := map[Model]Model{SC: CCM, TSO: WCCM}[m]
				b.Run(fmt.Sprintf("%s/n=%d/%s/weak-%s", g.name, n, m, weak), func(b *testing.B) {
					for b.Loop() {
						if _, err := Check(h, weak); err != nil {
							b.Fatal(err)
						}
					}
				})
				if n > 10000 {
					continue // the solver alone: the encoding alone is quadratic in the writes per key
				}
				b.Run(fmt.Sprintf("%s/n=%d/%s/solver", g.name, n, m), func(b *testing.B) {
					var res *Result
					for b.Loop() {
						res = solverAlone(h, m, extendTimeout)
					}
					reportResult(b, res)
				})
			}
		}
	}
}

// reportResult reports the answer as metrics: consistent 1, not 0,
// undecided -1; and whether the polynomial check already rejected it.
func reportResult(b *testing.B, res *Result) {
	answer := 0.0
	switch {
	case res.Undecided:
		answer = -1
	case res.Consistent:
		answer = 1
	}
	b.ReportMetric(answer, "consistent")
	early := 0.0
	if res.Violation != nil && res.Violation.Model != res.Model {
		early = 1
	}
	b.ReportMetric(early, "early")
}

// solverAlone is the SC or TSO check as it was before extend.go: the
// polynomial criteria, then the solver over pww's (wpww's) closure.
func solverAlone(h *History, m Model, timeout time.Duration) *Result {
	g := build(h, nil)
	c := newChecker(g)
	c.bound = newBound(nil, Options{Timeout: timeout})
	res := &Result{Model: m}
	if m == SC {
		res.Violation = c.gradual(c.cc, c.ccv, c.cm, c.ccm)
	} else {
		res.Violation = c.gradual(c.thinAir, c.wccm)
	}
	if res.Violation != nil {
		return res
	}
	e := newSatEnc(c, m)
	res.Unordered, res.Pairs = e.fix(storeClosure(e.writes, e.index, c.pwwOut))
	ok, _ := e.solve(nil)
	res.Undecided = e.undecided
	res.Consistent = ok
	if !ok && !e.undecided {
		res.Violation = &Violation{Model: m}
	}
	return res
}
