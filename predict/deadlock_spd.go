// This file implements lock-order deadlock prediction of any length in
// linear time per abstract pattern: SPDOffline (Tunç, Mathur, Pavlogiannis
// and Viswanathan, "Sound Dynamic Deadlock Prediction in Linear Time",
// PLDI 2023, §5).
//
// The abstract lock graph (§5.1): a node per abstract acquire η = (g, l,
// mode, site, H), the acquires of lock l by goroutine g at one site and in
// one mode while holding the locks H (each with the site and mode of its
// acquire, and the full lockset of the request, which gates); an edge
// η_a → η_b when goroutine g_a's request of l_a waits for g_b, which holds
// l_a in a conflicting mode, the goroutines differ and no lock of both
// locksets is held by both in conflicting modes. An abstract deadlock
// pattern is a simple cycle η_1 .. η_k of the graph through distinct
// goroutines and distinct locks whose locksets pairwise gate nothing
// (Definition 1, lifted to abstract acquires). The sites of H and of the
// request are part of the node, so each pattern names one pattern of
// sites, as deadlock_lockorder.go's classes do.
//
// SPDOffline's pass (§5.2, Algorithm 2): per pattern, one pointer per
// η_i into its acquires in program order; the sync-preserving closure I
// of the events before the pointed acquires (cut.go's rule, kept
// incrementally here) is computed; if it holds none of them, they are a
// deadlock, witnessed by I in observed order then the k blocked requests;
// otherwise every pointed acquire I holds is dropped, since I only grows
// as pointers advance (the closure is monotone, §5.2 Lemma 5.3) and so
// holds it in every later tuple too. Each acquire enters I once and each
// release is asked for once, so the pass costs O(n) closure steps, each a
// cone join of O(goroutines), per pattern, and a look at every goroutine
// per round of the lock rule.
//
// Contract: spdLayer reports, at most once per pattern of sites, a
// deadlock for each abstract pattern that has an instance whose
// sync-preserving closure holds none of its requests, with that closure's
// witness (deadlockWitness); it sweeps at most maxSPDPatterns patterns,
// found in at most maxSPDSteps search steps, of any length, and stops
// sweeping when its sweeps have cost spdWorkPerEvent closure steps per
// event of the trace.

package predict

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/seer-tools/seer/trace"
)

// maxSPDPatterns bounds the abstract patterns swept (those of a pattern
// of sites already proved are not); maxSPDSteps, the steps of the cycle
// search that finds them; spdWorkPerEvent, the
// closure steps (events looked at and cone joins) of all sweeps, per
// event of the trace.
const (
	maxSPDPatterns  = 20000
	maxSPDSteps     = 2_000_000
	spdWorkPerEvent = 64
)

// spdHeld is a lock an abstract acquire holds: the lock, the site of its
// acquire and whether it is held shared.
type spdHeld struct {
	l      trace.ObjID
	site   int32
	shared bool
}

// spdNode is an abstract acquire of the abstract lock graph: its
// goroutine, requested lock, mode and site, the locks it holds, the
// lockset of the request (the gate), and its acquires in program order.
type spdNode struct {
	g      int32
	l      trace.ObjID
	shared bool
	site   int32
	held   []spdHeld
	gate   []heldLock
	evs    []int32
}

// holding returns the entry of held for lock l.
func (n *spdNode) holding(l trace.ObjID) (spdHeld, bool) {
	for _, h := range n.held {
		if h.l == l {
			return h, true
		}
	}
	return spdHeld{}, false
}

// spdNodes builds the abstract acquires: every blocking acquire that
// holds a lock, grouped by (goroutine, lock, mode, site, held locks with
// their sites and modes, lockset), with the filters of lockDeps.
func (e *engine) spdNodes() []*spdNode {
	c := e.c
	type nkey struct {
		g      int32
		l      trace.ObjID
		shared bool
		site   int32
		ls     int32
		held   string
	}
	idx := make(map[nkey]int)
	var nodes []*spdNode
	var held []spdHeld
	var buf []byte
	for g := range c.byG {
		for _, i := range c.byG[g] {
			mode := c.lockMode[i]
			if mode != 'w' && mode != 'r' || c.pos[i] <= 1 || c.lsOf(c.at(int32(g), c.pos[i]-1)) == 0 {
				continue // holds nothing
			}
			req := c.ev[i].Obj
			held = held[:0]
			self := false
			c.heldAt(int32(g), c.pos[i]-1, func(l trace.ObjID, s csect) {
				if s.rel != 0 && s.rel <= c.pos[i]-1 {
					return
				}
				self = self || l == req
				held = append(held, spdHeld{l, c.site(c.at(int32(g), s.acq)), s.shared})
			})
			if self || len(held) == 0 || tryLock(c.t, i) {
				continue // a re-acquire, or cannot block
			}
			slices.SortFunc(held, func(a, b spdHeld) int { return int(a.l) - int(b.l) })
			buf = buf[:0]
			for _, h := range held {
				buf = binary.AppendUvarint(buf, uint64(h.l))
				buf = binary.AppendVarint(buf, int64(h.site))
				if h.shared {
					buf = append(buf, 1)
				} else {
					buf = append(buf, 0)
				}
			}
			k := nkey{int32(g), req, mode == 'r', c.site(i), c.lsOf(i), string(buf)}
			j, ok := idx[k]
			if !ok {
				j = len(nodes)
				idx[k] = j
				nodes = append(nodes, &spdNode{g: k.g, l: req, shared: k.shared, site: k.site, held: slices.Clone(held), gate: c.locksets[k.ls]})
			}
			nodes[j].evs = append(nodes[j].evs, i)
		}
	}
	return nodes
}

// spdGated reports whether the requests of a and b hold a common lock in
// conflicting modes (gated's test, on the nodes' locksets).
func spdGated(a, b *spdNode) bool {
	for _, x := range a.gate {
		if x.l == a.l {
			continue
		}
		for _, y := range b.gate {
			if x.l == y.l && y.l != b.l && !(x.shared && y.shared) {
				return true
			}
		}
	}
	return false
}

// spdWaits reports whether a's request waits for b: b holds a's lock in
// a mode that conflicts with it.
func spdWaits(a, b *spdNode) bool {
	h, ok := b.holding(a.l)
	return ok && a.g != b.g && !(a.shared && h.shared)
}

// spdPatterns calls f with each abstract deadlock pattern (a simple cycle
// of the abstract lock graph, each once, starting at its least node), in
// cycle order: pattern[j] waits for pattern[j+1]. It stops when f
// returns false or the budgets run out, and reports whether it saw every
// pattern.
func spdPatterns(nodes []*spdNode, f func(pattern []*spdNode) bool) bool {
	byHeld := make(map[trace.ObjID][]int)
	for j, n := range nodes {
		for _, h := range n.held {
			byHeld[h.l] = append(byHeld[h.l], j)
		}
	}
	comp := lockSCCs(nodes)
	var path []*spdNode
	onG := make(map[int32]bool)
	onL := make(map[trace.ObjID]bool)
	steps := 0
	stop := false
	var dfs func(start int, cur *spdNode)
	dfs = func(start int, cur *spdNode) {
		for _, j := range byHeld[cur.l] {
			if stop {
				return
			}
			if steps++; steps > maxSPDSteps {
				stop = true
				return
			}
			nx := nodes[j]
			if !spdWaits(cur, nx) {
				continue
			}
			if j == start {
				if len(path) >= 2 {
					if !f(path) {
						stop = true
						return
					}
				}
				continue
			}
			if j < start || onG[nx.g] || onL[nx.l] || comp[nx.l] != comp[cur.l] {
				continue
			}
			gated := false
			for _, p := range path {
				gated = gated || spdGated(p, nx)
			}
			if gated {
				continue
			}
			path = append(path, nx)
			onG[nx.g], onL[nx.l] = true, true
			dfs(start, nx)
			onG[nx.g], onL[nx.l] = false, false
			path = path[:len(path)-1]
		}
	}
	for s, n := range nodes {
		if stop {
			break
		}
		if comp[n.l] < 0 {
			continue // its lock is on no cycle of the lock graph
		}
		path = append(path[:0], n)
		onG[n.g], onL[n.l] = true, true
		dfs(s, n)
		onG[n.g], onL[n.l] = false, false
	}
	return !stop
}

// lockSCCs returns, per lock of the lock-order graph the nodes make (an
// edge h → l for each node requesting l while holding h), the index of
// its strongly connected component, or -1 for a lock on no cycle:
// every pattern's locks lie in one component (Tarjan's algorithm).
func lockSCCs(nodes []*spdNode) map[trace.ObjID]int {
	succ := make(map[trace.ObjID][]trace.ObjID)
	var locks []trace.ObjID
	seen := make(map[trace.ObjID]bool)
	note := func(l trace.ObjID) {
		if !seen[l] {
			seen[l] = true
			locks = append(locks, l)
		}
	}
	for _, n := range nodes {
		note(n.l)
		for _, h := range n.held {
			note(h.l)
			succ[h.l] = append(succ[h.l], n.l)
		}
	}
	index := make(map[trace.ObjID]int)
	low := make(map[trace.ObjID]int)
	on := make(map[trace.ObjID]bool)
	comp := make(map[trace.ObjID]int)
	var stack []trace.ObjID
	nc := 0
	var visit func(v trace.ObjID)
	visit = func(v trace.ObjID) {
		index[v] = len(index)
		low[v] = index[v]
		stack = append(stack, v)
		on[v] = true
		for _, w := range succ[v] {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		n := len(stack)
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			comp[w] = nc
			if w == v {
				break
			}
		}
		if len(stack) == n-1 {
			comp[v] = -1 // alone, and no lock is its own successor
		}
		nc++
	}
	for _, l := range locks {
		if _, ok := index[l]; !ok {
			visit(l)
		}
	}
	return comp
}

// spdKey names a pattern by its sites whatever goroutines made it and
// wherever its cycle starts, as deadlockKey does, for cycles of any
// length: g_j's (held site, request site), its held site being that of
// the lock g_{j-1} requests.
func spdKey(pattern []*spdNode) string {
	k := len(pattern)
	ps := make([][2]int32, k)
	for j, n := range pattern {
		h, _ := n.holding(pattern[(j+k-1)%k].l)
		ps[j] = [2]int32{h.site, n.site}
	}
	return sitePairsKey(ps)
}

// lockOrderKey is spdKey of a lock-order deadlock finding of either
// layer, from its blocked acquires.
func (e *engine) lockOrderKey(fd Finding) string {
	c := e.c
	k := len(fd.Events)
	ps := make([][2]int32, k)
	for j, x := range fd.Events {
		i := int32(x)
		g := int32(c.ev[i].G)
		prev := c.ev[fd.Events[(j+k-1)%k]].Obj
		ps[j] = [2]int32{-1, c.site(i)}
		c.heldAt(g, c.pos[i]-1, func(l trace.ObjID, s csect) {
			if l == prev {
				ps[j][0] = c.site(c.at(g, s.acq))
			}
		})
	}
	return sitePairsKey(ps)
}

// sitePairsKey encodes the (held site, request site) pairs of a cycle,
// sorted, so that the key does not depend on where the cycle starts.
func sitePairsKey(ps [][2]int32) string {
	slices.SortFunc(ps, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	var buf []byte
	for _, p := range ps {
		buf = binary.AppendVarint(buf, int64(p[0]))
		buf = binary.AppendVarint(buf, int64(p[1]))
	}
	return string(buf)
}

// spdLock is the lock rule's state of one lock in the closure: the latest
// acquire of it in the closure (in observed order) and the latest
// exclusive one, and the acquires in it whose release is not yet asked
// for (no later conflicting acquire is in the closure).
type spdLock struct {
	maxAny, maxExcl int32
	pending         []spdAcq
}

// spdAcq is an acquire in the closure: its event, goroutine, whether it
// is shared, and its release's position in its goroutine (0: never).
type spdAcq struct {
	ev, g, rel int32
	shared     bool
}

// spdClosure is a sync-preserving closure kept incrementally (cut.go's
// rule): cut, the closure; scanned, how far each goroutine's events were
// looked at for acquires; locks, the lock rule's state; need, the
// releases asked for and not yet joined.
type spdClosure struct {
	e       *engine
	cut     []int32
	scanned []int32
	locks   map[trace.ObjID]*spdLock
	need    []spdAcq
	failed  bool
	work    int64 // closure steps of all sweeps
}

// reset empties the closure.
func (s *spdClosure) reset() {
	clear(s.cut)
	clear(s.scanned)
	clear(s.locks)
	s.need = s.need[:0]
	s.failed = false
}

// add joins the causal cone of goroutine g's first p events. The cut is
// closed under the cone (everything joined came with its cone), so a
// prefix it already holds adds nothing.
func (s *spdClosure) add(g, p int32) {
	if p > 0 && s.cut[g] >= p {
		return
	}
	s.work++
	s.e.coneInto(s.cut, g, p)
}

// close runs the lock rule to a fixpoint, and reports false when a
// release it needs never happens (then every larger closure fails too).
func (s *spdClosure) close() bool {
	for !s.failed {
		s.work += int64(len(s.cut)) // the round's look at every goroutine
		for g := range s.cut {
			s.work += int64(s.cut[g] - s.scanned[g])
			for s.scanned[g] < s.cut[g] {
				s.scanned[g]++
				s.acquire(int32(g), s.scanned[g])
			}
		}
		if len(s.need) == 0 {
			break
		}
		for _, a := range s.need {
			if a.rel == 0 {
				s.failed = true
				break
			}
			s.add(a.g, a.rel)
		}
		s.need = s.need[:0]
	}
	return !s.failed
}

// acquire applies the lock rule to goroutine g's event at position p,
// just joined: of two acquires of a lock in the closure (not both
// shared), the earlier one's release must be in it.
func (s *spdClosure) acquire(g, p int32) {
	c := s.e.c
	i := c.at(g, p)
	op := c.ev[i].Op
	if op != trace.OpLock && op != trace.OpRLock {
		return
	}
	l := c.ev[i].Obj
	if c.observed[l] {
		return // kept in observed order by the cone
	}
	sec, ok := c.section(g, l, p)
	if !ok || sec.acq != p {
		return
	}
	st := s.locks[l]
	if st == nil {
		st = &spdLock{maxAny: -1, maxExcl: -1}
		s.locks[l] = st
	}
	a := spdAcq{ev: i, g: g, rel: sec.rel, shared: sec.shared}
	if st.excluded(a) {
		s.need = append(s.need, a)
	} else {
		st.pending = append(st.pending, a)
	}
	if i <= st.maxAny && (a.shared || i <= st.maxExcl) {
		return // no later-acquire bound moved
	}
	st.maxAny = max(st.maxAny, i)
	if !a.shared {
		st.maxExcl = max(st.maxExcl, i)
	}
	keep := st.pending[:0]
	for _, q := range st.pending {
		if st.excluded(q) {
			s.need = append(s.need, q)
		} else {
			keep = append(keep, q)
		}
	}
	st.pending = keep
}

// excluded reports whether the closure holds a later acquire of the lock
// that conflicts with a.
func (st *spdLock) excluded(a spdAcq) bool {
	if a.shared {
		return st.maxExcl > a.ev
	}
	return st.maxAny > a.ev
}

// spdLayer finds and proves lock-order deadlocks of any length by
// SPDOffline, other than the patterns of sites of the lock-order
// deadlocks among prior (deadlock_lockorder.go's), and returns the
// findings and the funnel row (Stage "deadlock-spd"): Cycles counts the
// abstract patterns, Deadlocks the patterns swept, DeadlockSites the
// patterns of sites proved.
func (e *engine) spdLayer(prior []Finding) ([]Finding, Stage, error) {
	t0 := time.Now()
	var n deadlockCounts
	var out []Finding
	proved := make(map[string]bool)
	for _, f := range prior {
		if f.Kind == KindDeadlock && e.c.lockOrderCycle(f.Events) {
			proved[e.lockOrderKey(f)] = true
		}
	}
	nodes := e.spdNodes()
	var err error
	var cl *spdClosure
	spdPatterns(nodes, func(pattern []*spdNode) bool {
		n.patterns++
		if err = e.ctx.Err(); err != nil {
			return false
		}
		key := spdKey(pattern)
		if proved[key] {
			return true
		}
		if n.closures >= maxSPDPatterns || cl != nil && cl.work > spdWorkPerEvent*int64(len(e.c.ev)) {
			return false // the budgets: the patterns left are not swept
		}
		if cl == nil {
			if err = e.needCone(); err != nil {
				return false
			}
			cl = &spdClosure{e: e, cut: make([]int32, len(e.c.byG)), scanned: make([]int32, len(e.c.byG)), locks: make(map[trace.ObjID]*spdLock)}
		}
		n.closures++
		if evs := cl.sweep(pattern); evs != nil {
			fd := e.deadlockWitness(evs, cl.cut)
			var count int64 = 1
			for _, p := range pattern {
				count = min(count*int64(len(p.evs)), 1<<31-1)
			}
			fd.Count = int(count)
			out = append(out, fd)
			proved[key] = true
		}
		return true
	})
	return out, n.stage(stageSPD, len(out), time.Since(t0)), err
}

// stageSPD names spdLayer's funnel row.
const stageSPD = "deadlock-spd"

// lockOrderCycle reports whether evs are all lock acquires: a lock-order
// deadlock rather than a blocking claim (deadlock_channel.go).
func (c *ctp) lockOrderCycle(evs []int) bool {
	for _, i := range evs {
		if op := c.ev[i].Op; op != trace.OpLock && op != trace.OpRLock {
			return false
		}
	}
	return len(evs) >= 2
}

// sweep is SPDOffline's pass over one pattern: it returns the first
// tuple of its acquires, one per node, that the closure of the events
// before them holds none of, leaving that closure in s.cut; nil if none.
func (s *spdClosure) sweep(pattern []*spdNode) []int32 {
	c := s.e.c
	s.reset()
	k := len(pattern)
	ptr := make([]int, k)
	evs := make([]int32, k)
	for {
		for j, n := range pattern {
			evs[j] = n.evs[ptr[j]]
			s.add(n.g, c.pos[evs[j]]-1)
		}
		if !s.close() {
			return nil
		}
		free := true
		for j, n := range pattern {
			if s.cut[n.g] >= c.pos[evs[j]] {
				free = false
				if ptr[j]++; ptr[j] == len(n.evs) {
					return nil
				}
			}
		}
		if free {
			return evs
		}
	}
}
