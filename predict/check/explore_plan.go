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
// several goroutines of the last run made: where each made it (its first
// maxSpots times), and which made it first.
type contested struct {
	key   string
	first uint64
	spots map[uint64][]spot
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
	for i := range t.Events {
		e := &t.Events[i]
		if !ofTest(t, e) {
			continue
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
			if partner >= 0 && t.Events[partner].G != e.G {
				sc.partner, sc.hasPartner = at(partner)
			}
			if sc.hasSelf || sc.hasPartner {
				ex.selects = append(ex.selects, sc)
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
			c = &contested{key: e.Op.String() + " " + runSite(t, i), first: s.path, spots: map[uint64][]spot{}}
			groups[k] = c
			order = append(order, c)
		}
		if _, ok := c.spots[s.path]; !ok {
			c.paths = append(c.paths, s.path)
		}
		if len(c.spots[s.path]) < maxSpots {
			c.spots[s.path] = append(c.spots[s.path], s)
		}
	}
	ex.contest = ex.contest[:0]
	for _, c := range order {
		if len(c.paths) < 2 {
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

// partnerDelays delays, on contended operations of the last run chosen by
// rng, every contender that won the operation in a run so far, before one
// of its such operations chosen by rng (a goroutine that took every
// piece of work is delayed at its first or a later one), so that another
// wins; if every contender has won once, all but one chosen by rng.
func (ex *explorer) partnerDelays(rng *rand.Rand) []trace.ExploreDelay {
	var out []trace.ExploreDelay
	seen := map[spot]bool{}
	for _, k := range rng.Perm(len(ex.contest)) {
		c := &ex.contest[k]
		won := ex.winners[c.key]
		var delay []uint64
		for _, p := range c.paths {
			if won[p] {
				delay = append(delay, p)
			}
		}
		if len(delay) == len(c.paths) {
			spare := rng.IntN(len(delay))
			delay = append(delay[:spare], delay[spare+1:]...)
		}
		for _, p := range delay {
			ss := c.spots[p]
			s := ss[rng.IntN(len(ss))]
			if len(out) >= ExploreMaxDelays {
				return out
			}
			if !seen[s] {
				seen[s] = true
				out = append(out, trace.ExploreDelay{Path: s.path, Pos: s.pos, Wait: ExploreDelay})
			}
		}
	}
	return out
}
