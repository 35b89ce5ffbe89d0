// This file implements the third sound layer: races whose witness must
// run critical sections in another order than the recorded run (Shi,
// Mathur and Pavlogiannis, "Optimistic prediction of
// synchronization-reversal data races", PLDI 2024, OSR).
//
// As in OSR, the witness's events are an optimistic lock closure of the
// two accesses: the causal cone of the events before them, where a lock
// that keeps a section open (one whose release the set does not hold)
// must have every other section of it in the set closed, since the open
// one comes last. Where the sync-preserving closure (race_syncp.go) would add
// the release of an earlier open section, this one may instead run that
// section after the others, reversing their observed order. OSR then
// decides with an abstract graph over the critical sections whether an
// order exists; seer looks for one directly, which also gives the
// witness: the set runs in observed order up to the first acquire of a
// section that stays open while a later section of its lock is in the
// set, and from there a scheduler runs, at each step, the enabled event
// that came first in the recorded run, where an event is enabled when
// its goroutine reached it, its fixed synchronisation sources have run,
// it is the next of the set's accesses to its location and of its
// synchronisation on its address (so every read sees its writer and
// every acquire its releases), and its lock is free — for an open
// section, once every other section of the lock has been released. If
// the scheduler gets stuck the layer gives up on the pair, which the UCG
// and the solver still try: a greedy order can miss a witness, not
// invent one, and the checker re-checks every schedule.
//
// Contract: it reports only pairs of sites that the sync-preserving layer
// left unproved, for which its scheduler runs the optimistic closure to
// the two accesses; it builds the witness by that run: the closure in
// observed order up to the first reversed section, then the scheduler's
// order, then the two accesses.

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// maxReversalWindow bounds the events the scheduler reorders for one pair.
const maxReversalWindow = 20000

// openSect is a critical section a cut leaves open: goroutine g holds
// lock l from its acquire (trace index acq) on.
type openSect struct {
	g      int32
	l      trace.ObjID
	s      csect
	acq    int32
	pinned bool // held at one of the racing accesses: cannot be closed
}

// openSections returns the sections cut leaves open.
func (e *engine) openSections(cut []int32, ga, gb int32) []openSect {
	c := e.c
	var out []openSect
	// Only goroutines with critical sections hold locks: a closure over
	// thousands of goroutines asks this at every round.
	for _, g := range c.lockG {
		p := cut[g]
		if p <= 0 {
			continue
		}
		c.heldAt(g, p, func(l trace.ObjID, s csect) {
			if s.rel != 0 && s.rel <= p {
				return
			}
			out = append(out, openSect{g: g, l: l, s: s, acq: c.at(g, s.acq), pinned: g == ga || g == gb})
		})
	}
	return out
}

// reversalWitness tries race cd with the optimistic lock closure and the
// scheduler described above. It returns the witness, or false.
//
// It tries two closures: first only the sections held at the racing
// accesses stay open (every other open section with a later section of
// its lock in the set closes, as in the sync-preserving closure); then,
// if that fails, any one section per lock may stay open, so that the
// others can run before it.
func (e *engine) reversalWitness(cd cand, cut []int32) (Finding, bool) {
	if fd, ok := e.reversalTry(cd, cut, true); ok {
		return fd, true
	}
	return e.reversalTry(cd, cut, false)
}

func (e *engine) reversalTry(cd cand, cut []int32, strict bool) (Finding, bool) {
	lg := e.lockGoroutines()
	c := e.c
	a, b := cd.ev[0], cd.ev[1]
	ga, gb := e.raceCone(cd, cut)
	// The closure: per lock, at most one section stays open (a pinned one
	// if there is one, else the latest); the others close.
	var keep map[trace.ObjID]openSect
	var opens []openSect // what stays open: keep's and other readers'
	for {
		if cut[ga] >= c.pos[a] || cut[gb] >= c.pos[b] {
			return Finding{}, false
		}
		keep = make(map[trace.ObjID]openSect)
		var closing []openSect
		for _, o := range e.openSections(cut, ga, gb) {
			k, ok := keep[o.l]
			switch {
			case !ok:
				keep[o.l] = o
				continue
			case k.s.shared && o.s.shared:
				continue // readers may overlap; the first kept stands for them
			case k.pinned && o.pinned:
				return Finding{}, false
			case o.pinned || (!k.pinned && o.acq > k.acq):
				keep[o.l], o = o, k
			}
			closing = append(closing, o)
		}
		if strict {
			for l, k := range keep {
				if !k.pinned && c.laterAcquire(l, k.acq, k.s.shared, cut, lg[l]) {
					closing = append(closing, k)
				}
			}
		}
		if len(closing) == 0 {
			opens = e.openSections(cut, ga, gb)
			break
		}
		for _, o := range closing {
			if o.s.rel == 0 {
				return Finding{}, false
			}
			e.coneInto(cut, o.g, o.s.rel)
		}
	}
	// Where the observed order stops working: the first kept-open acquire
	// with a later acquire of its lock in the set.
	start := int32(-1)
	openAcq := make(map[int32]bool)
	for _, o := range opens {
		openAcq[o.acq] = true
		if c.laterAcquire(o.l, o.acq, o.s.shared, cut, lg[o.l]) && (start < 0 || o.acq < start) {
			start = o.acq
		}
	}
	if start < 0 {
		return Finding{}, false // nothing to reverse: the sync-preserving layer's case
	}
	// The window: the set's events from start on, in observed order.
	var win []int32
	for g := range cut {
		evs := c.byG[g][:cut[g]]
		k, _ := slices.BinarySearch(evs, start)
		win = append(win, evs[k:]...)
		if len(win) > maxReversalWindow {
			return Finding{}, false
		}
	}
	slices.Sort(win)
	order, ok := e.schedule(win, start, cut, keep, openAcq)
	if !ok {
		return Finding{}, false
	}
	var stops []int
	seen := make(map[int32]bool)
	for _, i := range win {
		seen[int32(c.ev[i].G)] = true
	}
	for g := range cut {
		if seen[int32(g)] || int32(g) == ga || int32(g) == gb || int(cut[g]) >= len(c.byG[g]) {
			continue
		}
		if x := c.byG[g][cut[g]]; x < start {
			stops = append(stops, int(x))
		}
	}
	slices.Sort(stops)
	w := make([]int, 0, len(order)+2)
	for _, i := range order {
		w = append(w, int(i))
	}
	w = append(w, int(a), int(b))
	return Finding{Kind: KindRace, Events: []int{int(a), int(b)}, Prefix: int(start), Stops: stops, Witness: w}, true
}

// schedule orders win (the set's events from start on, sorted) as the
// file's comment says, or reports false if it gets stuck.
func (e *engine) schedule(win []int32, start int32, cut []int32, keep map[trace.ObjID]openSect, openAcq map[int32]bool) ([]int32, bool) {
	c, m := e.c, e.m
	done := make(map[int32]bool, len(win))
	ran := func(j int32) bool { return j < start || done[j] }
	// Each goroutine's events of the window, in program order.
	queues := make(map[int32][]int32)
	var gs []int32
	// The set's accesses per location and synchronisation per address,
	// in observed order, from start on.
	locQ := make(map[int32][]int32)
	syncQ := make(map[uint64][]int32)
	// Releases of each kept-open lock in the window (of its other
	// sections: the open one has none), and how many have run.
	others := make(map[trace.ObjID]int)
	released := make(map[trace.ObjID]int)
	for _, i := range win {
		g := int32(c.ev[i].G)
		if len(queues[g]) == 0 {
			gs = append(gs, g)
		}
		queues[g] = append(queues[g], i)
		if m.shared(i) {
			locQ[m.loc[i]] = append(locQ[m.loc[i]], i)
		}
		if c.syncKind(int(i)) != trace.SyncNone {
			syncQ[c.syncAddr(int(i))] = append(syncQ[c.syncAddr(int(i))], i)
		}
		if md := c.lockMode[i]; md == 'W' || md == 'R' {
			if _, ok := keep[c.ev[i].Obj]; ok {
				others[c.ev[i].Obj]++
			}
		}
	}
	// Lock state at start: the sections the set opened before it.
	type lstate struct {
		writer  bool
		readers int
	}
	locks := make(map[trace.ObjID]*lstate)
	st := func(l trace.ObjID) *lstate {
		s := locks[l]
		if s == nil {
			s = &lstate{}
			locks[l] = s
		}
		return s
	}
	for g := range cut {
		evs := c.byG[g][:cut[g]]
		p, _ := slices.BinarySearch(evs, start) // events of g before start
		if p == 0 {
			continue
		}
		c.heldAt(int32(g), int32(p), func(l trace.ObjID, s csect) {
			if s.rel != 0 && s.rel <= int32(p) {
				return
			}
			if s.shared {
				st(l).readers++
			} else {
				st(l).writer = true
			}
		})
	}
	enabled := func(i int32) bool {
		ok := true
		c.sources(i, func(j int32) { ok = ok && ran(j) })
		if !ok {
			return false
		}
		if m.shared(i) {
			if q := locQ[m.loc[i]]; q[0] != i {
				return false
			}
		}
		if c.syncKind(int(i)) != trace.SyncNone {
			if q := syncQ[c.syncAddr(int(i))]; q[0] != i {
				return false
			}
		}
		switch c.lockMode[i] {
		case 'w', 'r':
			l := c.ev[i].Obj
			s := st(l)
			if s.writer || (c.lockMode[i] == 'w' && s.readers > 0) {
				return false
			}
			if openAcq[i] && released[l] < others[l] {
				return false // an open section comes last
			}
		}
		return true
	}
	run := func(i int32) {
		done[i] = true
		if m.shared(i) {
			locQ[m.loc[i]] = locQ[m.loc[i]][1:]
		}
		if c.syncKind(int(i)) != trace.SyncNone {
			a := c.syncAddr(int(i))
			syncQ[a] = syncQ[a][1:]
		}
		l := c.ev[i].Obj
		switch c.lockMode[i] {
		case 'w':
			st(l).writer = true
		case 'r':
			st(l).readers++
		case 'W', 'R':
			if c.lockMode[i] == 'W' {
				st(l).writer = false
			} else {
				st(l).readers--
			}
			if _, ok := keep[l]; ok {
				released[l]++
			}
		}
	}
	order := make([]int32, 0, len(win))
	for len(order) < len(win) {
		next := int32(-1)
		for _, g := range gs {
			if q := queues[g]; len(q) > 0 && (next < 0 || q[0] < next) && enabled(q[0]) {
				next = q[0]
			}
		}
		if next < 0 {
			return nil, false
		}
		g := int32(c.ev[next].G)
		queues[g] = queues[g][1:]
		run(next)
		order = append(order, next)
	}
	return order, true
}
