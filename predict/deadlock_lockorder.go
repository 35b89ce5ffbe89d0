// This file implements the deadlock layer: lock-order deadlocks that
// another schedule of the run shows, each proved with a witness.
//
// A deadlock pattern (Havelund's GoodLock; Tunç, Mathur, Pavlogiannis and
// Viswanathan, "Sound Dynamic Deadlock Prediction in Linear Time", PLDI
// 2023, Definition 1) is a sequence of k ≥ 2 acquires e_1 .. e_k of
// distinct goroutines g_1 .. g_k such that g_i, when it requests lock m_i
// at e_i, holds lock m_{i-1} (acquired at h_i, in a mode that m_{i-1}'s
// request at e_{i-1} conflicts with: two shared modes do not block), the
// locks are distinct, and no two goroutines hold a common lock at their
// requests in conflicting modes (a "gate" lock would keep them apart).
// Patterns are found as cycles of the lock-order graph: a node per lock,
// an edge l → m for each (goroutine, held site, requested site) class of
// "holds l while requesting m", cycles of up to maxCycle locks.
//
// A pattern is a deadlock if some feasible schedule runs every g_i up to
// just before e_i: then each waits for a lock that the next holds and
// never releases. The filters, cheapest first:
//
//   - must-happen-before (the engine's fixed orderings: program order, go
//     statements, joins, channels, WaitGroups, atomics): if e_i must
//     happen before the event before e_j, no schedule stops g_i before e_i
//     while g_j reaches e_j;
//   - the sync-preserving closure (the paper's Theorem 2, and the same
//     closure race_syncp.go builds for races): the causal cone of the events
//     before each e_i, closed under "of two acquires of a lock in the set,
//     the earlier one's release is in it too". If it holds no e_i, it is a
//     cut, and the cut in observed order is the witness: each g_i holds
//     its lock (h_i is in the cut, its release after e_i is not) and its
//     next event is e_i.
//
// The finding's Events are e_1 .. e_k in cycle order (g_i waits for a
// lock that g_{i+1} holds, g_k for g_1's); the schedule stops every g_i
// before e_i, so Witness holds only the cut's last event (the schedule is
// the cut in observed order). The checker (package witness, Kind
// Deadlock) re-checks that the schedule is feasible, with no goroutine of
// the cycle allowed to read another writer last, and that each e_i is
// its goroutine's next event and requests a lock that another goroutine
// of the cycle holds in a conflicting mode.
//
// Contract: it reports only cycles of the lock-order graph, at most one a
// pattern of sites (deadlockKey), whose acquires no gate lock guards, that
// must-happen-before leaves unordered and whose sync-preserving closure
// holds none of them; it builds the witness from that closure, the cut in
// observed order (deadlockWitness), with no search.

package predict

import (
	"slices"
	"strings"
	"time"

	"github.com/seer-tools/seer/trace"
)

// maxCycle bounds the locks of a cycle; maxLockCycles, the cycles of the
// lock-order graph looked at; maxCombos, the choices of edge classes per
// lock cycle; maxClosures, the closures computed in all (each costs up to
// a pass over the cone's clocks of the goroutines involved).
const (
	maxCycle      = 4
	maxLockCycles = 10000
	maxCombos     = 1000
	maxClosures   = 2000
)

// lockDep is one "holds held while requesting req": goroutine g's acquire
// e of req, with the section of held acquired at h.
type lockDep struct {
	g                int32
	held, req        trace.ObjID
	h, e             int32
	hShared, eShared bool
}

// depClass gathers the lock dependencies of one goroutine between two
// locks at one pair of sites (held acquire, request), in modes.
type depClass struct {
	g                int32
	held, req        trace.ObjID
	hSite, eSite     int32
	hShared, eShared bool
	evs              []lockDep // the first MaxTries of them
	count            int64
}

// lockDeps collects the lock-order graph's edges: per (held, requested)
// lock pair, its classes.
func (e *engine) lockDeps() (map[[2]trace.ObjID][]*depClass, []trace.ObjID) {
	c := e.c
	type ckey struct {
		g                int32
		held, req        trace.ObjID
		hSite, eSite     int32
		hShared, eShared bool
	}
	classes := make(map[ckey]*depClass)
	edges := make(map[[2]trace.ObjID][]*depClass)
	for g := range c.byG {
		for _, i := range c.byG[g] {
			mode := c.lockMode[i]
			if mode != 'w' && mode != 'r' || c.pos[i] <= 1 || c.lsOf(c.at(int32(g), c.pos[i]-1)) == 0 || tryLock(c.t, i) {
				continue // holds nothing, or cannot block
			}
			req := c.ev[i].Obj
			var held []heldSect
			self := false
			c.heldAt(int32(g), c.pos[i]-1, func(l trace.ObjID, s csect) {
				if s.rel != 0 && s.rel <= c.pos[i]-1 {
					return
				}
				if l == req {
					self = true // a re-acquire: not a lock-order edge
				}
				held = append(held, heldSect{l, s})
			})
			if self {
				continue
			}
			for _, hs := range held {
				h := c.at(int32(g), hs.s.acq)
				k := ckey{int32(g), hs.l, req, c.site(h), c.site(i), hs.s.shared, mode == 'r'}
				cl := classes[k]
				if cl == nil {
					cl = &depClass{g: k.g, held: k.held, req: k.req, hSite: k.hSite, eSite: k.eSite, hShared: k.hShared, eShared: k.eShared}
					classes[k] = cl
					edges[[2]trace.ObjID{hs.l, req}] = append(edges[[2]trace.ObjID{hs.l, req}], cl)
				}
				cl.count++
				if len(cl.evs) < e.opts.MaxTries {
					cl.evs = append(cl.evs, lockDep{g: k.g, held: hs.l, req: req, h: h, e: i, hShared: k.hShared, eShared: k.eShared})
				}
			}
		}
	}
	var locks []trace.ObjID
	seen := make(map[trace.ObjID]bool)
	for k := range edges {
		for _, l := range k {
			if !seen[l] {
				seen[l] = true
				locks = append(locks, l)
			}
		}
	}
	slices.Sort(locks)
	return edges, locks
}

type heldSect struct {
	l trace.ObjID
	s csect
}

// tryLock reports whether acquire i is a successful TryLock, which never
// blocks.
func tryLock(t *trace.Trace, i int32) bool {
	for f := range t.Stacks.All(t.Events[i].Stack) {
		if strings.HasSuffix(f.Func, ".TryLock") || strings.HasSuffix(f.Func, ".TryRLock") {
			return true
		}
	}
	return false
}

// lockCycles returns the simple cycles of the lock-order graph of up to
// maxCycle locks, each once, starting at its least lock.
func lockCycles(edges map[[2]trace.ObjID][]*depClass, locks []trace.ObjID) [][]trace.ObjID {
	succ := make(map[trace.ObjID][]trace.ObjID)
	for k := range edges {
		succ[k[0]] = append(succ[k[0]], k[1])
	}
	for _, s := range succ {
		slices.Sort(s)
	}
	var out [][]trace.ObjID
	var path []trace.ObjID
	on := make(map[trace.ObjID]bool)
	var dfs func(start, l trace.ObjID)
	dfs = func(start, l trace.ObjID) {
		for _, m := range succ[l] {
			if len(out) >= maxLockCycles {
				return
			}
			switch {
			case m == start && len(path) >= 2:
				out = append(out, slices.Clone(path))
			case m > start && !on[m] && len(path) < maxCycle:
				path = append(path, m)
				on[m] = true
				dfs(start, m)
				on[m] = false
				path = path[:len(path)-1]
			}
		}
	}
	for _, s := range locks {
		path = append(path[:0], s)
		on[s] = true
		dfs(s, s)
		on[s] = false
	}
	return out
}

// deadlockLayer finds, filters and proves lock-order deadlocks, and
// returns the findings and the funnel row: Deadlocks counts the patterns
// tried after the gate and must-happen-before filters, DeadlockSites the
// patterns of sites proved; Cycles, the lock-order cycles.
func (e *engine) deadlockLayer() ([]Finding, Stage, error) {
	t0 := time.Now()
	l := &lockOrderLayer{e: e, proved: make(map[patternKey]bool)}
	edges, locks := e.lockDeps()
	cycles := lockCycles(edges, locks)
	l.n.patterns = int64(len(cycles))
	for _, cyc := range cycles {
		if err := e.ctx.Err(); err != nil {
			return nil, l.stage(t0), err
		}
		k := len(cyc)
		// The classes of each edge of the cycle: cyc[j] → cyc[j+1].
		cls := make([][]*depClass, k)
		for j := range cyc {
			cls[j] = edges[[2]trace.ObjID{cyc[j], cyc[(j+1)%k]}]
		}
		combos := 0
		pick := make([]*depClass, k)
		var choose func(j int) error
		choose = func(j int) error {
			if combos >= maxCombos {
				return nil
			}
			if j == k {
				combos++
				return l.tryPattern(pick)
			}
			for _, cl := range cls[j] {
				dup := false
				for _, p := range pick[:j] {
					dup = dup || p.g == cl.g
				}
				if dup {
					continue
				}
				pick[j] = cl
				if err := choose(j + 1); err != nil {
					return err
				}
			}
			return nil
		}
		if err := choose(0); err != nil {
			return nil, l.stage(t0), err
		}
	}
	return l.out, l.stage(t0), nil
}

// lockOrderLayer is the lock-order deadlock layer's state: its funnel
// row, the patterns of sites it proved, its findings, and the cut its
// closures reuse.
type lockOrderLayer struct {
	e      *engine
	n      deadlockCounts
	proved map[patternKey]bool
	out    []Finding
	cut    []int32
}

// stage returns the layer's funnel row, the layer having started at t0.
func (l *lockOrderLayer) stage(t0 time.Time) Stage {
	return l.n.stage("deadlock", len(l.out), time.Since(t0))
}

// tryPattern tries the instances of one choice of classes, pick[j] holding
// lock cyc[j] while requesting cyc[j+1]: g_j's request waits for g_{j+1}.
func (l *lockOrderLayer) tryPattern(pick []*depClass) error {
	e, cnt := l.e, &l.n
	k := len(pick)
	// The requester of cyc[j+1] (pick[j]) and its holder (pick[j+1])
	// must conflict.
	for j := range pick {
		if pick[j].eShared && pick[(j+1)%k].hShared {
			return nil
		}
	}
	key := deadlockKey(pick)
	if l.proved[key] {
		return nil
	}
	c := e.c
	var count int64 = 1
	tries := 0
	for _, p := range pick {
		count = min(count*p.count, 1<<31-1)
		tries = max(tries, len(p.evs))
	}
	evs := make([]int32, k)
	for n := 0; n < tries; n++ {
		for j, p := range pick {
			evs[j] = p.evs[min(n, len(p.evs)-1)].e
		}
		if e.gated(evs) || e.mhbOrdered(evs) {
			continue
		}
		if cnt.closures >= maxClosures {
			return nil
		}
		cnt.closures++
		if e.cone == nil {
			if err := e.needCone(); err != nil {
				return err
			}
		}
		if l.cut == nil {
			l.cut = make([]int32, len(c.byG))
		}
		if !e.deadlockClosure(evs, l.cut) {
			continue
		}
		fd := e.deadlockWitness(evs, l.cut)
		fd.Count = int(count)
		l.out = append(l.out, fd)
		l.proved[key] = true
		return nil
	}
	return nil
}

// deadlockKey names a pattern by its sites, whatever goroutines made it
// and wherever its cycle starts: the sorted (held site, request site)
// pairs.
func deadlockKey(pick []*depClass) patternKey {
	ps := make([][2]int32, len(pick))
	for j, p := range pick {
		ps[j] = [2]int32{p.hSite, p.eSite}
	}
	slices.SortFunc(ps, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	sites := make([]int32, 0, 2*len(ps))
	for _, p := range ps {
		sites = append(sites, p[0], p[1])
	}
	return newPatternKey(KindDeadlock, sites...)
}

// gated reports whether two of the requests hold a common lock in
// conflicting modes: the gate lets only one of them in at a time.
func (e *engine) gated(evs []int32) bool {
	c := e.c
	for a := range evs {
		for b := a + 1; b < len(evs); b++ {
			for _, x := range c.locksets[c.lsOf(evs[a])] {
				if x.l == c.ev[evs[a]].Obj {
					continue // the request itself (an acquire is inside its section)
				}
				for _, y := range c.locksets[c.lsOf(evs[b])] {
					if x.l == y.l && y.l != c.ev[evs[b]].Obj && !(x.shared && y.shared) {
						return true
					}
				}
			}
		}
	}
	return false
}

// mhbOrdered reports whether a request must happen before the event
// before another: then no schedule stops the first's goroutine before
// it while the other's reaches its request.
func (e *engine) mhbOrdered(evs []int32) bool {
	c := e.c
	for _, a := range evs {
		for _, b := range evs {
			if a != b && e.mhb.knows(int32(c.ev[b].G), c.pos[b]-1, int32(c.ev[a].G)) >= c.pos[a] {
				return true
			}
		}
	}
	return false
}

// deadlockClosure computes in cut the sync-preserving closure of the
// events before each request (see syncPreserving) and reports whether it
// holds none of the requests.
func (e *engine) deadlockClosure(evs []int32, cut []int32) bool {
	c := e.c
	clear(cut)
	for _, i := range evs {
		e.coneInto(cut, int32(c.ev[i].G), c.pos[i]-1)
	}
	return e.closeCut(cut, -1, -1, c.holdsNone(evs))
}

// deadlockWitness returns the finding whose schedule is cut in observed
// order: the prefix up to the cut's last event, which is the witness.
func (e *engine) deadlockWitness(evs []int32, cut []int32) Finding {
	c := e.c
	last := int32(-1)
	for g, n := range cut {
		if n > 0 {
			last = max(last, c.byG[g][n-1])
		}
	}
	gl := int32(c.ev[last].G)
	var stops []int
	for g, n := range cut {
		if int32(g) == gl || int(n) >= len(c.byG[g]) {
			continue
		}
		if x := c.byG[g][n]; x < last {
			stops = append(stops, int(x))
		}
	}
	slices.Sort(stops)
	fd := Finding{Kind: KindDeadlock, Predicted: true, Prefix: int(last), Stops: stops, Witness: []int{int(last)}}
	for _, i := range evs {
		fd.Events = append(fd.Events, int(i))
	}
	return fd
}
