// This file implements the concurrent trace program (CTP) of an observed
// trace (Kahlon and Wang, "Universal Causality Graphs", §2, Definition 1):
// each goroutine's events as a straight-line program, the fixed
// synchronisation that every reordering must keep (go → start, join, and
// every non-lock synchronisation as ThreadSanitizer defines it), and locks
// kept as locks: the critical sections of each goroutine, which may be
// reordered against each other.

package predict

import (
	"math/bits"

	"github.com/seer-tools/seer/trace"
)

// ctp is the straight-line view of a trace shared by every stage.
type ctp struct {
	t   *trace.Trace
	ev  []trace.Event
	pos []int32   // 1-based position of each event in its goroutine
	byG [][]int32 // per goroutine: its events, in program order

	goEv []int32 // per goroutine: index of the OpGo that created it, or -1

	// Locks. lockMode[i] is 'w' for an exclusive acquire, 'r' for a shared
	// one, 'W'/'R' for the matching releases, 0 otherwise; locks that are
	// not used as locks (released by another goroutine, released while
	// free) are "observed locks": their events are kept in observed order
	// as fixed synchronisation instead (sound, and they are rare).
	lockMode []byte
	observed map[trace.ObjID]bool
	// nestedRead marks the locks some goroutine read-locks recursively:
	// the outer read section spans the inner ones (ctp_sections.go), and
	// such sections are no transactions (candidates.go), as when these
	// locks were kept in observed order.
	nestedRead map[trace.ObjID]bool
	cs         map[gl][]csect // per (goroutine, lock): critical sections in order
	lockG      []int32        // the goroutines with critical sections, in order
	locked     bitset         // events after which their goroutine holds a lock
	pinned     bitset         // the same, not counting terminal sections (solve_terminal.go)
	terminal   []termSect     // terminal sections, by goroutine

	// Locksets: lsOf(i) indexes locksets, the locks held at event i (an
	// acquire and a release are inside their critical section). Kept for
	// the events that hold a lock: most events of most runs hold none,
	// and an array over all of them costs an entry per event of a trace
	// that takes no lock.
	ls       sparseVals
	locksets [][]heldLock

	// Fixed synchronisation: for each acquiring event i, acqs[acqIdx(i)]
	// lists the releases it is ordered after (see sources).
	acqBit  bitset  // the acquiring events
	acqRank []int32 // per word of acqBit: acquiring events before it
	acqs    []acqSrc
	mviews  [][]int32        // views of merge logs, see acqSrc
	sk      []trace.SyncKind // per event: see syncKind
	lastEv  []int32          // per goroutine: its last event

	tx []txn // transactions (OpTxBegin..OpTxEnd), per goroutine in order

	// overAtomic holds the plain writes over an atomic variable (its
	// latest release an atomic operation), which end its release chain:
	// see buildSync. Nil if there are none.
	overAtomic bitset

	// vars numbers the addresses whose clocks a clock pass keeps, in the
	// order of their first use: for every event that uses one in a pass
	// of some mode (ctp.varOf with or without locks), 1 + its address's
	// number (clock_vars.go); nVars, the addresses. buildSync keys the
	// same addresses, so it numbers them as it goes.
	vars  sparseVals
	nVars int

	sites  []int32 // per StackID: interned site id, -1 until computed
	siteID map[trace.Frame]int32
	frames []trace.Frame
}

// gl keys per-goroutine, per-lock tables.
type gl struct {
	g int32
	l trace.ObjID
}

// csect is one critical section: the positions (in its goroutine) of the
// acquire and of the matching release (0 if it is never released).
type csect struct {
	acq, rel int32
	shared   bool
}

// acqSrc says which releases an acquiring event is ordered after: rel (the
// latest Release or ReleaseAcquire on its address, or -1) and the
// release-merges since then: mviews[mv], a view of the address's merge
// log shared between acquires, or none if mv < 0. Most acquires follow no
// merge, so the view is kept apart: 8 bytes an acquire.
type acqSrc struct {
	rel, mv int32
}

// acqIdx returns the number of acquiring event i among the acquiring
// events (its entry in acqs), or -1 if i does not acquire: a rank in
// acqBit, which costs a bit an event rather than an int32.
func (c *ctp) acqIdx(i int32) int32 {
	w := c.acqBit[i>>6]
	b := uint64(1) << (uint(i) & 63)
	if w&b == 0 {
		return -1
	}
	return c.acqRank[i>>6] + int32(bits.OnesCount64(w&(b-1)))
}

// acq returns the sources of acquire number k (acqIdx): the release and
// the release-merges since.
func (c *ctp) acq(k int32) (rel int32, merges []int32) {
	s := c.acqs[k]
	if s.mv >= 0 {
		merges = c.mviews[s.mv]
	}
	return s.rel, merges
}

// heldLock is one lock of a lockset.
type heldLock struct {
	l      trace.ObjID
	shared bool
}

// txn is a transaction of goroutine g: positions begin..end (end is the
// goroutine's last position if it never ends).
type txn struct {
	g          int32
	begin, end int32
	lock       trace.ObjID // the critical section's lock, for sections taken as transactions; 0 otherwise
}

// lsOf returns the index in locksets of the locks held at event i.
func (c *ctp) lsOf(i int32) int32 { return c.ls.at(i) }

// syncKind returns the fixed-synchronisation meaning of event i in the CTP:
// SyncNone for locks (which stay locks), accesses and life-cycle events.
func (c *ctp) syncKind(i int) trace.SyncKind { return c.sk[i] }

func (c *ctp) computeSyncKind(i int) trace.SyncKind {
	e := &c.ev[i]
	switch {
	case e.Op.IsLock():
		if c.observed[e.Obj] {
			// Every operation both acquires and releases: the lock's
			// operations keep their observed total order.
			return trace.SyncReleaseAcquire
		}
		return trace.SyncNone
	case e.Op.IsAtomic():
		switch e.Op {
		case trace.OpAtomicLoad, trace.OpOnceCheck:
			return trace.SyncAcquire
		case trace.OpAtomicRMW:
			return trace.SyncReleaseAcquire
		default:
			return trace.SyncRelease
		}
	case e.Op.IsAccess(), e.Op == trace.OpGo, e.Op == trace.OpStart, e.Op == trace.OpEnd,
		e.Op == trace.OpJoin, e.Op == trace.OpTxBegin, e.Op == trace.OpTxEnd:
		return trace.SyncNone
	}
	return e.Sync
}

// lockSync is the tsan meaning of a lock operation on a plain mutex.
func lockSync(op trace.Op) trace.SyncKind {
	switch op {
	case trace.OpLock, trace.OpRLock:
		return trace.SyncAcquire
	case trace.OpUnlock:
		return trace.SyncRelease
	default:
		return trace.SyncReleaseMerge
	}
}

// syncAddr is the address that event i synchronises on. Observed locks
// synchronise on their object, atomics on atomicVar of their address.
func (c *ctp) syncAddr(i int) uint64 {
	e := &c.ev[i]
	if e.Op.IsLock() {
		return uint64(e.Obj) | 1<<63
	}
	if e.Op.IsAtomic() {
		return atomicVar(e.Addr)
	}
	return e.Addr
}

// atomicVar is the key of the synchronisation of the atomic variable at
// addr, kept apart from the runtime's generic releases and acquires on
// the same address, as the specification (package witness) keeps them:
// an atomic store does not end a chain of annotations there, and an
// atomic load acquires only atomics. Sharing one chain, as
// ThreadSanitizer does, ordered a load after an annotation the spec does
// not (a race missed), and let an atomic store hide a release an acquire
// must come after (a witness the checker rejected, failing the analysis):
// predict's TestNaiveOracleMixedAddress.
func atomicVar(addr uint64) uint64 { return addr | 1<<62 }

// newCTP builds the CTP of t.
func newCTP(t *trace.Trace) *ctp { return newCTPObserved(t, nil) }

// newCTPObserved is newCTP with the locks of observed kept in observed
// order too, used as locks or not: for a prefix of a trace in which they
// are not (analyzePrefix), whose clocks must be the whole trace's. Keeping
// a lock in observed order is sound for any trace.
func newCTPObserved(t *trace.Trace, observed map[trace.ObjID]bool) *ctp {
	n := len(t.Events)
	ng := len(t.Goroutines)
	c := &ctp{
		t:          t,
		ev:         t.Events,
		pos:        make([]int32, n),
		byG:        make([][]int32, ng),
		goEv:       make([]int32, ng),
		lockMode:   make([]byte, n),
		observed:   make(map[trace.ObjID]bool),
		nestedRead: make(map[trace.ObjID]bool),
		cs:         make(map[gl][]csect),
		locked:     newBitset(n),
		ls:         newSparseVals(n),
		acqBit:     newBitset(n),
		sk:         make([]trace.SyncKind, n),
		lastEv:     make([]int32, ng),
		siteID:     make(map[trace.Frame]int32),
	}
	counts := make([]int32, ng)
	for i := range c.ev {
		counts[c.ev[i].G]++
	}
	for g := range c.byG {
		c.byG[g] = make([]int32, 0, counts[g])
		c.goEv[g] = -1
		c.lastEv[g] = -1
	}
	for i := range c.ev {
		e := &c.ev[i]
		g := e.G
		c.byG[g] = append(c.byG[g], int32(i))
		c.pos[i] = int32(len(c.byG[g]))
		c.lastEv[g] = int32(i)
		if e.Op == trace.OpGo && int(e.Peer) > 0 && int(e.Peer) < ng && c.goEv[e.Peer] < 0 {
			c.goEv[e.Peer] = int32(i)
		}
	}
	for l := range observed {
		c.observed[l] = true
	}
	c.buildLocks()
	c.buildSync()
	c.buildTx()
	c.sites = make([]int32, t.Stacks.Len())
	for i := range c.sites {
		c.sites[i] = -1
	}
	// Every event's site is interned now, in trace order, so that site
	// only reads afterwards: Analyze's layers call it from two
	// goroutines.
	for i := range c.ev {
		c.site(int32(i))
	}
	return c
}

// buildSync records, for each acquiring event, the releases it is ordered
// after, following tsan's rules (see trace.SyncKind).
func (c *ctp) buildSync() {
	type state struct {
		rel    int32
		merges []int32
		view   int32 // index in mviews of s.merges as it is, or -1
		num    int32 // the address's number (ctp.vars)
	}
	st := make(map[uint64]*state)
	// of returns address a's state, numbering a at its first use.
	of := func(a uint64) *state {
		s := st[a]
		if s == nil {
			s = &state{rel: -1, view: -1, num: int32(len(st))}
			st[a] = s
		}
		return s
	}
	nacq, nvar := 0, 0
	for i := range c.ev {
		k := c.computeSyncKind(i)
		c.sk[i] = k
		if k.Acquires() {
			nacq++
		}
		if k != trace.SyncNone || c.ev[i].Op.IsLock() {
			nvar++
		}
	}
	c.acqs = make([]acqSrc, 0, nacq)
	c.vars = newSparseVals(len(c.ev))
	c.vars.vals = make([]int32, 0, nvar)
	for i := range c.ev {
		k := c.sk[i]
		if k == trace.SyncNone {
			if e := &c.ev[i]; e.Op.IsLock() {
				// A lock kept as a lock: a pass with locks keeps
				// its clock (ctp.varOf), at the address an
				// observed lock's would have (syncAddr).
				c.vars.add(int32(i), of(c.syncAddr(i)).num+1)
			} else if e.Op == trace.OpWrite {
				// A plain write over an atomic variable: an atomic load
				// after it reads its value, not a release's, and is
				// ordered after none (the read-from of the cone orders
				// it after the write where the value matters). The
				// passes that keep their own synchronisation state
				// (clock_pass.go, race_observed.go) read the same from overAtomic.
				if s := st[atomicVar(e.Addr)]; s != nil && s.rel >= 0 {
					s.rel, s.merges, s.view = -1, nil, -1
					if c.overAtomic == nil {
						c.overAtomic = newBitset(len(c.ev))
					}
					c.overAtomic.set(int32(i))
					c.vars.add(int32(i), s.num+1)
				}
			}
			continue
		}
		s := of(c.syncAddr(i))
		c.vars.add(int32(i), s.num+1)
		if k.Acquires() {
			c.acqBit.set(int32(i))
			mv := int32(-1)
			if len(s.merges) > 0 {
				if s.view < 0 {
					s.view = int32(len(c.mviews))
					c.mviews = append(c.mviews, s.merges[:len(s.merges):len(s.merges)])
				}
				mv = s.view
			}
			c.acqs = append(c.acqs, acqSrc{rel: s.rel, mv: mv})
		}
		switch k {
		case trace.SyncRelease, trace.SyncReleaseAcquire:
			s.rel = int32(i)
			s.merges, s.view = nil, -1 // a new log: older merges are overwritten
		case trace.SyncReleaseMerge:
			s.merges, s.view = append(s.merges, int32(i)), -1
		}
	}
	c.vars.done()
	c.nVars = len(st)
	c.acqRank = make([]int32, len(c.acqBit))
	r := int32(0)
	for w, x := range c.acqBit {
		c.acqRank[w] = r
		r += int32(bits.OnesCount64(x))
	}
}

// sources calls f for every event that event i is ordered after by fixed
// synchronisation: the releases it acquires, the go statement that
// created its goroutine (for the goroutine's first event), and the last
// event of a joined goroutine.
func (c *ctp) sources(i int32, f func(j int32)) {
	if k := c.acqIdx(i); k >= 0 {
		rel, merges := c.acq(k)
		if rel >= 0 {
			f(rel)
		}
		for _, m := range merges {
			f(m)
		}
	}
	e := &c.ev[i]
	if c.pos[i] == 1 {
		if gi := c.goEv[e.G]; gi >= 0 && gi < i {
			f(gi)
		}
	}
	if e.Op == trace.OpJoin {
		if j := c.joinSrc(i); j >= 0 {
			f(j)
		}
	}
}

// joinSrc returns the last event of the goroutine that join event i waits
// for, among the events before i, or -1.
func (c *ctp) joinSrc(i int32) int32 {
	p := c.ev[i].Peer
	if p <= 0 || int(p) >= len(c.byG) {
		return -1
	}
	evs := c.byG[p]
	lo, hi := 0, len(evs)
	for lo < hi {
		m := (lo + hi) / 2
		if evs[m] < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return -1
	}
	return evs[lo-1]
}

// buildTx finds the transactions (outermost OpTxBegin..OpTxEnd).
func (c *ctp) buildTx() {
	for g, evs := range c.byG {
		depth := 0
		var cur txn
		for _, i := range evs {
			switch c.ev[i].Op {
			case trace.OpTxBegin:
				if depth == 0 {
					cur = txn{g: int32(g), begin: c.pos[i]}
				}
				depth++
			case trace.OpTxEnd:
				if depth > 0 {
					depth--
					if depth == 0 {
						cur.end = c.pos[i]
						c.tx = append(c.tx, cur)
					}
				}
			}
		}
		if depth > 0 {
			cur.end = int32(len(evs))
			c.tx = append(c.tx, cur)
		}
	}
}

// at returns the event index at position p (1-based) of goroutine g.
func (c *ctp) at(g, p int32) int32 { return c.byG[g][p-1] }

// site returns the interned site id of event i (see trace.Trace.Site).
func (c *ctp) site(i int32) int32 {
	st := c.ev[i].Stack
	if int(st) < len(c.sites) && c.sites[st] >= 0 {
		return c.sites[st]
	}
	id := c.siteOf(c.t.Site(&c.ev[i]))
	if int(st) < len(c.sites) {
		c.sites[st] = id
	}
	return id
}

// siteOf returns the interned site id of source site f.
func (c *ctp) siteOf(f trace.Frame) int32 {
	id, ok := c.siteID[f]
	if !ok {
		id = int32(len(c.frames))
		c.frames = append(c.frames, f)
		c.siteID[f] = id
	}
	return id
}
