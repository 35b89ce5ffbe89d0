// This file implements the vector-clock passes: one replay of the trace
// that computes, for every goroutine, the history of its clock. Four
// relations use it (UCG paper §5 "mhb"; soundness-of-predictive-analyses
// §6.4-6.5):
//
//   - must-happen-before (mhb): program order, go → start, join, and the
//     fixed synchronisation of the CTP (locks excluded: they stay locks);
//   - the causal cone: mhb plus read-from of every read whose value matters
//     (the reads a witness must keep), used to find the events a witness
//     cannot do without;
//   - happens-before (hb): mhb plus locks as release/acquire in observed
//     order, as ThreadSanitizer computes it;
//   - schedulable happens-before (shb): hb plus read-from.
//
// Clocks count events: component g = v means "the first v events of g".
// A goroutine's own component is not stored (program order answers it).
//
// Joins that cannot change anything are skipped with epochs, as FastTrack
// does (Flanagan and Freund, PLDI 2009): a goroutine that knows an event
// knows all its goroutine knew then. Release-merges into an address are
// joined at its next acquire, one per goroutine. A goroutine's clock is
// updated in place while nothing else holds it (clock_vc.go's joinOwn): the
// pass tracks that per goroutine. The pass keeps each
// clock's history in clock_rises.go's form, and for a pass that answers a few
// queries (Finding.Predicted) only the states they ask about.

package predict

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// clockMode selects the relation a pass computes.
type clockMode struct {
	locks bool // locks as release/acquire in observed order
	// serial makes every release-acquire event (an atomic
	// read-modify-write, an operation on an observed lock: one unlocked
	// by another goroutine, which keeps the CTP's total order instead of
	// ThreadSanitizer's release/acquire) acquire first and then release all
	// it knows, so that their chains are transitive in the clocks: every
	// witness keeps each one after the release it acquires. Without it a
	// release-acquire event releases its clock from before its acquire,
	// which under-approximates that order (the cone's worklist in solve_plan.go
	// makes up for it).
	serial bool
	rf     bool // reads join their writers' clocks
	// relaxed, with rf, names plain reads whose writer need not be kept.
	relaxed bitset
	// want, if set, keeps the clock only after the given numbers of
	// events of each goroutine (sorted), instead of its whole history:
	// for a few queries, memory in their number rather than the trace's.
	want map[int32][]int32
	// visit, if set, is called for every event with its goroutine's clock
	// just before it (after a goroutine's go statement, before the event's
	// own joins): what a race check judges an access by.
	// d, if not nil, is a dense mirror of cur (joinDense's), to be read
	// instead: d[k] is cur.get(k).
	visit func(i int32, cur vclock, d []int32)
	// acqRises keeps, for every release-acquire event, the components of
	// its goroutine's clock that rose at it (clocks.acq): what a closure
	// over the pass (solve_plan.go's closeInto) needs of such an event beyond
	// what knowing it already gave. Only without want.
	acqRises bool
	// rfCheck, without rf, asks whether the cone's pass (rf with
	// relaxed, and acqRises) would compute the same clocks as this one:
	// whether at every read it would keep, this pass's clock already
	// knows each writer as that pass's epoch rule asks (clocks.rfImplied).
	// While the answer is yes, the pass keeps acqRises' rises too.
	rfCheck bool
	// budget, if positive and without want, bounds the bytes of the
	// history's log: past it the pass stops with a *historyBudgetError.
	budget int64
	// spill, if positive, bounds the bytes of the clock bases the pass
	// holds: past it at a sweep, the clocks of the addresses idle
	// longest go to a file (clock_spill.go). Only without a log.
	spill int64
	// chains, if not nil, makes the pass's components chains of
	// goroutines (clock_chain.go), which it decides as it goes and
	// records there.
	chains *chainMap
	// arena, if not nil, holds the history's index
	// (clock_rises_file.go).
	arena *riseArena
	// govern, if not nil, is asked every governEvery+1 events and before
	// the history's index whether the pass may go on or must wait for
	// the SHB layer beside it (analyze_beside.go).
	govern *governor
}

// A historyBudgetError is a pass stopped because its history's log
// outgrew clockMode.budget at event At-1. Index and RFImplied are the
// clocks of the trace's first At events (their history and
// clocks.rfImplied), which a pass of only those events would compute: a
// pass's state after an event depends on the events before it alone
// (TestHistoryBudgetPrefix). They hold nothing of the whole trace's CTP,
// which the analysis drops before the prefix's (analysis.cutHistory).
type historyBudgetError struct {
	At        int
	Budget    int64
	Index     *prefixIndex // the history, maybe still being made (history_cut.go)
	RFImplied bool
}

func (e *historyBudgetError) Error() string {
	return fmt.Sprintf("predict: the clock history outgrew its budget of %d bytes at event %d", e.Budget, e.At)
}

// clocks is the result of one pass: every goroutine's clock after each
// of its positions, as a history (clock_rises.go).
type clocks struct {
	c   *ctp
	h   *riseLog    // its chains, if any, in h.ch
	acq *eventRises // with clockMode.acqRises
	// rfImplied, with clockMode.rfCheck: the read-from of every read the
	// cone keeps is already implied, so that the cone's pass would join
	// nothing this one did not and its clocks are these.
	rfImplied bool
}

// eventRises holds the rises of a clock at the release-acquire events of
// a pass. Those of the j-th such event (its rank in ev) are a group at
// chunk ck[j], byte off[j] (ck[j] is -1 for an event at which nothing
// rose): a uvarint header, the number of rises times two plus one if the
// group is wide, then goroutine and value of each, as two little-endian
// uint16s (narrow: both fit) or as uvarints (wide). Either is about 4
// bytes a rise rather than 8 (a pass over thousands of goroutines that
// all talk to all keeps millions); the narrow form, usual when
// goroutines and positions are in the thousands, decodes with no branch
// per byte (closures decode a rise for every one they pass over, solve_plan.go's
// closeInto). Chunks are never copied; a group starts a new chunk when it
// does not fit.
type eventRises struct {
	ev      rankSet // the release-acquire events
	ck, off []int32
	chunks  [][]byte
}

// newEventRises returns an empty record of the rises at c's
// release-acquire events.
func newEventRises(c *ctp) *eventRises {
	ev := newRankSet(len(c.ev), func(i int) bool { return c.syncKind(i) == trace.SyncReleaseAcquire })
	r := &eventRises{ev: ev, ck: make([]int32, ev.n), off: make([]int32, ev.n)}
	for j := range r.ck {
		r.ck[j] = -1
	}
	return r
}

// add keeps rises rs of release-acquire event i, in any order of events.
func (r *eventRises) add(i int32, rs []centry) {
	j := r.ev.index(i)
	if j < 0 {
		panic("predict: rises kept for an event that is not a release-acquire")
	}
	wide := false
	for _, x := range rs {
		if uint32(x.g)|uint32(x.v) >= 1<<16 {
			wide = true
			break
		}
	}
	hdr := uint64(len(rs)) << 1
	size := 4 * len(rs) // narrow
	if wide {
		hdr |= 1
		size = 0
		for _, x := range rs {
			size += uvarintLen(uint32(x.g)) + uvarintLen(uint32(x.v))
		}
	}
	size += uvarintLen(uint32(hdr))
	// Encoded in place, at the end of the last chunk.
	n := len(r.chunks)
	if n == 0 || cap(r.chunks[n-1])-len(r.chunks[n-1]) < size {
		r.chunks = append(r.chunks, make([]byte, 0, max(size, 1<<20)))
		n++
	}
	ch := r.chunks[n-1]
	r.ck[j] = int32(n - 1)
	r.off[j] = int32(len(ch))
	b := binary.AppendUvarint(ch, hdr)
	if wide {
		for _, x := range rs {
			b = binary.AppendUvarint(b, uint64(uint32(x.g)))
			b = binary.AppendUvarint(b, uint64(uint32(x.v)))
		}
	} else {
		at := len(b)
		b = b[:at+4*len(rs)]
		for q, x := range rs {
			binary.LittleEndian.PutUint16(b[at+4*q:], uint16(x.g))
			binary.LittleEndian.PutUint16(b[at+4*q+2:], uint16(x.v))
		}
	}
	r.chunks[n-1] = b
}

// uvarintLen returns the length of x's uvarint encoding: its bits,
// sevens rounded up, as (9*bits+64)/64, which equals it for 1 to 32 bits
// and costs a multiply-add and a shift where a division by 7 took a
// multiply by its inverse and more.
func uvarintLen(x uint32) int {
	return (9*bits.Len32(x|1) + 64) >> 6
}

// fromLog keeps the rises at goroutine g's release-acquire events from
// xs, all the rises of g's clock in order of position (riseRecorder's log):
// the rises at an event are those logged at its position.
func (r *eventRises) fromLog(c *ctp, g int32, xs []kpv) {
	var rs []centry
	for k := 0; k < len(xs); {
		p := xs[k].pos
		rs = rs[:0]
		for ; k < len(xs) && xs[k].pos == p; k++ {
			rs = append(rs, centry{xs[k].k, xs[k].v})
		}
		if p < 1 {
			continue // the go statement's, before the first event's own
		}
		if i := c.at(g, p); c.syncKind(int(i)) == trace.SyncReleaseAcquire {
			r.add(i, rs)
		}
	}
}

// risesFromLog returns the rises at c's release-acquire events of the
// pass whose history h is, as a pass with clockMode.acqRises keeps them
// (each event's in order of goroutine): for the cone, when it takes the
// must-happen-before pass's clocks (clocks.rfImplied), which kept none.
// A goroutine's rises are put back in order of position by a counting
// sort of its history (which is sorted by component), as its log had
// them.
func risesFromLog(c *ctp, h *riseLog) *eventRises {
	r := newEventRises(c)
	var cnt []int32
	var xs []kpv
	for g := range h.keys {
		g := int32(g)
		keys := h.keysOf(g)
		if keys.len() == 0 {
			continue
		}
		cnt = append(cnt[:0], make([]int32, len(c.byG[g])+2)...)
		for j := range keys.len() {
			rs := h.list(g, j)
			for q := range rs.len() {
				cnt[rs.at(q).pos+1]++
			}
		}
		for p := 1; p < len(cnt); p++ {
			cnt[p] += cnt[p-1]
		}
		_, hi := h.span(g, keys.len()-1)
		n := int(hi)
		xs = slices.Grow(xs[:0], n)[:n]
		for j := range keys.len() {
			k := keys.at(j)
			rs := h.list(g, j)
			for q := range rs.len() {
				x := rs.at(q)
				xs[cnt[x.pos]] = kpv{k, x.pos, x.v}
				cnt[x.pos]++
			}
		}
		r.fromLog(c, g, xs)
	}
	return r
}

// at returns the rises at event i, which must be one of ev, in dst's
// storage: readers on several goroutines each pass their own, as the
// kept rises are only read once the pass is over.
func (r *eventRises) at(dst []centry, i int32) []centry {
	j := r.ev.index(i)
	if j < 0 {
		panic("predict: no rises kept for the event")
	}
	if r.ck[j] < 0 {
		return dst[:0]
	}
	b, k := r.chunks[r.ck[j]], int(r.off[j])
	var hdr uint64
	var w int
	hdr, w = binary.Uvarint(b[k:])
	k += w
	n := int(hdr >> 1)
	out := slices.Grow(dst[:0], n)
	if hdr&1 == 0 {
		b = b[k : k+4*n]
		for q := 0; q+4 <= len(b); q += 4 {
			out = append(out, centry{int32(binary.LittleEndian.Uint16(b[q:])), int32(binary.LittleEndian.Uint16(b[q+2:]))})
		}
		return out
	}
	for ; n > 0; n-- {
		var g, v uint32
		g, k = uvAt(b, k)
		v, k = uvAt(b, k)
		out = append(out, centry{int32(g), int32(v)})
	}
	return out
}

// events returns the events whose rises are kept, in order.
func (r *eventRises) events() []int32 {
	var out []int32
	for i := int32(0); int(i) < 64*len(r.ev.bits) && len(out) < r.ev.n; i++ {
		if r.ev.index(i) >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// syncVar is the clock of a synchronisation address: clk joined with the
// epochs eps (the releasers' own components, not stored in their clocks)
// and with the pending merges. When exact, clk is the join of the
// releasers' clocks at those epochs, so a clock that knows every epoch
// already holds all of it: knowing an event means having joined a clock
// at least as large as its goroutine's then (the FastTrack observation,
// Flanagan and Freund, PLDI 2009). Release-merges are joined lazily, at
// the next acquire, keeping only each goroutine's latest (its clock only
// grows): a WaitGroup or a results channel that thousands of goroutines
// merge into and one goroutine waits on costs one join per goroutine.
type syncVar struct {
	clk    vclock
	eps    []centry // epochs not folded into clk yet
	exact  bool
	tag    jtag // clk as a prefix of a goroutine's log (clock_journal.go)
	pend   []pendingMerge
	pendAt map[int32]int // goroutine -> its entry in pend
	// at is where clk is while spilled (clock_spill.go); used, the last
	// event that used the address.
	at   spillRef
	used int32
}

type pendingMerge struct {
	clk vclock
	ep  centry
}

// merge records a release-merge by the goroutine of ep, whose clock is c.
func (s *syncVar) merge(c vclock, ep centry) {
	if s.pendAt == nil {
		s.pendAt = make(map[int32]int)
	}
	if k, ok := s.pendAt[ep.g]; ok {
		s.pend[k] = pendingMerge{c, ep}
		return
	}
	s.pendAt[ep.g] = len(s.pend)
	s.pend = append(s.pend, pendingMerge{c, ep})
}

// known reports whether clock c already holds all of s. d, if not nil,
// is c's dense mirror, read instead of c.
func (s *syncVar) known(c vclock, d []int32) bool {
	if !s.exact {
		return false
	}
	if d != nil {
		for _, e := range s.eps {
			if d[e.g] < e.v {
				return false
			}
		}
		for _, p := range s.pend {
			if d[p.ep.g] < p.ep.v {
				return false
			}
		}
		return true
	}
	if !knowsAll(c, s.eps) {
		return false
	}
	for _, p := range s.pend {
		if c.get(p.ep.g) < p.ep.v {
			return false
		}
	}
	return true
}

// fold joins the pending merges into clk.
func (s *syncVar) fold(sc *joinScratch) {
	if len(s.pend) == 0 {
		return
	}
	eps := s.eps[:len(s.eps):len(s.eps)]
	for _, p := range s.pend {
		s.clk, _, _ = joinOwn(sc, s.clk, false, p.clk)
		eps = append(eps, p.ep)
	}
	s.eps = eps
	s.pend = s.pend[:0]
	clear(s.pendAt)
	if len(s.eps) > 64 {
		s.clk, _, _ = joinOwn(sc, s.clk, false, vclock{}, s.eps...)
		s.eps, s.exact = nil, false
	}
}

// knowsAll reports whether c knows every epoch of eps.
func knowsAll(c vclock, eps []centry) bool {
	for _, e := range eps {
		if c.get(e.g) < e.v {
			return false
		}
	}
	return true
}

// newClocks runs one pass. It returns ctx's error if cancelled.
func newClocks(ctx context.Context, c *ctp, m *memory, mode clockMode) (*clocks, error) {
	ps := newPass(c, m, mode)
	ps.ctx = ctx
	defer ps.sf.close()
	for i := range c.ev {
		if i&stopEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if i&governEvery == 0 {
			if err := mode.govern.hold(); err != nil {
				return nil, err
			}
		}
		if i&(1<<22-1) == 0 && i > 0 {
			// The clocks a pass replaces (a goroutine's delta after a
			// join, a variable's after a release) are garbage at once;
			// on a long trace, collect them as the pass goes (see
			// collect in analyze.go).
			runtime.GC()
		}
		if err := ps.event(i); err != nil {
			if hb, ok := err.(*historyBudgetError); ok {
				rec, implied := ps.rec, ps.implied
				ps = nil // the pass's clocks: dead before the prefix's index is made
				if err := mode.govern.hold(); err != nil {
					return nil, err
				}
				return nil, hb.indexPrefix(ctx, c, rec, implied, mode.chains)
			}
			return nil, err
		}
	}
	rec, implied := ps.rec, ps.implied
	ps = nil // the pass's clocks: dead from here on
	var acq *eventRises
	if mode.acqRises && mode.want == nil {
		// The rises at release-acquire events are kept (clocks.acq):
		// they are taken from the history's log now that the pass is
		// over (riseRecorder.index), not copied as it goes, so that the
		// pass's own clocks are dead before they take memory. A
		// must-happen-before pass (rfCheck) does not keep them: only the
		// cone's closures read them, and most runs need no cone. When
		// its clocks turn out to be the cone's, the cone takes them from
		// the history (risesFromLog).
		acq = newEventRises(c)
	}
	if len(c.ev) >= 1<<18 {
		// The pass's clocks (bases, mirrors, variables) are dead: collected
		// now, their memory is what the index is made in, rather than
		// adding to it (see collect in analyze.go).
		runtime.GC()
	}
	if err := mode.govern.hold(); err != nil {
		return nil, err
	}
	h, err := rec.index(ctx, acq, c)
	if err != nil {
		return nil, err
	}
	h.ch = mode.chains
	return &clocks{c: c, h: h, acq: acq, rfImplied: implied}, nil
}

// pass is the state of one vector-clock pass (newClocks) while it replays
// the trace, event by event (event).
type pass struct {
	ctx  context.Context // for the index of a history cut by its budget
	c    *ctp
	m    *memory
	mode clockMode
	ng   int
	rec  *riseRecorder
	// ch is mode.chains; gpos, the position of the current event in its
	// goroutine (sc.pos is its component value).
	ch   *chainMap
	gpos int32
	cur  []vclock
	// own[g]: nobody else holds cur[g]'s delta, which joins may then
	// update in place (clock_vc.go's joinOwn). Storing the clock anywhere
	// (a go statement, a release, a snapshot for readers) clears it.
	own []bool
	// Bases come from one arena, swept between events (clock_arena.go).
	ar *baseArena
	// Joins into goroutines' clocks tag the bases they make (clock_vc.go's
	// knowsBase); a variable's are not a goroutine's: sc and fsc.
	sc, fsc *joinScratch
	// Joins report what rose (clock_vc.go); without want, that is what the
	// history logs: pend gathers an event's rises, one per component
	// (slot[k] is 1 + k's index in pend).
	pend []centry
	slot []int32
	// raised counts the joins of the current event that raised
	// something; from is the source of the last (clock_journal.go's jsrc).
	raised int
	from   jsrc
	// Joins of a clock of u stored when it was a prefix of u's log cost
	// what rose since the receiver last heard of u (clock_journal.go). A
	// pass that keeps a few states (want) has no log, and no journal.
	jr *journal
	// dn[g], once made, mirrors cur[g] as a dense array (clock_vc.go's
	// joinDense): made for a clock that holds a quarter of all goroutines,
	// while the pass's budget (dense) lasts.
	dn    [][]int32
	dense int
	// spare: cleared arrays of dropped mirrors (clock_mirror.go).
	spare [][]int32
	// lk[g]: layers g's clock has joined whole (clock_layer_known.go).
	lk []knownLayers
	// implied is clocks.rfImplied, while it holds (mode.rfCheck).
	implied bool
	// goClk[g] is the clock of g's go statement, until g starts.
	goClk []goSrc
	// vars[k]: the variable at address number k (clock_vars.go), nil
	// until used and once dropped.
	vars []*syncVar
	pv   passVars
	// What the pass drops after an event (clock_drop.go): an address's
	// clock, a goroutine's.
	deadVar, deadEnd bitset
	// idleMerge: the release-merges no acquire reads (clock_fold.go).
	idleMerge bitset
	// With read-from, a read joins its writer's clock after the write:
	// keep that clock from the write until its last such read.
	writes  rankSet // the writes, numbered
	readers []int32 // per write: reads left that join its clock
	snap    map[int32]vclock
	// sf holds the clocks spilled under mode.spill (clock_spill.go);
	// snapAt, the snapshots of snap spilled there (clock_spill_snap.go).
	sf     *spillFile
	snapAt map[int32]snapSpill
}

// goSrc is the clock of a go statement and its epoch.
type goSrc struct {
	clk vclock
	ep  centry
	tag jtag // clk as a prefix of the parent's log (clock_journal.go)
}

// newPass returns the state of a pass of mode, before the first event.
func newPass(c *ctp, m *memory, mode clockMode) *pass {
	ng := len(c.byG)
	ar := new(baseArena)
	ps := &pass{c: c, m: m, mode: mode, ng: ng, rec: newRiseRecorder(ng), cur: make([]vclock, ng), own: make([]bool, ng), ar: ar,
		sc:  &joinScratch{wantRises: mode.want == nil, arena: ar, tagged: tagBases},
		fsc: &joinScratch{arena: ar},
		dn:  make([][]int32, ng), dense: denseBudget, lk: make([]knownLayers, ng),
		implied: mode.rfCheck && !mode.rf,
		goClk:   make([]goSrc, ng),
		ch:      mode.chains,
	}
	ps.rec.useArena(mode.arena)
	if ps.sc.wantRises {
		ps.slot = make([]int32, ng)
		ps.jr = newJournal(ps.rec.log)
		ps.jr.ch = ps.ch
	}
	ps.pv = numberVars(c, &mode)
	ps.vars = make([]*syncVar, ps.pv.n)
	ps.deadVar, ps.deadEnd = deadAfter(c, &ps.pv)
	ps.idleMerge = idleMerges(c, mode, &ps.pv)
	if mode.spill > 0 && mode.want != nil {
		ps.sf = new(spillFile)
	}
	if mode.rf {
		ps.writes = newRankSet(len(c.ev), func(i int) bool { return isWrite(c.ev[i].Op) })
		ps.readers = make([]int32, ps.writes.n)
		ps.snap = make(map[int32]vclock)
		for i := range c.ev {
			if ps.kept(i) {
				for _, w := range m.writers(int32(i)) {
					if w >= 0 && c.ev[w].G != c.ev[i].G {
						ps.readers[ps.writes.index(w)]++
					}
				}
			}
		}
	}
	if ps.ch != nil {
		lp := make([]int32, ng)
		for i := range c.ev {
			if ps.publishes(i) {
				lp[c.ev[i].G] = c.pos[i]
			}
		}
		ps.ch.lastPub = lp
	}
	return ps
}

// publishes reports whether event i stores its goroutine's clock (or
// epoch) where another goroutine's clock may join it in this pass: a
// release of any kind, a go statement, a write whose clock a read joins
// (read-from). A join (OpJoin) joins the whole clock: chainMap.need
// counts on it apart.
func (ps *pass) publishes(i int) bool {
	c := ps.c
	switch c.passKind(i, &ps.mode) {
	case trace.SyncRelease, trace.SyncReleaseMerge, trace.SyncReleaseAcquire:
		return true
	}
	e := &c.ev[i]
	if e.Op == trace.OpGo {
		return true
	}
	return ps.readers != nil && !chainsSilentWrites && isWrite(e.Op) && ps.readers[ps.writes.index(int32(i))] > 0
}

// join joins src and extras into goroutine g's clock, through its dense
// mirror if it has or now gets one, and gathers the rises in pend.
func (ps *pass) join(g int32, src vclock, extras ...centry) {
	ps.joinFrom(g, jsrc{}, src, extras...)
}

// joinFrom is join for a source clock whose releaser is known (jsrc): the
// group of the event's rises keeps it when this join is the event's only
// one that raised anything (clock_journal.go).
func (ps *pass) joinFrom(g int32, from jsrc, src vclock, extras ...centry) {
	sc, ng := ps.sc, ps.ng
	sc.self, sc.selfBase = g, 0
	if ch := ps.ch; ch != nil {
		sc.self, sc.selfBase = ch.of[g], ch.base[g]
		if ps.gpos == ch.n[g] {
			// A base made at a goroutine's last event is not tagged:
			// knowing its successor's first event on the chain does
			// not mean holding what it acquired at its last.
			sc.self = -2
		}
	}
	if ps.dn[g] == nil && ps.dense >= ng {
		if n := ps.cur[g].size(); denseMin == 0 || n >= denseMin && 4*n >= ng {
			ps.dn[g] = ps.mirror(ps.cur[g]) // clock_mirror.go
			ps.dense -= ng
		}
	}
	sc.layers = &ps.lk[g]
	if ps.dn[g] != nil {
		ps.cur[g], _, ps.own[g] = joinDense(sc, ps.cur[g], ps.own[g], ps.dn[g], src, extras...)
	} else {
		ps.cur[g], _, ps.own[g] = joinOwn(sc, ps.cur[g], ps.own[g], src, extras...)
	}
	ps.lk[g].note(src.mid) // the clock holds all of src now
	if len(sc.rises) > 0 {
		ps.raised++
		ps.from = from
	}
	for _, r := range sc.rises {
		if s := ps.slot[r.g]; s > 0 {
			ps.pend[s-1].v = max(ps.pend[s-1].v, r.v)
			continue
		}
		ps.pend = append(ps.pend, r)
		ps.slot[r.g] = int32(len(ps.pend))
	}
}

// flush logs the rises gathered at position p of goroutine g.
func (ps *pass) flush(g, p int32) {
	from := ps.from
	if ps.raised != 1 {
		from = jsrc{}
	}
	ps.raised, ps.from = 0, jsrc{}
	ps.jr.logged(g, p, ps.rec.logRises(g, p, ps.pend), from)
	for _, r := range ps.pend {
		ps.slot[r.g] = 0
	}
	ps.pend = ps.pend[:0]
}

// v returns the synchronisation variable that event i uses (varOf).
func (ps *pass) v(i int) *syncVar {
	k := ps.pv.of(i)
	s := ps.vars[k]
	if s == nil {
		s = &syncVar{exact: true}
		ps.vars[k] = s
	}
	return s
}

// keptRead reports whether event i is a read whose writer a witness
// keeps; kept, whether this pass joins that writer's clock at it.
func (ps *pass) keptRead(i int) bool {
	e := &ps.c.ev[i]
	return isRead(e.Op) && ps.m.shared(int32(i)) && !(e.Op == trace.OpRead && ps.mode.relaxed.has(int32(i)))
}

func (ps *pass) kept(i int) bool { return ps.mode.rf && ps.keptRead(i) }

// get returns component k of goroutine g's clock, from its dense mirror
// if it has one (which joinDense keeps equal to it): one load instead of
// two binary searches.
func (ps *pass) get(g, k int32) int32 {
	if d := ps.dn[g]; d != nil {
		return d[k]
	}
	return ps.cur[g].get(k)
}

// knowsOf returns how many events of goroutine u goroutine g's clock
// knows, before g's current event: the one translation of a component
// of a pass with chains (clock_chain.go) while it runs.
func (ps *pass) knowsOf(g, u int32) int32 {
	return ps.ch.count(ps.ch.value(g, ps.gpos-1, u, ps.get(g, ps.ch.chainOf(u))), u)
}

// knownWriter reports whether goroutine g's clock, at read r, already
// knows r's writer w with all w's goroutine knew after it: a clock that
// knows an event has joined one that holds its goroutine's up to it; not
// so for w itself if w learnt something after publishing (a
// read-modify-write releases its clock from before its acquire).
func (ps *pass) knownWriter(g, w int32) bool {
	c := ps.c
	v := ps.knowsOf(g, int32(c.ev[w].G))
	return v > c.pos[w] || (v == c.pos[w] && !isRead(c.ev[w].Op) && !c.syncKind(int(w)).Acquires())
}

// sweep gives the arena every base the pass still holds.
func (ps *pass) sweep() {
	ps.ar.sweep(func(hold func(*frozen)) {
		for g := range ps.cur {
			hold(ps.cur[g].base)
			hold(ps.goClk[g].clk.base)
		}
		for _, s := range ps.vars {
			if s == nil {
				continue
			}
			hold(s.clk.base)
			for _, p := range s.pend {
				hold(p.clk.base)
			}
		}
		for _, w := range ps.snap {
			hold(w.base)
		}
		for _, w := range ps.snapAt {
			hold(w.base)
		}
		for _, l := range ps.rec.last {
			hold(l.base)
		}
	})
}

// event replays event i: the go statement's clock at a goroutine's
// start, go and join, synchronisation (sync), read-from (readFrom), and
// what the history keeps of it. It returns a *historyBudgetError when the
// history outgrows mode.budget.
func (ps *pass) event(i int) error {
	c, mode := ps.c, &ps.mode
	if ps.ar.due() || ps.sf != nil && i%spillEvery == 0 {
		ps.sweep()
		if err := ps.spillIdle(); err != nil {
			return err
		}
	}
	e := &c.ev[i]
	g := int32(e.G)
	p := c.pos[i]
	if p == 1 && c.goEv[g] >= 0 && c.goEv[g] < int32(i) {
		// The go statement happens before the whole goroutine, which
		// may continue the chain of one that has ended before it.
		gs := &ps.goClk[g]
		ps.ch.start(g, int32(c.ev[c.goEv[g]].G), gs.clk, int32(i))
	}
	ps.gpos, ps.sc.pos = p, ps.ch.ep(g, p).v
	if p == 1 && c.goEv[g] >= 0 && c.goEv[g] < int32(i) {
		gs := &ps.goClk[g]
		ps.joinFrom(g, ps.jr.source(gs.tag, []centry{gs.ep}), gs.clk, gs.ep)
		// Read once: its base is free for the arena's next sweep.
		ps.goClk[g] = goSrc{}
	}
	if p == 1 && mode.want == nil {
		ps.flush(g, 0)
	} else if p == 1 && wanted(mode.want[g], 0) {
		ps.rec.record(g, 0, ps.cur[g])
	}
	if mode.visit != nil {
		mode.visit(int32(i), ps.cur[g], ps.dn[g])
	}
	switch e.Op {
	case trace.OpGo:
		if k := e.Peer; k > 0 && int(k) < ps.ng {
			ps.goClk[k] = goSrc{ps.cur[g], ps.ch.ep(g, p), ps.jr.tag(g, len(ps.pend))}
			ps.own[g] = false
		}
	case trace.OpJoin:
		if j := c.joinSrc(int32(i)); j >= 0 {
			k := int32(c.ev[j].G)
			ps.own[k] = false // the result may share cur[k]'s delta
			ep := ps.ch.ep(k, c.pos[j])
			ps.ch.noteAcquired(g, []centry{ep})
			ps.join(g, ps.cur[k], ep)
		}
	}
	if c.overAtomic.has(int32(i)) {
		// A plain write over an atomic variable (see buildSync in
		// ctp.go): the next atomic load reads it, and acquires no
		// release.
		*ps.v(i) = syncVar{exact: true}
	}
	if ps.sf != nil && c.passKind(i, mode) != trace.SyncNone {
		if err := ps.unspill(ps.v(i), i); err != nil {
			return err
		}
	}
	serialRel := ps.sync(i, g, p)
	if ps.kept(i) {
		if err := ps.readFrom(i, g); err != nil {
			return err
		}
	}
	if ps.implied && ps.keptRead(i) {
		for _, w := range ps.m.writers(int32(i)) {
			if w >= 0 && c.ev[w].G != e.G && !ps.knownWriter(g, w) {
				ps.implied = false // the cone's pass would join w
				break
			}
		}
	}
	if serialRel != nil {
		// No join follows: the clock is the log's after this event.
		*serialRel = syncVar{clk: ps.cur[g], eps: append(serialRel.eps[:0], ps.ch.ep(g, p)), exact: true, tag: ps.jr.tagAfter(g, len(ps.pend))}
		ps.own[g] = false
	}
	if ps.readers != nil && isWrite(e.Op) && ps.readers[ps.writes.index(int32(i))] > 0 {
		ps.snap[int32(i)] = ps.cur[g]
		ps.own[g] = false
	}
	if mode.want == nil {
		ps.flush(g, p)
		if mode.budget > 0 && ps.rec.size > mode.budget {
			return &historyBudgetError{At: i + 1, Budget: mode.budget} // newClocks indexes the prefix (history_cut.go)
		}
	} else if wanted(mode.want[g], p) {
		ps.rec.record(g, p, ps.cur[g])
	}
	if ps.ch != nil && ps.ch.last[g] == int32(i) {
		ps.ch.ended(g)
	}
	// What is never read again goes (clock_drop.go).
	if ps.deadVar.has(int32(i)) {
		ps.vars[ps.pv.of(i)] = nil
	}
	if ps.deadEnd.has(int32(i)) {
		ps.cur[g], ps.rec.last[g], ps.lk[g] = vclock{}, vclock{}, knownLayers{}
		ps.dropMirror(g)
	}
	return nil
}

// sync replays the synchronisation of event i, at position p of
// goroutine g. With mode.serial, a release-acquire event acquires here
// and returns the variable whose release event makes after read-from.
func (ps *pass) sync(i int, g, p int32) (serialRel *syncVar) {
	c, mode := ps.c, &ps.mode
	k := c.passKind(i, mode)
	if k == trace.SyncNone {
		return nil
	}
	s := ps.v(i)
	switch k {
	case trace.SyncAcquire:
		if !s.known(ps.cur[g], ps.dn[g]) {
			ps.acquire(g, s)
		}
	case trace.SyncRelease:
		// s's epochs are its own (fold and joins copy them): their
		// storage is reused.
		*s = syncVar{clk: ps.cur[g], eps: append(s.eps[:0], ps.ch.ep(g, p)), exact: true, tag: ps.jr.tag(g, len(ps.pend))}
		ps.own[g] = false
	case trace.SyncReleaseMerge:
		ps.mergeFold(i, s, ps.cur[g], ps.ch.ep(g, p)) // clock_fold.go
		ps.own[g] = false
	case trace.SyncReleaseAcquire:
		if mode.serial {
			// Acquire now; release in event, after read-from.
			if !s.known(ps.cur[g], ps.dn[g]) {
				ps.acquire(g, s)
			}
			return s
		}
		old := *s
		*s = syncVar{clk: ps.cur[g], eps: []centry{ps.ch.ep(g, p)}, exact: true, tag: ps.jr.tag(g, len(ps.pend))}
		ps.own[g] = false
		if !old.known(ps.cur[g], ps.dn[g]) {
			ps.acquire(g, &old)
		}
	}
	return nil
}

// readFrom joins into goroutine g's clock, at read i, the clock of each
// writer of another goroutine that it does not know yet, and drops a
// writer's kept clock at its last such read. It fails only if a spilled
// clock cannot be read back (clock_spill_snap.go).
func (ps *pass) readFrom(i int, g int32) error {
	c := ps.c
	e := &c.ev[i]
	for _, w := range ps.m.writers(int32(i)) {
		if w < 0 || c.ev[w].G == e.G {
			continue
		}
		wclk, err := ps.snapClock(w)
		if err != nil {
			return err
		}
		k := ps.writes.index(w)
		if ps.readers[k]--; ps.readers[k] == 0 {
			delete(ps.snap, w)
		}
		wg := int32(c.ev[w].G)
		if ps.knownWriter(g, w) {
			continue
		}
		ep := ps.ch.ep(wg, c.pos[w])
		ps.ch.noteAcquired(g, []centry{ep})
		ps.join(g, wclk, ep)
	}
	return nil
}

// wanted reports whether sorted ps holds p.
func wanted(ps []int32, p int32) bool {
	_, ok := slices.BinarySearch(ps, p)
	return ok
}

// knows returns how many events of goroutine k goroutine g knows of after
// its first p events: every event of k up to that position happens before
// g's position p+1.
func (h *clocks) knows(g, p, k int32) int32 {
	if g == k {
		return p
	}
	return h.h.get(g, p, k) // translated from chains there
}

// before reports whether event a happens before event b (a ≠ b).
func (h *clocks) before(a, b int32) bool {
	c := h.c
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	if ga == gb {
		return c.pos[a] < c.pos[b]
	}
	return h.knows(gb, c.pos[b], ga) >= c.pos[a]
}

// concurrent reports whether neither of a, b happens before the other,
// judged from the states just before each (so that b's own read-from, in
// the shb relation, does not order a before b: Mathur et al.'s rule).
func (h *clocks) concurrent(a, b int32) bool {
	c := h.c
	ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
	if ga == gb {
		return false
	}
	return h.knows(gb, c.pos[b]-1, ga) < c.pos[a] && h.knows(ga, c.pos[a]-1, gb) < c.pos[b]
}
