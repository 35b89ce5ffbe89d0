// Package history_test compares seer's history checks with porcupine
// (github.com/anishathalye/porcupine), a linearizability checker, on the
// same register histories. It is a module of its own so that porcupine
// never enters seer's go.mod.
//
// The two answer different questions (linearizability respects real
// time; SC and the causal models do not), so the numbers say what each
// costs on one input, not which is better.
package history_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/seer-tools/seer/predict/consistency"
)

type regInput struct {
	key   int
	write bool
	value int64
}

// registers simulates n operations of procs clients on keys atomic
// registers, each taking effect at an instant inside its call-return
// interval, and returns the history both ways.
func registers(seed int64, procs, n, keys int) (*consistency.History, []porcupine.Operation) {
	rng := rand.New(rand.NewSource(seed))
	h := consistency.New()
	var ops []porcupine.Operation
	mem := make([]int64, keys)
	next := make([]int64, keys)
	clock := make([]int64, procs) // each client's time
	now := int64(0)
	for range n {
		p := rng.Intn(procs)
		call := max(clock[p], now-int64(rng.Intn(5)))
		at := max(now+1+int64(rng.Intn(3)), call+1) // the linearization point
		now = at
		ret := at + int64(rng.Intn(5))
		clock[p] = ret + 1
		k := rng.Intn(keys)
		in := regInput{key: k}
		if rng.Intn(2) == 0 {
			next[k]++
			mem[k] = next[k]
			in.write, in.value = true, mem[k]
			h.WriteAt(fmt.Sprint("c", p), fmt.Sprint("k", k), mem[k], call, ret)
			ops = append(ops, porcupine.Operation{ClientId: p, Input: in, Call: call, Output: int64(0), Return: ret})
		} else {
			h.ReadAt(fmt.Sprint("c", p), fmt.Sprint("k", k), mem[k], call, ret)
			ops = append(ops, porcupine.Operation{ClientId: p, Input: in, Call: call, Output: mem[k], Return: ret})
		}
	}
	return h, ops
}

var kvModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		by := map[int][]porcupine.Operation{}
		for _, op := range history {
			k := op.Input.(regInput).key
			by[k] = append(by[k], op)
		}
		var out [][]porcupine.Operation
		for _, ops := range by {
			out = append(out, ops)
		}
		return out
	},
	Init: func() interface{} { return int64(0) },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		in := input.(regInput)
		if in.write {
			return true, in.value
		}
		return output.(int64) == state.(int64), state
	},
	Equal: func(a, b interface{}) bool { return a == b },
}

func BenchmarkRegisters(b *testing.B) {
	for _, size := range []struct{ procs, n, keys int }{{4, 1000, 4}, {8, 10000, 16}} {
		h, ops := registers(1, size.procs, size.n, size.keys)
		name := fmt.Sprintf("p=%d/n=%d/k=%d", size.procs, size.n, size.keys)
		b.Run("porcupine/"+name, func(b *testing.B) {
			for b.Loop() {
				if !porcupine.CheckOperations(kvModel, ops) {
					b.Fatal("not linearizable")
				}
			}
		})
		for _, m := range []consistency.Model{consistency.CC, consistency.CCv, consistency.CM, consistency.CCM} {
			b.Run(m.String()+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if res, err := consistency.Check(h, m); err != nil || !res.Consistent {
						b.Fatal(res.Violation, err)
					}
				}
			})
		}
	}
}
