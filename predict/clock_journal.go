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
// The tree clock's other half is its subtree test: a child whose clk the
// receiver already knows is passed over with everything under it. Each
// group of a log keeps the releaser of the one join that made it, if one
// did (a jsrc: the goroutine and the component the receiver must have of
// it), and a join passes over the groups whose releaser the receiver
// already holds. So a goroutine that acquires from one it has never
// heard of reads that one's journal too: on the ring, a worker receiving
// from the done channel its short-lived child closed passes over the
// child's only group, which came from the worker's own go statement, and
// joins one entry, where it joined the child's whole clock. The groups
// are read in order of position, not of when their releasers were
// joined (the tree's order), so that the pass over them stops at a
// budget, not at the first known child; where few can be passed over
// (all goroutines talking to all) it gives up for a whole join early.
//
// The result is the same clock; only its cost differs, so the history is
// unchanged (TestPassShortcutsSameHistory compares the two on every trace
// the tests generate).

package predict

// journalJoins turns the journal's joins on; tests turn them off to
// compare. treePrune, with them, passes over the groups whose source the
// receiver holds (jsrc), and so reads the journal of a goroutine the
// receiver has never heard of.
var (
	journalJoins = true
	treePrune    = true
)

// jtag names a stored clock as goroutine g's clock after the first n-1
// groups of its log (n = 0: not so known).
type jtag struct{ g, n int32 }

// A journal indexes the groups of a pass's log by goroutine: where each
// starts and at which position, so that the groups from a position on
// can be read without decoding the log from its start.
//
// Logs, tags and sources are a goroutine's, with its positions, in a pass
// with chains too (clock_chain.go): ch turns an epoch into a position.
type journal struct {
	ch  *chainMap
	log []kpvLog // the pass's (riseRecorder.log)
	pos [][]int32
	at  [][]jref
	src [][]jsrc
	buf []centry
	// back skips the tries of receivers whose tries keep failing
	// (clock_journal_backoff.go).
	back backoff
}

// jref is where a group starts: chunk (len(full) for cur) and offset.
type jref struct{ chunk, off int32 }

// jsrc is the source of a group of a goroutine's log: the group's rises
// all came from one join of a clock, and of g's epoch ep, that every
// clock whose component g is need or more holds (the zero jsrc: no such
// source). It is the edge of a tree clock (Mathur et al., §3): the
// group is the subtree that the join hung under the receiver, need its
// root's clk, which a later join compares with what its receiver knows
// of g to pass over the whole subtree.
//
// It is kept for every group of every log, so it takes 8 bytes: need
// doubled, plus one if the epoch is need-1 rather than need (source
// makes no other).
type jsrc struct{ g, nb int32 }

func (x jsrc) need() int32 { return x.nb >> 1 }
func (x jsrc) ep() int32   { return x.nb>>1 - x.nb&1 }

// source returns the source of a join of a stored clock tagged t, with
// epochs eps: goroutine t.g's clock after the groups that t names, and
// its own event eps[0]. A clock that knows t.g's event need holds t.g's
// clock after event need-1, and so the groups that t names (all at
// positions up to need-1) and the epoch. None for a join of several
// releasers' epochs or of an untagged clock.
func (j *journal) source(t jtag, eps []centry) jsrc {
	if j == nil || t.n <= 0 || len(eps) != 1 || eps[0].g != j.ch.chainOf(t.g) {
		return jsrc{}
	}
	ep := eps[0].v
	if j.ch != nil {
		ep -= j.ch.base[t.g]
	}
	need := ep
	if t.n >= 2 {
		need = max(need, j.pos[t.g][t.n-2]+1)
	}
	if need-ep > 1 || need >= 1<<30 {
		return jsrc{}
	}
	return jsrc{t.g, need<<1 | (need - ep)}
}

func newJournal(log []kpvLog) *journal {
	return &journal{log: log, pos: make([][]int32, len(log)), at: make([][]jref, len(log)), src: make([][]jsrc, len(log))}
}

// logged notes that g's log has just added a group at position pos,
// size bytes long (kpvLog.add's result: 0 for none), whose source is src.
func (j *journal) logged(g, pos int32, size int, src jsrc) {
	if j == nil || size == 0 {
		return
	}
	l := &j.log[g]
	j.pos[g] = append(j.pos[g], pos)
	j.src[g] = append(j.src[g], src)
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

// since returns the rises of t's clock at positions v and later (v = 0:
// all of them) that the receiver does not hold already, in storage the
// next call reuses, or false if they are more than limit (then a whole
// join costs less). known, if not nil, says whether the receiver holds
// what a group's source released (jsrc): such a group is passed over
// without being read, as a tree clock passes over a child whose clock the
// receiver already knows (Mathur et al., ASPLOS 2022, §3, Algorithm 2's
// test in getUpdatedNodesJoin). A group whose source is the receiver
// self's own past is passed over too, but for the source's epoch: a
// clock does not store its goroutine's own component, which it learns
// only from others.
func (j *journal) since(t jtag, v int32, limit int, self int32, known func(jsrc) bool) ([]centry, bool) {
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
	at, src := j.at[g], j.src[g]
	chunk := func(c int32) []byte {
		if int(c) < len(l.full) {
			return l.full[c]
		}
		return l.cur
	}
	// The bytes from group lo to group n bound its rises: a rise takes
	// two bytes at least. Past limit, the groups are read only to be
	// passed over (known), and then for a quarter of a whole join's
	// cost at most (work: a look at a group, a rise read), so that
	// where few can be passed over (all goroutines talking to all)
	// reading the journal costs little more than it did without.
	size := 0
	end := jref{int32(len(l.full)), int32(len(l.cur))}
	if n < len(at) {
		end = at[n]
	}
	for c := at[lo].chunk; c <= end.chunk; c++ {
		size += len(chunk(c))
	}
	size -= int(at[lo].off) + len(chunk(end.chunk)) - int(end.off)
	budget := -1 // no bound on the work but limit
	if size/2 > limit {
		if known == nil || n-lo > limit/4 {
			return nil, false
		}
		budget = limit / 4
	}
	out := j.buf[:0]
	for q := lo; q < n; q++ {
		if budget >= 0 {
			if budget--; budget < 0 {
				j.buf = out
				return nil, false
			}
		}
		if x := src[q]; known != nil && known(x) {
			if x.g == self {
				out = append(out, j.ch.ep(x.g, x.ep()))
			}
			continue
		}
		b, i := chunk(at[q].chunk), int(at[q].off)
		_, i = uvAt(b, i) // the position, kept in ps
		var hdr uint32
		hdr, i = uvAt(b, i)
		if len(out)+int(hdr>>1) > limit {
			j.buf = out
			return nil, false
		}
		if budget >= 0 {
			if budget -= int(hdr >> 1); budget < 0 {
				j.buf = out
				return nil, false
			}
		}
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
	}
	j.buf = out
	return out, true
}

// acquire joins s into goroutine g's clock: from the journal when s is
// a tagged prefix of another goroutine's log (of the groups g does not
// hold already, with treePrune, or of those since g last heard of it),
// else whole (after folding its pending merges in).
func (ps *pass) acquire(g int32, s *syncVar) {
	if ps.ch != nil {
		ps.ch.noteAcquired(g, s.eps)
		for _, p := range s.pend {
			ps.ch.noteAcquired(g, []centry{p.ep})
		}
	}
	if t := s.tag; t.n > 0 && len(s.pend) == 0 {
		from := ps.jr.source(t, s.eps)
		var rs []centry
		ok := true
		if t.g != g {
			v := ps.knowsOf(g, t.g)
			switch {
			case ps.jr.back.skipping(g, ps.ng): // clock_journal_backoff.go
				ok = false
			case treePrune:
				rs, ok = ps.jr.since(t, v, s.clk.size(), g, func(x jsrc) bool { return ps.holds(g, x) })
				ps.jr.back.tried(g, ok)
			case v > 0:
				rs, ok = ps.jr.since(t, v, s.clk.size(), -1, nil)
				ps.jr.back.tried(g, ok)
			default:
				ok = false
			}
		}
		if ok {
			ps.joinFrom(g, from, vclock{}, append(rs, s.eps...)...)
			return
		}
		s.fold(ps.fsc)
		ps.joinFrom(g, from, s.clk, s.eps...)
		return
	}
	if len(s.pend) > 0 {
		s.tag = jtag{} // fold makes clk a join of several
	}
	s.fold(ps.fsc)
	ps.join(g, s.clk, s.eps...)
}

// holds reports whether goroutine g's clock, at the current event, holds
// all that source x released: g knows x's goroutine's event x.need,
// so it has joined a clock of that goroutine from no earlier than just
// before it (the epoch rule the journal rests on, above); or x is g's own
// past, a prefix of its log, which its clock holds (but for x's epoch,
// see since).
func (ps *pass) holds(g int32, x jsrc) bool {
	switch {
	case x.nb <= 0:
		return false // no source
	case x.g == g:
		return x.need() <= ps.gpos
	default:
		return ps.knowsOf(g, x.g) >= x.need()
	}
}
