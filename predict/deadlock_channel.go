// This file implements the channel-deadlock layer: schedules of the run
// at whose end every goroutine of the test that can still act waits for
// ever, on a channel or a lock, so that the test never returns.
//
// The shape it looks for is a lock held across a channel operation
// whose partner takes the same lock first: goroutine S holds lock m
// (acquired at h) when it begins an operation o on an unbuffered channel
// c, and the goroutine R that completed o's rendezvous in the run
// acquired m (at a) before its own operation on c — the run took R's
// critical section first, so nothing hung. In a schedule that runs S up
// to o and R up to a, R waits for m, which S holds, and S waits for a
// partner on c, which only R was. The pattern is the lock-order
// deadlock's (deadlock_lockorder.go) with one of the two acquires replaced by the
// channel operation; its candidates are filtered and cut the same way:
// the sync-preserving closure of the events before o and before a
// (Tunç et al., PLDI 2023, Theorem 2) must hold neither.
//
// The cycle may pass through a third goroutine (threeCycles): R takes
// another lock m2 (at a) before its operation, and a goroutine T takes m
// (at b) while it holds m2. Then S waits for R on c, R for m2 (T holds
// it), T for m (S holds it); the closure must hold none of o, a, b.
//
// A cut where S and R are stuck does not yet show a hang: another
// goroutine might receive on c, or unlock m. So the cut is extended: each
// other goroutine runs as far as the closure allows without running S's
// o or R's a (binary search on its position; the closure is monotone),
// to a fixpoint. At the end every goroutine must have ended, or not
// exist (its go statement not run) or belong to the harness or the
// runtime and never touch the objects waited on, or wait at its next
// event: an acquire of a lock held in a conflicting mode; the first
// event of a send or receive on an unbuffered channel that the cut has
// not closed and whose partner operation is not some goroutine's next
// event; a send on a full buffer, a receive on an empty one; a WaitGroup.Wait whose counter is above zero. This
// is the maximal causal model's claim (Şerbănuţă, Chen and Roşu, RV
// 2012): the cut in observed order is a feasible schedule, every read in
// it sees its observed writer (so each goroutine's next event is the
// observed one), and under the primitives' serial specifications none of
// the waiting events can ever be enabled, since every goroutine that
// could enable one is itself waiting, gone, or never touches it.
//
// The finding (Kind deadlock, Predicted) lists in Events the waiting
// events, S's and R's first; the schedule is the cut in observed order,
// as for lock-order deadlocks. The checker (package witness, blocking.go)
// re-checks all of it against the serial specifications.
//
// A Cond.Wait is the other shape (condWaits, below): the Signal that
// woke it runs before the critical section in which Wait was called.
//
// The channel may be buffered when o is a receive: its partner is then
// the send whose value it took (the event's Peer), and the receive waits
// when the buffer is empty at the end of the cut. A buffered channel is
// judged by the checker's model (witness.BufChans, bufchan.go): its
// slots' objects grouped by allocation, its capacity the period of its
// sends' slots, the cut's sends and receives the run's first ones, so
// that the buffer holds the cut's sends less its receives; a send waits
// on a full buffer (deadlock_cycles.go finds those cycles), a receive on
// an empty one. Channels the model does not judge (zero-sized elements,
// slots outside a heap allocation the recording found) are not claimed.
//
// Not covered (the claim would not be sound, or the checker cannot yet
// check it): sends on buffered channels whose run does not show the
// capacity (its sends never wrap round the buffer), selects; leaks (a
// goroutine blocked for ever while the test returns: leak_select.go
// predicts one shape).
//
// Contract: it reports only cuts, closed under the lock rule (cut.go) and
// extended to a fixpoint, at whose end every goroutine that can still act
// waits for ever; it builds the witness from that cut in observed order
// (deadlockWitness), with no search.

package predict

import (
	"slices"
	"strings"
	"time"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// maxBlockingTries bounds the candidates the layer computes closures
// for; maxExtendSteps, the closures one candidate's extension computes
// (each costs up to a pass over the cut's clocks, which grow with the
// goroutines: in a run of thousands of goroutines the budget shrinks to
// extendWork/goroutines, at least minExtendSteps): past it the candidate
// is given up.
const (
	maxBlockingTries = 200
	maxExtendSteps   = 1000
	minExtendSteps   = 150
	extendWork       = 1000000
)

// chanOps describes the channels of a trace.
type chanOps struct {
	evs        map[trace.ObjID][]int32 // per channel: its synchronisation events, in order
	unbuffered map[trace.ObjID]bool
	// buffered: channels whose every send and receive is one
	// release-acquire of a buffer slot (witness.OneEventOps): a buffered
	// channel of non-empty elements, whose buffer holds the sends less
	// the receives.
	buffered map[trace.ObjID]bool
	// bufs: per slot object, the buffered channel the model judges
	// (witness.BufChans: the serial specification the checker holds
	// claims to), and orphans the closes of channels it cannot name.
	bufs    map[trace.ObjID]*witness.BufChan
	orphans []int32
	conds   map[trace.ObjID][]int32 // per sync.Cond: its events, in order
	ev      []trace.Event           // the CTP's events, whose ops op reads
}

// op returns the op of channel event x.
func (co *chanOps) op(x int32) trace.Op { return co.ev[x].Op }

func newChanOps(c *ctp) *chanOps {
	co := &chanOps{evs: make(map[trace.ObjID][]int32), unbuffered: make(map[trace.ObjID]bool), buffered: make(map[trace.ObjID]bool),
		conds: make(map[trace.ObjID][]int32), ev: c.ev}
	for i := range c.ev {
		e := &c.ev[i]
		switch e.Op {
		case trace.OpCondWait, trace.OpCondSignal, trace.OpCondBroadcast:
			co.conds[e.Obj] = append(co.conds[e.Obj], int32(i))
		}
		if e.Obj != 0 && (e.Op == trace.OpSend || e.Op == trace.OpRecv || e.Op == trace.OpClose) && e.Sync != trace.SyncNone {
			co.evs[e.Obj] = append(co.evs[e.Obj], int32(i))
		}
	}
	for ch, evs := range co.evs {
		// The rendezvous annotation of runtime.racesync: a release by
		// one goroutine, then an acquire by its partner. A buffered
		// channel's operations begin with an acquire or are single
		// release-acquires.
		if len(evs) >= 2 {
			a, b := &c.ev[evs[0]], &c.ev[evs[1]]
			co.unbuffered[ch] = a.Sync == trace.SyncRelease && b.Sync == trace.SyncAcquire && a.G != b.G &&
				a.Op != trace.OpClose && b.Op != trace.OpClose
		}
		co.buffered[ch] = !co.unbuffered[ch] && witness.OneEventOps(c.t, evs)
	}
	co.bufs, co.orphans = witness.BufChans(c.t, co.evs)
	return co
}

// neverSent reports whether no goroutine of the run sends on channel ch.
func (co *chanOps) neverSent(ch trace.ObjID) bool {
	return !slices.ContainsFunc(co.evs[ch], func(x int32) bool { return co.op(x) == trace.OpSend })
}

// opStart reports whether channel event i begins its operation: an even
// number of its goroutine's events on the channel come right before it
// (each operation on an unbuffered channel is two events in a row).
func (c *ctp) opStart(i int32) bool {
	e := &c.ev[i]
	g := int32(e.G)
	run := 0
	for p := c.pos[i] - 1; p >= 1; p-- {
		o := &c.ev[c.at(g, p)]
		if o.Obj != e.Obj || (o.Op != trace.OpSend && o.Op != trace.OpRecv) {
			break
		}
		run++
	}
	return run%2 == 0
}

// inSelect reports whether event i was made inside a select statement.
func inSelect(t *trace.Trace, i int32) bool {
	for f := range t.Stacks.All(t.Events[i].Stack) {
		switch f.Func {
		case "runtime.selectgo", "runtime.selectnbsend", "runtime.selectnbrecv":
			return true
		}
	}
	return false
}

// blockingLayer finds and proves channel and Cond deadlocks. Its funnel
// row (Stage "blocking"): Cycles counts the candidate patterns (a lock
// held across a channel operation whose partner took the lock first; a
// Cond.Wait and the signal that woke it; a WaitGroup.Wait under a lock
// and a Done's goroutine's acquire of it, deadlock_waitgroup.go; a
// recursive RLock and another goroutine's Lock, deadlock_rwmutex.go),
// Deadlocks the closures
// computed, DeadlockSites the deadlocks proved.
func (e *engine) blockingLayer() ([]Finding, Stage, error) {
	t0 := time.Now()
	c := e.c
	co := newChanOps(c)
	l := &chanLayer{e: e, co: co, proved: make(map[patternKey]bool), proved3: make(map[patternKey]bool)}
	n := &l.n
	var coneErr error
	chans := make([]trace.ObjID, 0, len(co.evs))
	for ch := range co.evs {
		if co.unbuffered[ch] || co.buffered[ch] {
			chans = append(chans, ch)
		}
	}
	slices.Sort(chans)
	for _, ch := range chans {
		evs := co.evs[ch]
		for k, o := range evs {
			if err := e.ctx.Err(); err != nil {
				return nil, l.stage(t0), err
			}
			// Without a lock held there is no pattern: asked first, as
			// it reads no event and most channel operations hold none.
			if c.lsOf(o) == 0 {
				continue
			}
			ev := &c.ev[o]
			if ev.Op == trace.OpClose || inSelect(e.t, o) {
				continue
			}
			var r, rOp int32
			if co.buffered[ch] {
				// A receive that took a value from the buffer, whose
				// send (its partner) may come after it in another
				// schedule: the receive then waits on the empty buffer.
				r, rOp = bufferedPartner(c, o)
			} else if c.opStart(o) {
				r, rOp = partner(c, evs, k)
			} else {
				continue
			}
			if r < 0 {
				continue
			}
			g := int32(ev.G)
			// The locks g holds at o (o is no acquire: its lockset is
			// what g holds), and R's latest acquire of each before its
			// own operation.
			c.heldAt(g, c.pos[o], func(m trace.ObjID, s csect) {
				if n.closures >= maxBlockingTries || c.observed[m] {
					return
				}
				a := c.lastAcquireBefore(r, m, c.pos[rOp])
				if a < 0 || tryLock(e.t, a) {
					return
				}
				key := newPatternKey(KindDeadlock, c.site(o), c.site(a))
				if l.proved[key] {
					return
				}
				n.patterns++
				if e.mhbOrdered([]int32{o, a}) {
					return
				}
				n.closures++
				if e.cone == nil {
					if coneErr = e.needCone(); coneErr != nil {
						return
					}
				}
				if fd, ok := e.blockingWitness(co, o, a); ok {
					l.out = append(l.out, fd)
					l.proved[key] = true
				}
			})
			if coneErr != nil {
				return nil, l.stage(t0), coneErr
			}
			// Three goroutines: R waits for a lock m2 that a third
			// goroutine T holds while it waits for S's lock.
			if coneErr = l.threeCycles(o, r, rOp); coneErr != nil {
				return nil, l.stage(t0), coneErr
			}
		}
	}
	if len(co.conds) > 0 {
		if err := l.condWaits(); err != nil {
			return nil, l.stage(t0), err
		}
	}
	if err := l.waitGroupWaits(); err != nil { // deadlock_waitgroup.go
		return nil, l.stage(t0), err
	}
	if err := l.recursiveRLocks(); err != nil { // deadlock_rwmutex.go
		return nil, l.stage(t0), err
	}
	if err := l.takenPartners(chans); err != nil { // deadlock_partner.go
		return nil, l.stage(t0), err
	}
	if err := l.blockingCycles(); err != nil { // deadlock_cycles.go
		return nil, l.stage(t0), err
	}
	return l.out, l.stage(t0), nil
}

// stage returns the layer's funnel row, the layer having started at t0.
func (l *chanLayer) stage(t0 time.Time) Stage {
	return l.n.stage("blocking", len(l.out), time.Since(t0))
}

// chanLayer is the channel-deadlock layer's state: the channels' and
// Conds' operations, its funnel row, the patterns of sites it proved
// (two-goroutine cycles and Cond waits in proved, three-goroutine cycles
// in proved3) and its findings.
type chanLayer struct {
	e       *engine
	co      *chanOps
	n       deadlockCounts
	proved  map[patternKey]bool
	proved3 map[patternKey]bool
	out     []Finding
}

// partner returns the goroutine that completed the rendezvous of the
// operation beginning at evs[k] (of a channel's events), and the first
// event of its operation, or -1: the other goroutine's events among the
// operation's four (racesync: X release, Y acquire, Y release, X
// acquire; or Y's pair around X's).
func partner(c *ctp, evs []int32, k int) (int32, int32) {
	g := c.ev[evs[k]].G
	for _, j := range []int{k - 1, k + 1} {
		if j < 0 || j >= len(evs) {
			continue
		}
		o := &c.ev[evs[j]]
		if o.G != g && o.Op != trace.OpClose && c.opStart(evs[j]) {
			return int32(o.G), evs[j]
		}
	}
	return -1, -1
}

// bufferedPartner returns, for receive o on a buffered channel, the
// goroutine of the send whose value it took and that send, or -1.
func bufferedPartner(c *ctp, o int32) (int32, int32) {
	ev := &c.ev[o]
	if ev.Op != trace.OpRecv || ev.Peer < 0 || int(ev.Peer) >= len(c.ev) {
		return -1, -1
	}
	s := &c.ev[ev.Peer]
	if s.Op != trace.OpSend || s.Obj != ev.Obj || s.G == ev.G {
		return -1, -1
	}
	return int32(s.G), ev.Peer
}

// lastAcquireBefore returns goroutine g's latest exclusive acquire of
// lock l at a position before p, or -1.
func (c *ctp) lastAcquireBefore(g int32, l trace.ObjID, p int32) int32 {
	list := c.cs[gl{g, l}]
	for j := len(list) - 1; j >= 0; j-- {
		if list[j].acq < p && !list[j].shared {
			return c.at(g, list[j].acq)
		}
	}
	return -1
}

// maxRequestScan bounds how far back threeCycles looks for R's acquires
// before its channel operation.
const maxRequestScan = 256

// threeCycles tries the three-goroutine form of the pattern for S's
// operation o on an unbuffered channel (S holds lock m there), whose
// partner R began its own at rOp: R acquires a lock m2 at a before rOp
// (its latest acquire of m2 there), and a third goroutine T acquires m
// at b while it holds m2 exclusively. In a schedule that runs S up to o,
// R up to a and T up to b, S waits for R's partner operation, R for m2
// (T holds it) and T for m (S holds it). The run took R's section of m2
// and T's section of m before S's, so nothing hung. Candidates count in
// st as the two-goroutine ones do.
func (l *chanLayer) threeCycles(o, r, rOp int32) error {
	e, n := l.e, &l.n
	c := e.c
	g := int32(c.ev[o].G)
	// R's latest exclusive acquire of each lock before rOp.
	reqs := map[trace.ObjID]int32{}
	for p := c.pos[rOp] - 1; p >= 1 && p > c.pos[rOp]-maxRequestScan; p-- {
		i := c.at(r, p)
		if ev := &c.ev[i]; ev.Op == trace.OpLock && !c.observed[ev.Obj] && !tryLock(e.t, i) {
			if _, ok := reqs[ev.Obj]; !ok {
				reqs[ev.Obj] = i
			}
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	var err error
	c.heldAt(g, c.pos[o], func(m trace.ObjID, s csect) {
		if err != nil || s.shared || c.observed[m] {
			return
		}
		lg := e.lockGoroutines()
		for m2, a := range reqs {
			if m2 == m {
				continue // the two-goroutine form
			}
			for _, h := range lg[m] {
				if h == g || h == r {
					continue
				}
				for _, sec := range c.cs[gl{h, m}] {
					if n.closures >= maxBlockingTries {
						return
					}
					b := c.at(h, sec.acq)
					if sec.shared || tryLock(e.t, b) || !c.holdsExclusive(b, m2) {
						continue
					}
					key := newPatternKey(KindDeadlock, c.site(o), c.site(a), c.site(b))
					if l.proved3[key] {
						continue
					}
					n.patterns++
					if e.mhbOrdered([]int32{o, a, b}) || e.gated([]int32{o, a, b}) {
						continue
					}
					n.closures++
					if e.cone == nil {
						if err = e.needCone(); err != nil {
							return
						}
					}
					if fd, ok := e.blockingWitness(l.co, o, a, b); ok {
						l.out = append(l.out, fd)
						l.proved3[key] = true
					}
				}
			}
		}
	})
	return err
}

// holdsExclusive reports whether the goroutine of acquire b holds lock l
// exclusively at b.
func (c *ctp) holdsExclusive(b int32, l trace.ObjID) bool {
	for _, x := range c.locksets[c.lsOf(b)] {
		if x.l == l && !x.shared {
			return true
		}
	}
	return false
}

// blockingWitness computes the closure of the events before each of evs
// (the requests: a channel operation, then acquires), extends every
// other goroutine as far as it goes, and returns the finding if every
// goroutine left is blocked at its next event.
func (e *engine) blockingWitness(co *chanOps, evs ...int32) (Finding, bool) {
	c := e.c
	limit := make([]int32, len(c.byG)) // per goroutine: the most events the cut may hold
	for g := range limit {
		limit[g] = int32(len(c.byG[g]))
	}
	for _, i := range evs {
		limit[c.ev[i].G] = c.pos[i] - 1
	}
	cut := make([]int32, len(c.byG))
	if !e.deadlockClosure(evs, cut) || !e.extendCut(cut, limit) {
		return Finding{}, false
	}
	waiting, ok := e.allBlocked(cut, evs, co, -1)
	if !ok {
		return Finding{}, false
	}
	fd := e.deadlockWitness(evs, cut)
	fd.Events = fd.Events[:0]
	for _, i := range waiting {
		fd.Events = append(fd.Events, int(i))
	}
	fd.Count = 1
	return fd, true
}

// extendCut runs every goroutine of cut as far as the closure allows
// within limit (the most events of each), to a fixpoint, and reports
// false if cut itself breaks the lock rule or the work exceeds
// maxExtendSteps.
func (e *engine) extendCut(cut, limit []int32) bool {
	c := e.c
	tmp := make([]int32, len(cut))
	steps := 0
	budget := min(maxExtendSteps, max(minExtendSteps, extendWork/len(cut)))
	within := func(tmp []int32) bool {
		for h := range tmp {
			if tmp[h] > limit[h] {
				return false
			}
		}
		return true
	}
	try := func(g, p int32) bool {
		steps++
		copy(tmp, cut)
		e.coneInto(tmp, g, p)
		if !e.closeCut(tmp, -1, -1, within) {
			return false
		}
		copy(cut, tmp)
		return true
	}
	for changed := true; changed; {
		changed = false
		for g := 1; g < len(c.byG); g++ {
			if steps > budget {
				return false
			}
			lo, hi := cut[g], limit[g] // lo is in the cut; find the most hi that fits
			if lo >= hi {
				continue
			}
			if try(int32(g), hi) {
				changed = true
				continue
			}
			if hi-lo > 1 && !try(int32(g), lo+1) {
				continue // cannot go on at all (most goroutines of a long run)
			}
			if hi-lo > 1 {
				lo++
				changed = true
			}
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if try(int32(g), mid) {
					lo = mid
					changed = true
				} else {
					hi = mid
				}
			}
		}
	}
	return true
}

// allBlocked returns the next events of the goroutines of cut that can
// still act, first those of evs, if each of them waits for ever (see the
// file comment). late, if not -1, is a goroutine whose last events run
// after the cut (in the witness): nothing of the cut comes after them.
func (e *engine) allBlocked(cut []int32, evs []int32, co *chanOps, late int32) ([]int32, bool) {
	return e.allBlockedOr(cut, evs, co, late, nil)
}

// allBlockedOr is allBlocked in which a goroutine for which returned
// holds counts as the harness's: a test's own goroutine that has
// returned from the test (leak_selectstuck.go).
func (e *engine) allBlockedOr(cut []int32, evs []int32, co *chanOps, late int32, returned func(g int32) bool) ([]int32, bool) {
	c, t := e.c, e.t
	next := func(g int) int32 {
		if int(cut[g]) < len(c.byG[g]) {
			return c.at(int32(g), cut[g]+1)
		}
		return -1
	}
	waiting := append([]int32(nil), evs...)
	harness := []int{}
	for g := 1; g < len(c.byG); g++ {
		if slices.ContainsFunc(evs, func(i int32) bool { return int(c.ev[i].G) == g }) {
			continue
		}
		n := cut[g]
		if n > 0 && c.ev[c.at(int32(g), n)].Op == trace.OpEnd {
			continue
		}
		unborn := n == 0 && (c.goEv[g] < 0 || cut[c.ev[c.goEv[g]].G] < c.pos[c.goEv[g]])
		if unborn || goroutineOfHarness(t, trace.GoID(g)) || returned != nil && returned(int32(g)) {
			harness = append(harness, g)
			continue
		}
		nx := next(g)
		if nx < 0 {
			return nil, false // alive at the end of the run: what it waits for is unknown
		}
		waiting = append(waiting, nx)
	}
	waited := make(map[trace.ObjID]bool)
	for _, i := range waiting {
		ev := &c.ev[i]
		waited[ev.Obj] = true
		if inSelect(t, i) && !e.selectStuck(cut, waiting, i) { // deadlock_select.go
			return nil, false
		}
		switch ev.Op {
		case trace.OpLock, trace.OpRLock:
			if tryLock(t, i) || c.observed[ev.Obj] || !e.lockHeldAt(cut, ev.Obj, int32(ev.G), ev.Op == trace.OpRLock) && !e.writerPending(cut, waiting, i) {
				return nil, false
			}
		case trace.OpSend, trace.OpRecv:
			bc := co.bufs[ev.Obj]
			switch {
			case ev.Op == trace.OpRecv && co.neverSent(ev.Obj):
			case bc != nil:
				// A send on a full buffer, a receive on an empty one.
				if bc.Blocked(ev.Op, func(x int32) bool { return cut[c.ev[x].G] >= c.pos[x] }, co.orphans) != "" {
					return nil, false
				}
			case !co.unbuffered[ev.Obj] || !c.opStart(i):
				return nil, false
			}
			for _, x := range co.evs[ev.Obj] {
				if c.ev[x].Op == trace.OpClose && cut[c.ev[x].G] >= c.pos[x] {
					return nil, false
				}
			}
			for _, j := range waiting {
				same := c.ev[j].Obj == ev.Obj || bc != nil && co.bufs[c.ev[j].Obj] == bc
				if j != i && same && c.ev[j].Op != ev.Op && (c.ev[j].Op == trace.OpSend || c.ev[j].Op == trace.OpRecv) {
					return nil, false // its partner is ready
				}
			}
		case trace.OpWGWait:
			if n, ok := e.wgCount(cut, ev.Obj); !ok || n <= 0 {
				return nil, false
			}
		case trace.OpCondWait:
			a := e.condSection(i)
			if a < 0 {
				return nil, false
			}
			if int32(ev.G) != late {
				for _, x := range co.conds[ev.Obj] {
					if op := c.ev[x].Op; (op == trace.OpCondSignal || op == trace.OpCondBroadcast) && x > a && cut[c.ev[x].G] >= c.pos[x] {
						return nil, false // a wake-up after it registered
					}
				}
			}
		default:
			return nil, false
		}
	}
	for _, g := range harness {
		from := 0
		if returned != nil && returned(int32(g)) {
			from = int(cut[g]) // a returned test goroutine's own acts are done: leak_selectstuck.go
		}
		for _, x := range c.byG[g][from:] {
			if ev := &c.ev[x]; ev.Obj != 0 && waited[ev.Obj] && !ev.Op.IsAccess() {
				return nil, false
			}
		}
	}
	return waiting, true
}

// lockHeldAt reports whether a goroutine other than g holds lock l at
// the end of cut: exclusively, or if shared is false in either mode.
func (e *engine) lockHeldAt(cut []int32, l trace.ObjID, g int32, shared bool) bool {
	c := e.c
	for h := 1; h < len(c.byG); h++ {
		if int32(h) == g || cut[h] == 0 {
			continue
		}
		held := false
		c.heldAt(int32(h), cut[h], func(m trace.ObjID, s csect) {
			if m == l && (s.rel == 0 || s.rel > cut[h]) && (!shared || !s.shared) {
				held = true
			}
		})
		if held {
			return true
		}
	}
	return false
}

// goroutineOfHarness reports whether goroutine g belongs to no test or
// was created by the runtime.
func goroutineOfHarness(t *trace.Trace, g trace.GoID) bool {
	gr := t.Goroutine(g)
	if gr == nil {
		return false
	}
	if gr.Test == "" {
		return true
	}
	create, ok := t.Stacks.Top(gr.Create)
	return ok && strings.HasPrefix(create.Func, "runtime.")
}

// wgCount returns the counter of WaitGroup w at the end of cut: its
// Adds' deltas less one per Done, or false if a decrement of the run is
// not a Done (Add(-n) does not record n).
func (e *engine) wgCount(cut []int32, w trace.ObjID) (int64, bool) {
	c := e.c
	var n int64
	for i := range c.ev {
		ev := &c.ev[i]
		if ev.Obj != w || (ev.Op != trace.OpWGAdd && ev.Op != trace.OpWGDone) {
			continue
		}
		if ev.Op == trace.OpWGDone {
			done := false
			for f := range e.t.Stacks.All(ev.Stack) {
				done = done || f.Func == "sync.(*WaitGroup).Done"
			}
			if !done {
				return 0, false
			}
		}
		if cut[ev.G] < c.pos[i] {
			continue
		}
		if ev.Op == trace.OpWGAdd {
			v, _ := e.t.Value(i)
			n += int64(v)
		} else {
			n--
		}
	}
	return n, true
}

// condSection returns, for a Cond.Wait that wakes at event w (OpCondWait),
// the acquire that began the critical section in which it was called:
// w's goroutine's previous event must be Wait's unlock of the Cond's
// lock (where it registered), and the acquire is that goroutine's latest
// of the lock before it. -1 if the run does not show them so.
func (e *engine) condSection(w int32) int32 {
	c := e.c
	g := int32(c.ev[w].G)
	u := c.condUnlock(w)
	if u < 0 {
		return -1
	}
	s, ok := c.section(g, c.ev[u].Obj, c.pos[u])
	if !ok || s.shared || s.rel != c.pos[u] {
		return -1
	}
	return c.at(g, s.acq)
}

// condUnlock returns the unlock inside Cond.Wait after which the Wait
// that wakes at w parked: w's goroutine's latest event before it that is
// not a read of the lock's own word (Unlock's atomic, kept as a read), or
// -1.
func (c *ctp) condUnlock(w int32) int32 {
	g := int32(c.ev[w].G)
	p := c.pos[w] - 1
	for ; p >= 1 && c.ev[c.at(g, p)].Op == trace.OpRead; p-- {
	}
	if p < 1 {
		return -1
	}
	u := c.at(g, p)
	if c.ev[u].Op != trace.OpUnlock || !inCondWait(c.t, u) {
		return -1
	}
	for q := p + 1; q < c.pos[w]; q++ {
		if c.ev[c.at(g, q)].Addr != c.ev[u].Addr {
			return -1
		}
	}
	return u
}

// inCondWait reports whether event i was made inside sync.(*Cond).Wait.
func inCondWait(t *trace.Trace, i int32) bool {
	for f := range t.Stacks.All(t.Events[i].Stack) {
		if f.Func == "sync.(*Cond).Wait" {
			return true
		}
	}
	return false
}

// condWaits finds Cond.Wait calls that another schedule leaves waiting
// for ever: the Signal (or Broadcast) that woke the Wait in the run runs,
// with what it needs, before the critical section in which Wait was
// called, and Wait then registers after the only wake-up it would have
// had. Typical of a Wait not in a loop over its condition: with the
// loop, the goroutine reads the condition that the signaller set, so its
// read sees another write and the schedule is not in the model.
//
// The schedule: the closure of the signaller's events through the
// signal (and the release of the Cond's lock, if it held it) and of the
// waiter's events before its critical section, extended as the channel
// deadlocks' cuts are; then the waiter's section up to Wait's unlock
// (the witness). That section may only lock, unlock and access memory
// whose every write by another goroutine keeps its observed order to the
// read (checked per location); anything else and the candidate is
// dropped. The finding lists the Wait (its wake-up event, which never
// comes) and every other goroutine's blocked next event.
func (l *chanLayer) condWaits() error {
	e, co, n := l.e, l.co, &l.n
	c := e.c
	conds := make([]trace.ObjID, 0, len(co.conds))
	for k := range co.conds {
		conds = append(conds, k)
	}
	slices.Sort(conds)
	for _, cd := range conds {
		evs := co.conds[cd]
		for k, w := range evs {
			if err := e.ctx.Err(); err != nil {
				return err
			}
			if c.ev[w].Op != trace.OpCondWait || n.closures >= maxBlockingTries {
				continue
			}
			a := e.condSection(w)
			if a < 0 {
				continue
			}
			u := c.condUnlock(w)
			// The wake-up: the latest signal or broadcast before w.
			s := int32(-1)
			for j := k - 1; j >= 0 && evs[j] > u; j-- {
				if op := c.ev[evs[j]].Op; (op == trace.OpCondSignal || op == trace.OpCondBroadcast) && c.ev[evs[j]].G != c.ev[w].G {
					s = evs[j]
					break
				}
			}
			if s < 0 {
				continue
			}
			key := newPatternKey(KindDeadlock, c.site(w), c.site(s))
			if l.proved[key] {
				continue
			}
			n.patterns++
			n.closures++
			if e.cone == nil {
				if err := e.needCone(); err != nil {
					return err
				}
			}
			if fd, ok := e.condWitness(w, a, u, s, co); ok {
				l.out = append(l.out, fd)
				l.proved[key] = true
			}
		}
	}
	return nil
}

// condWitness builds the schedule of condWaits for the Wait that wakes
// at w, called in the section acquired at a, registered at u, and woken
// by s.
func (e *engine) condWitness(w, a, u, s int32, co *chanOps) (Finding, bool) {
	c := e.c
	gw, gs := int32(c.ev[w].G), int32(c.ev[s].G)
	lock := c.ev[u].Obj
	ps := c.pos[s] + 1 // the event after the signal: the runtime has woken by then
	if int(ps) > len(c.byG[gs]) {
		return Finding{}, false
	}
	if sec, ok := c.section(gs, lock, c.pos[s]); ok {
		if sec.rel == 0 {
			return Finding{}, false
		}
		ps = max(ps, sec.rel) // the signaller lets the lock go
	}
	// The waiter's section may only lock, unlock and access memory
	// (checked before the costly extension).
	for p := c.pos[a]; p < c.pos[w]; p++ {
		if op := c.ev[c.at(gw, p)].Op; !op.IsLock() && op != trace.OpRead && op != trace.OpWrite {
			return Finding{}, false
		}
	}
	limit := make([]int32, len(c.byG))
	for g := range limit {
		limit[g] = int32(len(c.byG[g]))
	}
	limit[gw] = c.pos[a] - 1
	cut := make([]int32, len(c.byG))
	e.coneInto(cut, gs, ps)
	e.coneInto(cut, gw, c.pos[a]-1)
	if cut[gw] > limit[gw] || !e.extendCut(cut, limit) || cut[gs] < ps {
		return Finding{}, false
	}
	// The waiter's section, run after the cut, up to the wake-up.
	var section []int
	for p := c.pos[a]; p < c.pos[w]; p++ {
		i := c.at(gw, p)
		ev := &c.ev[i]
		switch {
		case ev.Op.IsLock():
			if (ev.Op == trace.OpLock || ev.Op == trace.OpRLock) && e.lockHeldAt(cut, ev.Obj, gw, ev.Op == trace.OpRLock) {
				return Finding{}, false
			}
		case ev.Op == trace.OpWrite:
		case ev.Op == trace.OpRead:
			if e.m.shared(i) && !e.readKeepsWriter(i, a, cut, gw) {
				return Finding{}, false
			}
		default:
			return Finding{}, false
		}
		section = append(section, int(i))
	}
	end := append([]int32(nil), cut...)
	end[gw] = c.pos[w] - 1
	waiting, ok := e.allBlocked(end, []int32{w}, co, gw)
	if !ok {
		return Finding{}, false
	}
	return c.cutThen(cut, section, waiting, gw), true
}

// cutThen returns the deadlock whose schedule is cut in observed order,
// then the events then (of the goroutines inWitness, which the cut holds
// back before them), ending with every goroutine of waiting blocked at
// its event: the prefix up to the cut's last event, each other
// goroutine's next event at or below it a stop.
func (c *ctp) cutThen(cut []int32, then []int, waiting []int32, inWitness ...int32) Finding {
	last := int32(-1)
	for g, n := range cut {
		if n > 0 {
			last = max(last, c.at(int32(g), n))
		}
	}
	var stops []int
	for g, n := range cut {
		if slices.Contains(inWitness, int32(g)) || int(n) >= len(c.byG[g]) {
			continue
		}
		if x := c.byG[g][n]; x <= last {
			stops = append(stops, int(x))
		}
	}
	slices.Sort(stops)
	fd := Finding{Kind: KindDeadlock, Predicted: true, Prefix: int(last) + 1, Stops: stops, Witness: then, Count: 1}
	for _, i := range waiting {
		fd.Events = append(fd.Events, int(i))
	}
	return fd
}

// readKeepsWriter reports whether read r of goroutine g, in its section
// from a run after cut, still sees the writes it saw: of the writes by
// other goroutines to bytes it reads, every one the run made before a is
// in cut, none after r is, and none falls between a and r.
func (e *engine) readKeepsWriter(r, a int32, cut []int32, g int32) bool {
	c := e.c
	loc := e.m.loc[r]
	for _, h := range e.writerGoroutines(loc) {
		if h == g {
			continue
		}
		for _, x := range e.writesOf(loc, h) {
			if !c.ev[x].Overlaps(&c.ev[r]) {
				continue // other bytes of the location
			}
			if x >= a && x < r || (x < a) != (cut[h] >= c.pos[x]) {
				return false
			}
		}
	}
	return true
}
