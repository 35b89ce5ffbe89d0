// This file implements step 2 of extend.go: the search for an execution
// (SC's interleaving, TSO's memory order) that keeps the saturated store
// order's graph, by depth-first search over the sets of operations taken.
// It follows the consistency checks under a fixed reads-from of Abdulla,
// Atig, Jonsson, Lång, Ngo and Sagonas ("Optimal Stateless Model Checking
// for Reads-From Equivalence under Sequential Consistency", OOPSLA 2019)
// and, for TSO, of Bui, Chatterjee, Gautam, Pavlogiannis and Toman ("The
// Reads-From Equivalence for the TSO and PSO Memory Models", OOPSLA 2021:
// a state is a prefix of each thread's writes and one of its reads);
// their section numbers were not checked against the texts here, which
// are not among the seeds. Reads-from is fixed, so a state is the set of
// operations taken, and a set that failed once fails always.
//
// The search takes operations whose predecessors in the graph are taken
// (so the set is one prefix per program-order chain under SC, and under
// TSO one prefix of each process's writes and one of its reads, a read
// taken before earlier writes of its process being one that passes its
// store buffer). It takes without branching:
//
//   - a read that sees its write now: it changes no memory, and in any
//     completion it sees the same write, so it can be moved here;
//   - a write that may be taken (the current write to its key has no
//     read left) and that the order puts before every write to its key
//     not yet taken: every completion takes it next on its key, after
//     the reads it waits for, which are taken;
//   - a write that may be taken and that no read reads: in any
//     completion, moving it here leaves every read seeing what it saw.
//
// It branches only over the other writes that may be taken, each a choice
// of the next write to its key, a write that some read at the front waits
// for first. After a choice, doomed looks for the cycle it closes: the
// chosen write's reads left must precede every write to its key left.
// Taking a write only when the current one has no read left makes the
// state a function of the set: the current write of a key with reads left
// is the only taken write with reads left, so two paths to one set agree
// on everything that matters, and the set can be remembered as failed. A
// read that can no longer see its write fails the state (under TSO a read
// whose process has a later write to its key still buffered waits
// instead). The search is exact: it fails only when no execution keeps
// the graph, so no store order extends the saturated one. It is bounded
// by a number of states and by the check's time bound; past either, the
// solver decides (extend.go).

package consistency

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"time"
)

// readState is what a read would see if taken now.
type readState uint8

const (
	readSees readState = iota // it sees its write
	readWait                  // not yet: a later own write is still buffered (TSO)
	readDead                  // never: its write is overwritten or not its to see
)

// scheduler is one search's state: what is taken, along lanes.
type scheduler struct {
	x        *extender
	g        *hg
	gi       *graphIn
	out      []int32 // successors in gi, by outStart
	outStart []int32
	indeg    []int32   // per node, its predecessors not yet taken
	lanes    [][]int32 // the orders in which nodes are taken (below)
	laneOf   []int32   // per node, its lane
	laneAt   []int32   // per node, its index in its lane
	pos      []int32   // per lane, its first node not yet taken
	done     []bool
	cur      []int32         // per key, the last write taken, or -1
	pending  []int32         // per write, its reads not yet taken
	own      []int32         // TSO: per read, its process's last earlier write to its key, or -1
	untaken  [][]uint64      // per key, its writes not yet taken (by index)
	trail    []int32         // the nodes taken, in order
	prevCur  []int32         // per write on the trail, the current write it replaced
	failed   map[string]bool // the states (stateKey) that failed
	key      []byte          // stateKey's scratch
	// doomed's scratch
	seen   []uint32
	epoch  uint32
	stack  []int32
	states int
	budget int
	// exhausted is set when the search stopped at its budget or on
	// cancellation: its failure then proves nothing.
	exhausted bool
	deadline  time.Time // the bound's, zero: none
}

// outOfTime reports whether the search passed the check's time bound
// (Options.Timeout, as a solve has) or was cancelled.
func (s *scheduler) outOfTime() bool {
	b := s.x.c.bound
	if b == nil {
		return false
	}
	return b.ctx.Err() != nil || !s.deadline.IsZero() && time.Now().After(s.deadline)
}

// scheduleBudget bounds the states the search visits: a few per
// operation, far more than the simulated runs need, before the solver
// takes over.
func scheduleBudget(n int) int { return 8*n + 100000 }

func newScheduler(x *extender) *scheduler {
	g := x.g
	gi := x.graphs[x.sched]
	N := len(g.nodes)
	s := &scheduler{x: x, g: g, gi: gi, failed: map[string]bool{}, budget: scheduleBudget(N), deadline: x.c.bound.deadline()}
	s.indeg = make([]int32, N)
	s.outStart = make([]int32, N+1)
	for v := range int32(N) {
		ins := gi.in(v)
		s.indeg[v] = int32(len(ins))
		for _, e := range ins {
			s.outStart[e.from+1]++
		}
	}
	for v := range N {
		s.outStart[v+1] += s.outStart[v]
	}
	s.out = make([]int32, s.outStart[N])
	fill := slices.Clone(s.outStart[:N])
	for v := range int32(N) {
		for _, e := range gi.in(v) {
			s.out[fill[e.from]] = v
			fill[e.from]++
		}
	}
	if x.m == TSO {
		s.own = make([]int32, N)
		for v := range int32(N) {
			s.own[v] = -1
			if g.nodes[v].write {
				continue
			}
			for p := g.prevLoc[v]; p >= 0; p = g.prevLoc[p] {
				if g.nodes[p].write {
					s.own[v] = p
					break
				}
			}
		}
	}
	s.pending = make([]int32, N)
	for w, rs := range x.reads {
		s.pending[w] = int32(len(rs))
	}
	s.cur = make([]int32, len(g.keys))
	for k := range s.cur {
		s.cur[k] = -1
	}
	s.untaken = make([][]uint64, len(g.keys))
	for k, ws := range x.writes {
		s.untaken[k] = make([]uint64, x.words[k])
		for i := range ws {
			s.untaken[k][i/64] |= 1 << (i % 64)
		}
	}
	// SC takes each chain in program order; TSO takes each process's
	// writes in order and its reads in order, a read possibly before
	// earlier writes (ppo: the graph's edges say when).
	s.laneOf = make([]int32, N)
	s.laneAt = make([]int32, N)
	for _, ch := range g.chains {
		lw, lr := len(s.lanes), len(s.lanes)
		s.lanes = append(s.lanes, nil)
		if x.m == TSO {
			lr++
			s.lanes = append(s.lanes, nil)
		}
		for _, v := range ch.nodes {
			l := lw
			if !g.nodes[v].write {
				l = lr
			}
			s.laneOf[v], s.laneAt[v] = int32(l), int32(len(s.lanes[l]))
			s.lanes[l] = append(s.lanes[l], v)
		}
	}
	s.pos = make([]int32, len(s.lanes))
	s.done = make([]bool, N)
	return s
}

func (s *scheduler) take(v int32) {
	nd := &s.g.nodes[v]
	s.done[v] = true
	s.pos[s.laneOf[v]]++
	for _, t := range s.out[s.outStart[v]:s.outStart[v+1]] {
		s.indeg[t]--
	}
	if nd.write {
		s.prevCur = append(s.prevCur, s.cur[nd.key])
		s.cur[nd.key] = v
		i := s.x.index[v]
		s.untaken[nd.key][i/64] &^= 1 << (i % 64)
	} else if nd.src >= 0 {
		s.pending[nd.src]--
	}
	s.trail = append(s.trail, v)
}

// undo untakes the trail back to length mark.
func (s *scheduler) undo(mark int) {
	for len(s.trail) > mark {
		v := s.trail[len(s.trail)-1]
		s.trail = s.trail[:len(s.trail)-1]
		nd := &s.g.nodes[v]
		s.done[v] = false
		s.pos[s.laneOf[v]]--
		for _, t := range s.out[s.outStart[v]:s.outStart[v+1]] {
			s.indeg[t]++
		}
		if nd.write {
			s.cur[nd.key] = s.prevCur[len(s.prevCur)-1]
			s.prevCur = s.prevCur[:len(s.prevCur)-1]
			i := s.x.index[v]
			s.untaken[nd.key][i/64] |= 1 << (i % 64)
		} else if nd.src >= 0 {
			s.pending[nd.src]++
		}
	}
}

func (s *scheduler) read(r int32) readState {
	nd := &s.g.nodes[r]
	sees := s.cur[nd.key]
	buffered := false
	if s.own != nil {
		if o := s.own[r]; o >= 0 && !s.done[o] {
			sees, buffered = o, true
		}
	}
	switch {
	case sees == nd.src:
		return readSees
	case buffered:
		return readWait
	}
	return readDead
}

// free reports whether write w may be taken: the current write to its
// key has no read left.
func (s *scheduler) free(w int32) bool {
	c := s.cur[s.g.nodes[w].key]
	return c < 0 || s.pending[c] == 0
}

// settled reports whether the order puts write w before every write to
// its key not yet taken.
func (s *scheduler) settled(w int32) bool {
	k := s.g.nodes[w].key
	i := int(s.x.index[w])
	wd := s.x.words[k]
	row := s.x.after[k][i*wd : (i+1)*wd]
	for t, u := range s.untaken[k] {
		u &^= row[t]
		if t == i/64 {
			u &^= 1 << (i % 64)
		}
		if u != 0 {
			return false
		}
	}
	return true
}

// head returns lane l's first node not yet taken when its predecessors
// are all taken, else -1.
func (s *scheduler) head(l int) int32 {
	lane := s.lanes[l]
	if int(s.pos[l]) == len(lane) {
		return -1
	}
	v := lane[s.pos[l]]
	if s.indeg[v] != 0 {
		return -1
	}
	return v
}

// eager takes what needs no choice. It reports false when a read can
// no longer see its write.
func (s *scheduler) eager() bool {
	for progress := true; progress; {
		progress = false
		for l := range s.lanes {
			for v := s.head(l); v >= 0; v = s.head(l) {
				if s.g.nodes[v].write {
					if !s.free(v) || !s.settled(v) && s.pending[v] > 0 {
						break
					}
				} else {
					switch s.read(v) {
					case readDead:
						return false
					case readWait:
						goto next
					}
				}
				s.take(v)
				progress = true
			}
		next:
		}
	}
	return true
}

func (s *scheduler) stateKey() string {
	s.key = s.key[:0]
	for _, p := range s.pos {
		s.key = binary.AppendUvarint(s.key, uint64(p))
	}
	return string(s.key)
}

// search extends the current state to a complete execution, leaving it
// on the trail, or restores the state and reports false.
func (s *scheduler) search() bool {
	mark := len(s.trail)
	if !s.eager() {
		s.undo(mark)
		return false
	}
	if len(s.trail) == len(s.g.nodes) {
		return true
	}
	key := s.stateKey()
	if s.failed[key] {
		s.undo(mark)
		return false
	}
	s.states++
	if s.states > s.budget || s.outOfTime() {
		s.exhausted = true
		s.undo(mark)
		return false
	}
	for _, v := range s.choices() {
		m := len(s.trail)
		s.take(v)
		if s.doomed(v) {
			s.undo(m)
			continue
		}
		if s.search() {
			return true
		}
		if s.exhausted {
			s.undo(mark)
			return false
		}
		s.undo(m)
	}
	s.failed[key] = true
	s.undo(mark)
	return false
}

// choices returns the writes the search may take next, most likely
// first: a write a read waits for, and only for it, then the others,
// from the least advanced chain (a simulated or recorded run
// interleaves its processes evenly).
func (s *scheduler) choices() []int32 {
	type choice struct {
		v        int32
		demanded bool
		at       int32 // how far the nearest read of it is from its chain's head
	}
	var cs []choice
	for l := range s.lanes {
		v := s.head(l)
		if v < 0 || !s.g.nodes[v].write || !s.free(v) {
			continue
		}
		ch := choice{v: v, at: math.MaxInt32}
		for _, r := range s.x.reads[v] {
			if s.done[r] {
				continue
			}
			d := s.laneAt[r] - s.pos[s.laneOf[r]]
			if d == 0 && s.indeg[r] == 1 {
				ch.demanded = true
			}
			ch.at = min(ch.at, d)
		}
		cs = append(cs, ch)
	}
	slices.SortStableFunc(cs, func(a, b choice) int {
		if a.demanded != b.demanded {
			if a.demanded {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.at, b.at)
	})
	out := make([]int32, len(cs))
	for i, c := range cs {
		out[i] = c.v
	}
	return out
}

// schedule searches for an execution along the last build's graph
// x.sched. It returns the operations in order (initial writes left out)
// and whether the search was exhausted; nil and not exhausted prove that
// no execution keeps the graph.
func (x *extender) schedule() (trace []int32, exhausted bool) {
	s := newScheduler(x)
	if !s.search() {
		return nil, s.exhausted
	}
	for _, v := range s.trail {
		if x.g.nodes[v].proc >= 0 {
			trace = append(trace, v)
		}
	}
	return trace, false
}

// doomed reports whether taking write w, the last choice, left the
// operations not yet taken unable to all be: the reads of w not yet
// taken must precede every write to its key not yet taken, and one of
// those writes reaches one of those reads. The graph searched is the
// one left, with, for each key whose current write has reads left, an
// edge from each of those reads to each write to the key not yet taken;
// the other keys' edges were there before w was taken, so a new cycle
// must pass through w's. The search goes backwards from w's reads, which
// are mostly near the operations taken, so it visits few.
func (s *scheduler) doomed(w int32) bool {
	if s.pending[w] == 0 {
		return false
	}
	if s.seen == nil {
		s.seen = make([]uint32, len(s.g.nodes))
	}
	s.epoch++
	ep := s.epoch
	k := s.g.nodes[w].key
	queue := s.stack[:0]
	push := func(v int32) {
		if !s.done[v] && s.seen[v] != ep {
			s.seen[v] = ep
			queue = append(queue, v)
		}
	}
	for _, r := range s.x.reads[w] {
		push(r)
	}
	found := false
	for head := 0; head < len(queue) && !found; head++ {
		v := queue[head]
		nd := &s.g.nodes[v]
		if nd.write {
			if nd.key == k {
				found = true
				break
			}
			// v waits for the reads left of its key's current write.
			if c := s.cur[nd.key]; c >= 0 && s.pending[c] > 0 {
				for _, r := range s.x.reads[c] {
					push(r)
				}
			}
		}
		for _, e := range s.gi.in(v) {
			push(e.from)
		}
	}
	s.stack = queue
	return found
}
