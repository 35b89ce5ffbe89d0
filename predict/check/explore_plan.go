// This file implements what exploring learns from one run (explore.go):
// its coverage (communicating pairs, lock orders, select outcomes), the
// select outcomes the select strategy steers away from, and the contended
// channels and mutexes whose winners the partner strategy delays.

package check

import (
	"fmt"
	"math/rand/v2"

	"github.com/seer-tools/seer/trace"
)

// A spot is where a goroutine of the next run is delayed: its name by
// creation (trace.GoPaths) and its position (trace.Trace.ReplayPos).
type spot struct {
	path uint64
	pos  uint32
}

// A selectCase is a select outcome of the last run: the select (self)
// and, when one is known, the operation of another goroutine that
// completed the case it took (partner).
type selectCase struct {
	site                string // the select's line
	self, partner       spot
	hasSelf, hasPartner bool
}

// contested is an operation (receive, send, lock) on one object that
// several goroutines of the last run made: in which order they first made
// it, how many times each won it and where (its first maxSpots wins). A
// receive that a close completed won nothing: it took no piece of the
// work.
type contested struct {
	key   string
	first uint64 // the goroutine that won it first
	spots map[uint64][]spot
	won   map[uint64]int
	paths []uint64 // the contenders in the order they first made it
}

// maxSpots bounds the operations of one goroutine a contested operation
// keeps.
const maxSpots = 16

// runSite is the user's source line of event i, or "".
func runSite(t *trace.Trace, i int) string {
	f, ok := trace.UserFrame(t.Stack(t.Events[i].Stack), t.Header.GOROOT)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s:%d", f.File, f.Line)
}

// inSelect reports whether channel event e was made by a select.
func inSelect(t *trace.Trace, e *trace.Event) bool {
	for _, f := range t.Stack(e.Stack) {
		switch f.Func {
		case "runtime.selectgo", "runtime.selectnbrecv", "runtime.selectnbsend":
			return true
		}
	}
	return false
}

// ofTest reports whether event e was made by a goroutine of a test.
func ofTest(t *trace.Trace, e *trace.Event) bool {
	g := t.Goroutine(e.G)
	return g != nil && g.Test != ""
}

// coverage adds what t covers and returns how much of it is new.
func (ex *explorer) coverage(t *trace.Trace) int {
	n := 0
	add := func(k string) {
		if !ex.cov[k] {
			ex.cov[k] = true
			n++
		}
	}
	type held struct {
		obj  trace.ObjID
		site string
	}
	holds := map[trace.GoID][]held{}
	sites := newSiteMemo(t)
	lastClose := map[trace.ObjID]int{}
	for i := range t.Events {
		e := &t.Events[i]
		if !ofTest(t, e) {
			continue
		}
		switch e.Op {
		case trace.OpClose:
			lastClose[e.Obj] = i
		case trace.OpRecv:
			site := sites.at(i)
			switch c, closed := lastClose[e.Obj]; {
			case e.Peer >= 0 && int(e.Peer) < len(t.Events):
				add("comm " + sites.at(int(e.Peer)) + " > " + site)
			case closed:
				add("close " + sites.at(c) + " > " + site)
			}
			if inSelect(t, e) {
				add("select " + site + " recv " + partnerSite(t, i, lastClose))
			}
		case trace.OpSend:
			if inSelect(t, e) {
				add("select " + sites.at(i) + " send")
			}
		case trace.OpLock, trace.OpRLock:
			site := sites.at(i)
			for _, h := range holds[e.G] {
				if h.obj != e.Obj {
					add("lock " + h.site + " > " + site)
				}
			}
			holds[e.G] = append(holds[e.G], held{e.Obj, site})
		case trace.OpUnlock, trace.OpRUnlock:
			hs := holds[e.G]
			for k := len(hs) - 1; k >= 0; k-- {
				if hs[k].obj == e.Obj {
					holds[e.G] = append(hs[:k], hs[k+1:]...)
					break
				}
			}
		}
	}
	return n
}

// partnerSite names the operation that completed receive i: the send's
// line, or the close's, or "".
func partnerSite(t *trace.Trace, i int, lastClose map[trace.ObjID]int) string {
	e := &t.Events[i]
	if e.Peer >= 0 && int(e.Peer) < len(t.Events) {
		return "from " + runSite(t, int(e.Peer))
	}
	if c, ok := lastClose[e.Obj]; ok {
		return "closed at " + runSite(t, c)
	}
	return ""
}

// plan learns from t what the select and partner strategies steer next.
func (ex *explorer) plan(t *trace.Trace) {
	paths := trace.GoPaths(t)
	at := func(i int) (spot, bool) {
		e := &t.Events[i]
		pos, own, ok := t.ReplayPos(i)
		if int(e.G) >= len(paths) || paths[e.G] == 0 || !own || !ok {
			return spot{}, false
		}
		return spot{paths[e.G], pos}, true
	}
	recvOf := map[int]int{} // send -> the receive that took its value
	for i := range t.Events {
		if e := &t.Events[i]; e.Op == trace.OpRecv && e.Peer >= 0 {
			recvOf[int(e.Peer)] = i
		}
	}
	ex.selects = ex.selects[:0]
	// A channel's buffered values are objects of their own (its slots):
	// channel operations are grouped by the line that makes them, lock
	// operations by the mutex.
	type opObj struct {
		obj  trace.ObjID
		op   trace.Op
		site string
	}
	groups := map[opObj]*contested{}
	var order []*contested
	lastClose := map[trace.ObjID]int{}
	begun := make([]int, len(t.Goroutines)) // 1 + a goroutine's first event
	free := map[trace.GoID]*lockFree{}
	var nm *nearMisses
	if ex.findings {
		nm = newNearMisses()
	}
	for i := range t.Events {
		e := &t.Events[i]
		if int(e.G) < len(begun) && begun[e.G] == 0 {
			begun[e.G] = i + 1
		}
		if !ofTest(t, e) {
			continue
		}
		lf := free[e.G]
		if lf == nil {
			lf = &lockFree{}
			free[e.G] = lf
		}
		lf.advance(t, i)
		if nm != nil {
			var ls spot
			lok := false
			if e.Op == trace.OpLock {
				ls, lok = at(i)
			}
			nm.event(t, i, ls, lok)
		}
		switch e.Op {
		case trace.OpClose:
			lastClose[e.Obj] = i
			continue
		case trace.OpRecv, trace.OpSend, trace.OpLock:
		default:
			continue
		}
		s, ok := at(i)
		if e.Op != trace.OpLock && ok {
			// A channel operation's goroutine is delayed where it held
			// no lock (lockFree).
			s.pos = lf.safe
		}
		if e.Op != trace.OpLock && inSelect(t, e) {
			// A select that parked is completed by its partner, whose
			// record it is: its own position is not known then.
			sc := selectCase{site: runSite(t, i), self: s, hasSelf: ok}
			partner := -1
			if e.Op == trace.OpRecv && e.Peer >= 0 {
				partner = int(e.Peer)
			} else if c, ok := lastClose[e.Obj]; e.Op == trace.OpRecv && ok {
				partner = c
			} else if r, ok := recvOf[i]; e.Op == trace.OpSend && ok {
				partner = r
			}
			// A partner that made its operation before the select's
			// goroutine began (a value sent before the go statement)
			// cannot be delayed past the select: only the select can.
			if partner >= begun[e.G] && t.Events[partner].G != e.G {
				sc.partner, sc.hasPartner = at(partner)
				if pf := free[t.Events[partner].G]; sc.hasPartner && pf != nil && t.Events[partner].Op != trace.OpLock {
					sc.partner.pos = min(sc.partner.pos, pf.safe)
				}
			}
			if sc.hasSelf || sc.hasPartner {
				ex.selects = append(ex.selects, sc)
			}
			if nm != nil {
				nm.selected(i, e.G, sc.site, e.Op.String()+" "+partnerSite(t, i, lastClose), s, ok)
			}
		}
		if !ok {
			continue
		}
		k := opObj{obj: e.Obj, op: e.Op}
		if e.Op != trace.OpLock {
			k = opObj{op: e.Op, site: runSite(t, i)}
		}
		c := groups[k]
		if c == nil {
			c = &contested{key: e.Op.String() + " " + runSite(t, i), spots: map[uint64][]spot{}, won: map[uint64]int{}}
			groups[k] = c
			order = append(order, c)
		}
		if _, ok := c.won[s.path]; !ok {
			c.paths = append(c.paths, s.path)
			c.won[s.path] = 0
		}
		if _, closed := lastClose[e.Obj]; e.Op == trace.OpRecv && e.Peer < 0 && closed {
			continue // a receive a close completed took no piece
		}
		if len(c.spots) == 0 {
			c.first = s.path
		}
		c.won[s.path]++
		if len(c.spots[s.path]) < maxSpots {
			c.spots[s.path] = append(c.spots[s.path], s)
		}
	}
	ex.contest = ex.contest[:0]
	for _, c := range order {
		if len(c.paths) < 2 || len(c.spots) == 0 {
			continue
		}
		w := ex.winners[c.key]
		if w == nil {
			w = map[uint64]bool{}
			ex.winners[c.key] = w
		}
		w[c.first] = true
		ex.contest = append(ex.contest, *c)
	}
	if nm != nil {
		ex.aim(nm)
	}
}

// lockFree follows one goroutine of a run through its events: the last
// position of its (trace.Trace.ReplayPos) at which it held no lock. A
// delay at position p is taken right after the goroutine's p-th countable
// record, which may come well before the operation the delay aims at: a
// select's goroutine may get its ctx.Done() channel under the context's
// mutex between its last countable record and the select, and delayed
// there it would hold up the very cancel that was to make the other case
// ready. So a channel operation is aimed at from the last position before
// it where its goroutine held no lock.
type lockFree struct {
	pos, safe uint32
	held      int
	seen      bool
}

// advance takes in the goroutine's event i: the positions it passes
// come before i, with the locks held before it.
func (lf *lockFree) advance(t *trace.Trace, i int) {
	if p, own, ok := t.ReplayPos(i); ok && own && (p > lf.pos || !lf.seen) {
		lf.pos, lf.seen = p, true
		if lf.held == 0 {
			lf.safe = p
		}
	}
	switch t.Events[i].Op {
	case trace.OpLock, trace.OpRLock:
		lf.held++
	case trace.OpUnlock, trace.OpRUnlock:
		lf.held = max(lf.held-1, 0)
	}
}

// selectDelays delays, for select outcomes of the last run chosen by rng,
// either the partner that completed the case taken (so that another case
// is ready first) or the select itself (so that every case that can be
// ready is).
func (ex *explorer) selectDelays(rng *rand.Rand) []trace.ExploreDelay {
	order := rng.Perm(len(ex.selects))
	seen := map[spot]bool{}
	var out []trace.ExploreDelay
	for _, k := range order {
		if len(out) >= ExploreMaxDelays {
			break
		}
		sc := ex.selects[k]
		// The two ways take turns at each select (by its line), from a
		// start rng picks.
		turn := ex.steered[sc.site]
		if turn == 0 {
			turn = 1 + rng.IntN(2)
		}
		ex.steered[sc.site] = turn + 1
		s := sc.self
		if !sc.hasSelf || sc.hasPartner && turn%2 == 0 {
			s = sc.partner
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, trace.ExploreDelay{Path: s.path, Pos: s.pos, Wait: ExploreDelay})
		}
	}
	return out
}

// partnerDelays delays, on each contended operation of the last run (in
// an order rng picks), the goroutine that won it most often there, so
// that another wins pieces of it (explore_partner.go has the choice of
// where).
func (ex *explorer) partnerDelays(rng *rand.Rand) []trace.ExploreDelay {
	var out []trace.ExploreDelay
	seen := map[spot]bool{}
	for _, k := range rng.Perm(len(ex.contest)) {
		if len(out) >= ExploreMaxDelays {
			break
		}
		if s, ok := ex.partnerSpot(&ex.contest[k], rng); ok && !seen[s] {
			seen[s] = true
			out = append(out, trace.ExploreDelay{Path: s.path, Pos: s.pos, Wait: ExploreDelay})
		}
	}
	return out
}
