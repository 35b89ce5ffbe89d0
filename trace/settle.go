// This file implements settling: leaving out, while the conversion runs,
// the goroutine-local accesses that compactLocal would leave out at the
// end and that no later event can keep.
//
// compactLocal needs the whole trace to know that memory was local: a
// later event of another goroutine can make it shared. A heap life is the
// exception. Once the allocation stage has seen its memory allocated anew
// (allocMap.mark reports the allocations a record ends; the recorder
// records no frees), no later record names it, so whether one goroutine
// alone touched it is known. settle then leaves out its accesses, but for
// each goroutine's last event and last event with a user frame, which
// compactLocal keeps and which only a later event of the goroutine can
// replace. Those it leaves out are a subset of what compactLocal would,
// and the trace that results is the same (TestLiveConversion).
//
// On Go's race suite most of the events are such accesses. Without
// settling the event table held all of them until the end, and writing
// them to its fresh pages was much of the converter's CPU (Builder.Add);
// with it the table holds a fraction of the run's events, Builder.Add
// takes less time than settling saves, and seer check's peak memory falls
// (the figures are in bench/RESULTS.md, "Figures once in comments").

package trace

// settleEvery is the least number of events added between two settles. A
// settle reads every event of the table and moves those it keeps (K), so
// the next one waits until the table is four times K, or settleEvery past
// it: a settle then costs at most about two event moves per event it can
// leave out. (Doubling, on the race suite, cost the converter as much
// time as the table's fresh pages saved: K stays large there, the
// accesses of lives not yet ended; bench/RESULTS.md.)
const settleEvery = 1 << 20

// retire notes that allocation aid has ended.
func (c *converter) retire(aid uint32) {
	if int(aid) >= len(c.lifeOf) {
		return // never touched
	}
	life := c.lifeOf[aid]
	if life == 0 {
		return
	}
	for int(life) >= len(c.settled) {
		c.settled = append(c.settled, make([]bool, len(c.settled)+1024)...)
	}
	c.settled[life] = true
	// Only a life one goroutine owned can be left out; another would
	// start a settle that leaves out nothing and puts the next one four
	// times as far off. Its owner is final: no later record names it.
	if c.scan != nil && c.scan.ownedLife(uint64(life)) {
		c.nSettled++
	}
	if c.side != nil {
		c.retireSide(life)
	}
}

// settledOwned reports whether life l ended (retire) and was one
// goroutine's: its accesses but the last are left out.
func (c *converter) settledOwned(l uint64) bool {
	return l < uint64(len(c.settled)) && c.settled[l] && c.scan.ownedLife(l)
}

// settleDue settles if lives one goroutine owned were settled since the
// last time and the table reached settleAt; first it judges the side log,
// if any.
func (c *converter) settleDue() {
	if c.side != nil {
		c.judgeSide()
	}
	if c.nSettled > 0 && c.settleStep > 0 && c.b.Len() >= c.settleAt {
		c.settle()
	}
}

// settle leaves out the accesses to settled lives that compactLocal would
// leave out (see the file comment), and renumbers what names events: the
// converter's latest releases, the scan's last events, and what
// compactEvents renumbers.
func (c *converter) settle() {
	t, s := c.b.t, c.scan
	var rp []uint32
	if c.rp != nil {
		rp = c.rp.pos
	}
	left, rp, idx := compactEvents(t, rp, func(i int, e *Event) bool {
		if !e.Op.IsAccess() || e.Addr < lifeBase {
			return false
		}
		l := (e.Addr - lifeBase) >> lifeShift
		if !c.settledOwned(l) {
			return false
		}
		return !s.isLast(i, e.G)
	}, c.settleIdx)
	c.settleIdx = idx
	if c.rp != nil {
		c.rp.pos = rp
	}
	c.dropped += left
	c.nSettled = 0
	c.settleAt = max(4*c.b.Len(), c.b.Len()+c.settleStep)
	if left == 0 {
		return
	}
	c.renumberReleases(func(i int) int { return int(idx[i]) })
	for k, i := range s.last {
		if i >= 0 {
			s.last[k] = idx[i] // compactLocal keeps them: settle does too
		}
	}
}
