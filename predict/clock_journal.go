// This file implements joins that cost what changed (issue 31): the idea
// of tree clocks (Mathur, Pavlogiannis, Tunç and Viswanathan, "A Tree
// Clock Data Structure for Causal Orderings in Concurrent Executions",
// ASPLOS 2022, §3: a join visits only the entries of the source that
// the receiver does not know yet, found from what the receiver knows of
// the source's own goroutine), taken from the history a pass already
// logs instead of from a tree.
//
// A pass logs every rise of every goroutine's clock, grouped by position
// (clock_rises.go's kpvLog): goroutine u's clock after its first n groups is
// exactly the join of those groups. A release that stores u's clock when
// nothing has risen yet at the current event stores exactly that join,
// and is tagged with n (a jtag). A goroutine g that acquires such a
// clock, and already knows u's event v ≥ 1, knows u's clock from before
// that event (every clock of the pass is closed under the epoch rule: a
// clock in which u's component is v was joined with a clock of u from no
// earlier than just before u's event v, package doc and clock_pass.go), that is
// every group at a position below v. So the join is g's clock joined
// with u's groups at positions v and later, among the first n: the rises
// since the last time g heard of u, not u's whole clock. On issue 31's
// ring of 51,000 goroutines a worker's clock holds thousands of entries
// and each channel operation adds tens.
//
// The result is the same clock; only its cost differs, so the history is
// unchanged (TestPassShortcutsSameHistory compares the two on every trace
// the tests generate).

package predict

// journalJoins turns the journal's joins on; tests turn them off to
// compare.
var journalJoins = true

// jtag names a stored clock as goroutine g's clock after the first n-1
// groups of its log (n = 0: not so known).
type jtag struct{ g, n int32 }

// A journal indexes the groups of a pass's log by goroutine: where each
// starts and at which position, so that the groups from a position on
// can be read without decoding the log from its start.
type journal struct {
	log []kpvLog // the pass's (riseRecorder.log)
	pos [][]int32
	at  [][]jref
	buf []centry
}

// jref is where a group starts: chunk (len(full) for cur) and offset.
type jref struct{ chunk, off int32 }

func newJournal(log []kpvLog) *journal {
	return &journal{log: log, pos: make([][]int32, len(log)), at: make([][]jref, len(log))}
}

// logged notes that g's log has just added a group at position pos,
// size bytes long (kpvLog.add's result: 0 for none).
func (j *journal) logged(g, pos int32, size int) {
	if j == nil || size == 0 {
		return
	}
	l := &j.log[g]
	j.pos[g] = append(j.pos[g], pos)
	j.at[g] = append(j.at[g], jref{int32(len(l.full)), int32(len(l.cur) - size)})
}

// tag returns the tag of g's clock now, if nothing has risen in it at the
// current event (pending: the rises not logged yet). A pass without a
// journal (nil) tags nothing.
func (j *journal) tag(g int32, pending int) jtag {
	if j == nil || pending > 0 || !journalJoins {
		return jtag{}
	}
	return jtag{g, int32(len(j.pos[g])) + 1}
}

// tagAfter returns the tag of g's clock once the current event's rises
// (pending) are logged: for a clock stored after the event's last join.
func (j *journal) tagAfter(g int32, pending int) jtag {
	if j == nil || !journalJoins {
		return jtag{}
	}
	n := int32(len(j.pos[g])) + 1
	if pending > 0 {
		n++
	}
	return jtag{g, n}
}

// since returns the rises of t's clock at positions v and later, in
// storage the next call reuses, or false if they are more than limit
// (then a whole join costs less).
func (j *journal) since(t jtag, v int32, limit int) ([]centry, bool) {
	g, n := t.g, int(t.n-1)
	ps := j.pos[g][:n]
	lo, hi := 0, n
	for lo < hi { // the first group at position v or later
		m := int(uint(lo+hi) >> 1)
		if ps[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == n {
		return j.buf[:0], true
	}
	l := &j.log[g]
	at := j.at[g]
	chunk := func(c int32) []byte {
		if int(c) < len(l.full) {
			return l.full[c]
		}
		return l.cur
	}
	// The bytes from group lo to group n bound its rises: a rise takes
	// two bytes at least.
	size := 0
	end := jref{int32(len(l.full)), int32(len(l.cur))}
	if n < len(at) {
		end = at[n]
	}
	for c := at[lo].chunk; c <= end.chunk; c++ {
		size += len(chunk(c))
	}
	size -= int(at[lo].off) + len(chunk(end.chunk)) - int(end.off)
	if size/2 > limit {
		return nil, false
	}
	out := j.buf[:0]
	for q := lo; q < n; q++ {
		b, i := chunk(at[q].chunk), int(at[q].off)
		_, i = uvAt(b, i) // the position, kept in ps
		var hdr uint32
		hdr, i = uvAt(b, i)
		base, sorted := uint32(0), hdr&1 != 0
		for k := hdr >> 1; k > 0; k-- {
			var x, y uint32
			x, i = uvAt(b, i)
			y, i = uvAt(b, i)
			x += base
			if sorted {
				base = x
			}
			out = append(out, centry{int32(x), int32(y)})
		}
		if len(out) > limit {
			return nil, false
		}
	}
	j.buf = out
	return out, true
}

// acquire joins s into goroutine g's clock: from the journal when s is
// a tagged prefix of another goroutine's log that g has heard of, else
// whole (after folding its pending merges in).
func (ps *pass) acquire(g int32, s *syncVar) {
	if t := s.tag; t.n > 0 && len(s.pend) == 0 {
		var rs []centry
		ok := true
		if t.g != g {
			if v := ps.get(g, t.g); v > 0 {
				rs, ok = ps.jr.since(t, v, s.clk.size())
			} else {
				ok = false
			}
		}
		if ok {
			ps.join(g, vclock{}, append(rs, s.eps...)...)
			return
		}
	}
	if len(s.pend) > 0 {
		s.tag = jtag{} // fold makes clk a join of several
	}
	s.fold(ps.fsc)
	ps.join(g, s.clk, s.eps...)
}
