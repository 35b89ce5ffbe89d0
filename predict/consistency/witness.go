// This file implements the independent check of a witness of SC or TSO
// consistency (Result.Witness): it replays the execution on a memory, as
// the models' operational definitions say, and shares no code with the
// graphs, clocks and solver that produced it.
//
// SC (Lamport): one order of all operations that keeps each process's
// order, each read seeing the last write to its key before it (0 if
// none). TSO (Owens, Sarkar and Sewell's x86-TSO, as the paper's §4 and
// oracle_test.go's store buffers): the witness is the memory order, which
// keeps program order except that a read may precede its process's
// earlier writes (ppo); a read sees its process's last earlier write to
// the key while that write is not yet in memory (still in the store
// buffer), else the last write in memory.

package consistency

import "fmt"

// VerifyWitness reports whether order is an execution of h under m (SC
// or TSO) that explains every read, and if not, the first way in which it
// is not.
func VerifyWitness(h *History, m Model, order []OpRef) error {
	if m != SC && m != TSO {
		return fmt.Errorf("%s has no witness execution", m)
	}
	type proc struct {
		ops       []Op
		seen      []bool
		lastW     []int // per op: the process's last earlier write to its key, or -1
		next      int   // the first operation not yet seen
		nextRead  int   // the first read not yet seen
		firstW    int   // the first write not yet seen
		remaining int
	}
	procs := map[string]*proc{}
	total := 0
	for _, p := range h.procs {
		pr := &proc{ops: p.Ops, seen: make([]bool, len(p.Ops)), lastW: make([]int, len(p.Ops)), remaining: len(p.Ops)}
		last := map[string]int{}
		for i, o := range p.Ops {
			pr.lastW[i] = -1
			if w, ok := last[o.Key]; ok {
				pr.lastW[i] = w
			}
			if o.Kind == Write {
				last[o.Key] = i
			}
		}
		procs[p.Name] = pr
		total += len(p.Ops)
	}
	advance := func(pr *proc) {
		for pr.next < len(pr.ops) && pr.seen[pr.next] {
			pr.next++
		}
		for pr.nextRead < len(pr.ops) && (pr.seen[pr.nextRead] || pr.ops[pr.nextRead].Kind == Write) {
			pr.nextRead++
		}
		for pr.firstW < len(pr.ops) && (pr.seen[pr.firstW] || pr.ops[pr.firstW].Kind == Read) {
			pr.firstW++
		}
	}
	for _, p := range procs {
		advance(p)
	}
	mem := map[string]int64{}
	for at, ref := range order {
		pr := procs[ref.Proc]
		if pr == nil || ref.Index < 0 || ref.Index >= len(pr.ops) {
			return fmt.Errorf("step %d: %s is not an operation of the history", at, ref)
		}
		i := ref.Index
		o := pr.ops[i]
		if o.Kind != ref.Op.Kind || o.Key != ref.Op.Key || o.Value != ref.Op.Value {
			return fmt.Errorf("step %d: %s is %s in the history", at, ref, o)
		}
		if pr.seen[i] {
			return fmt.Errorf("step %d: %s twice", at, ref)
		}
		switch {
		case m == SC || o.Kind == Write:
			if pr.next != i {
				return fmt.Errorf("step %d: %s before %s[%d], which precedes it in program order", at, ref, ref.Proc, pr.next)
			}
		case pr.nextRead != i:
			return fmt.Errorf("step %d: %s before the read %s[%d], which precedes it in program order", at, ref, ref.Proc, pr.nextRead)
		}
		if o.Kind == Write {
			mem[o.Key] = o.Value
		} else {
			sees := mem[o.Key]
			if lw := pr.lastW[i]; m == TSO && lw >= 0 && lw >= pr.firstW {
				sees = pr.ops[lw].Value // still in the store buffer
			}
			if sees != o.Value {
				return fmt.Errorf("step %d: %s reads %d, but %s=%d there", at, ref, o.Value, o.Key, sees)
			}
		}
		pr.seen[i] = true
		pr.remaining--
		advance(pr)
	}
	if len(order) != total {
		for name, pr := range procs {
			if pr.remaining > 0 {
				return fmt.Errorf("%s[%d] is missing from the execution", name, pr.next)
			}
		}
	}
	return nil
}
