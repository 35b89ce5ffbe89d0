// This file implements the side log's stop: where the log holds a small
// share of the events converted, it is put into the table there and then,
// and the conversion goes on with the table alone. It does not settle
// (settle.go) either: the accesses settle can leave out are those of
// lives one goroutine owned to their end, which the log would have held,
// so settling finds at most that small share, after reading the whole
// table (bench/RESULTS.md, "the side log stops where it does not pay,
// and its records are 16 bytes").
//
// The log pays for itself by the records it never puts in the table.
// Its costs are asking each access whether to hold it, writing the
// record, and, at the end, moving the whole table to make room for the
// records put back (mergeSide). Where it holds few events, and its
// lives become shared late, as on stress-chan-3m, it puts most of them
// back at the end and moves the whole table to do it, and costs more
// than it saves (bench/RESULTS.md, "the side log: accesses of lives one
// goroutine owns kept out of the event table"). The records held until
// the stop all go into the table, where they would have been without
// the log: compactLocal leaves out at the end those the log would have,
// so the trace is the same (TestSideLogSameTrace, TestLiveConversion).

package trace

const (
	// sideJudgeFirst is how many events are converted before the log is
	// first judged; it is judged again each time they double.
	sideJudgeFirst = 1 << 20
	// sideShareMin: the log stops where fewer than one in sideShareMin
	// of the events converted went to it.
	sideShareMin = 8
)

// startSide makes the converter's side log; the conversion no longer
// settles (it would find nothing in the table).
func (c *converter) startSide() {
	c.side, c.settleStep = newSideLog(), -1
	c.sideJudge, c.sideShare = sideJudgeFirst, sideShareMin
}

// judgeSide stops the side log, putting all its records into the table,
// if it holds less than a sideShare-th of the events converted so far.
// It runs between records (settleDue), where settle may renumber the
// table's events too.
func (c *converter) judgeSide() {
	converted := c.b.Len() + c.dropped + c.held
	if converted < c.sideJudge {
		return
	}
	c.sideJudge = 2 * converted
	if c.held*c.sideShare >= converted {
		return
	}
	if n := c.b.Len() + c.side.n; cap(c.b.t.Events) < n && c.b.full != nil {
		c.b.full() // as the table grows (tableCap), not to exactly n
	}
	m, moved := mergeSide(c.b, c.side, c.scan, true)
	c.held -= m // now in the table; those compactSide left out stay counted
	c.putBack += m
	c.renumberReleases(moved)
	c.side = nil
	c.sideStops++
}
