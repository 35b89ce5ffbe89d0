// This file implements the translation of cycles over nodes into steps
// in the user's terms (process, operation index, key, value).

package consistency

import "fmt"

// ref names node v.
func (g *hg) ref(v int32) OpRef {
	nd := &g.nodes[v]
	if nd.proc < 0 {
		return OpRef{Index: -1, Op: Op{Kind: Write, Key: g.keys[nd.key]}}
	}
	p := g.h.procs[nd.proc]
	return OpRef{Proc: p.Name, Index: int(nd.idx), Op: p.Ops[nd.idx]}
}

// path returns a shortest path from a to b in gi (a breadth-first search
// backwards from b), as edges from a to b; nil when a == b.
func (g *hg) path(gi *graphIn, a, b int32) []cedge {
	if a == b {
		return nil
	}
	via := make(map[int32]cedge)
	queue := []int32{b}
	for found := false; len(queue) > 0 && !found; {
		v := queue[0]
		queue = queue[1:]
		for _, e := range gi.in(v) {
			if _, seen := via[e.from]; seen || e.from == b {
				continue
			}
			via[e.from] = cedge{e.from, v, e.kind, e.aux}
			if e.from == a {
				found = true
				break
			}
			queue = append(queue, e.from)
		}
	}
	var p []cedge
	for v := a; v != b; {
		e, ok := via[v]
		if !ok {
			panic("history: no path")
		}
		p = append(p, e)
		v = e.to
	}
	return p
}

// steps translates the edges of a cycle or path; po names the program
// order of ePO edges.
func (g *hg) steps(cyc []cedge, po string) []Step {
	out := make([]Step, 0, len(cyc))
	for _, e := range cyc {
		s := Step{From: g.ref(e.from), To: g.ref(e.to)}
		switch e.kind {
		case ePO:
			s.Rel = po
			if g.nodes[e.from].proc < 0 {
				s.Why = "initial values come first"
			}
		case eWR:
			s.Rel = "wr"
		case eHB:
			s.Rel = "hb"
			s.Why = fmt.Sprintf("%s's process reads %s from %s with %s before the read", g.ref(e.aux), g.keys[g.nodes[e.to].key], s.To, s.From)
		case eCF:
			s.Rel = "cf"
			s.Why = fmt.Sprintf("%s reads from %s with %s in its causal past", g.ref(e.aux), s.To, s.From)
		case ePWW:
			s.Rel = "pww"
			if e.aux < 0 {
				s.Why = "happens-before between writes to one key"
			} else {
				s.Why = fmt.Sprintf("%s reads from %s with %s happening before it", g.ref(e.aux), s.To, s.From)
			}
		case eRW:
			s.Rel = "rw"
			s.Why = fmt.Sprintf("it reads %s, which is ordered before %s", g.ref(e.aux), s.To)
		case eWW:
			s.Rel = "ww"
		}
		out = append(out, s)
	}
	return out
}
