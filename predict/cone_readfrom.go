// This file implements a filter that proves, without the causal cone's
// pass, that the cone orders two events: one read-from edge that the
// cone keeps, walked from must-happen-before's clocks. The race layers
// (refuteByReadFrom) and the misuse layer's waitgroup-reuse (misuse.go)
// use it to drop candidates whose closures the cone would refuse, so
// that a trace whose every open candidate is such needs no cone at all.
//
// Must-happen-before is the fixed orderings alone (program order, go and
// join, the synchronisation that is not a lock): it has no read-from,
// since a witness may reorder critical sections, and a read in one may
// see another writer in schedules that do not keep the read. The causal
// cone adds the read-from of every read a witness keeps
// (engine.keepsWriter; the maximal causal model of Şerbănuţă, Chen and
// Roşu, Theorem 2: each read sees what it saw, and soundness of
// predictive analyses, §5.1, Definition 10: a witness holds the cone of
// its bug events). Its pass replays the whole trace, joining every kept
// read's writer's clock.
//
// singleflight's Group.Do (groupcache) is the pattern: the goroutine
// that makes a call runs c.wg.Add(1), then g.m[key] = c, under g.mu; one
// that finds the call reads g.m[key] under g.mu, then runs c.wg.Wait().
// Must-happen-before leaves the two critical sections unordered, so the
// Add against the Wait is a waitgroup-reuse candidate, and the race
// detector's own accesses of the group's semaphore in Add and Wait (its
// check of that reuse) a race candidate. But the waiter's map read
// observed the adder's write of the map, which comes after the Add in
// program order: every schedule that runs the Wait has run the Add. The
// cone says so, and refuses both; building it for that was the cost.
//
// The rule: x is before y in the cone if y's goroutine, before y, ran a
// kept read r one of whose writers wr x must precede (wr is x or a later
// event of x's goroutine, or x must happen before wr). Then the cone of
// the events before y holds r, so wr, so x (the cone contains program
// order and must-happen-before and is downward closed), and so does every
// closure of it under the lock rule. A race or reuse candidate needs both
// of its events to be their goroutines' next steps at once, so a
// candidate of which one event is before the other in this sense has no
// witness in any layer: dropping it loses nothing. A writer precedes its
// read in the run and anything x precedes comes after x, so the walk back
// over y's goroutine stops at the first event before x, and after
// maxReadFromWalk events (then the filter answers no and the cone
// decides).

package predict

// readFromFilter lets the race and misuse layers use the filter; false
// for the tests that compare the findings with and without it.
var readFromFilter = true

// maxReadFromWalk bounds the events of y's goroutine that readFromBefore
// walks back over for one pair.
const maxReadFromWalk = 1 << 10

// readFromBefore reports whether every schedule that runs y's goroutine
// up to y (y excluded) runs x, through one read-from edge that the
// causal cone keeps: see the file's comment.
func (e *engine) readFromBefore(x, y int32) bool {
	c := e.c
	g, gx := int32(c.ev[y].G), int32(c.ev[x].G)
	for p, n := c.pos[y]-1, 0; p >= 1 && n < maxReadFromWalk; p, n = p-1, n+1 {
		r := c.at(g, p)
		if r < x {
			return false // r's writers, and those of every earlier read of g, are before x in the run
		}
		if !e.keepsWriter(r) {
			continue
		}
		for _, wr := range e.m.writers(r) {
			if wr < x {
				continue // before x in the run (or none): x cannot precede it
			}
			// At or after x in x's goroutine, or after x in must-happen-before.
			if wg := int32(c.ev[wr].G); wg == gx || e.mhb.knows(wg, c.pos[wr]-1, gx) >= c.pos[x] {
				return true
			}
		}
	}
	return false
}

// readFromOrdered reports whether readFromBefore orders x and y either way.
func (e *engine) readFromOrdered(x, y int32) bool {
	return readFromFilter && (e.readFromBefore(x, y) || e.readFromBefore(y, x))
}

// refuteByReadFrom drops from cs the race site pairs that no layer has
// proved and whose every pair that must-happen-before leaves unordered
// readFromOrdered orders or lockReadOrdered (cone_lockread.go) refuses:
// no layer after it could prove them, and when they are all that is left
// the cone is not made. It knows every such
// pair only when the sweep kept them all as representatives (raceSweep
// keeps at most one per access of one side, up to MaxTries), that is
// when the site pair's count is its number of representatives.
func (e *engine) refuteByReadFrom(cs *candidates, proofs map[siteKey]*proof) {
	if !readFromFilter {
		return
	}
	dead := func(k siteKey) bool {
		s := cs.bySite[k]
		if k.kind != 'r' || proofs[k] != nil || s.count != int64(len(s.cands)) {
			return false
		}
		for _, cd := range s.cands {
			if !e.readFromOrdered(cd.ev[0], cd.ev[1]) && !e.lockReadOrdered(cd.ev[0], cd.ev[1]) {
				return false
			}
		}
		return true
	}
	kept := cs.order[:0]
	for _, k := range cs.order {
		if dead(k) {
			delete(cs.bySite, k)
			continue
		}
		kept = append(kept, k)
	}
	cs.order = kept
}
