// This file implements blocking cycles of any length (issue 32, item 4,
// and item 2's read/write cycles): cycles through lock and read-lock
// acquires, channel operations (buffered ones and selects included),
// WaitGroup.Wait and Cond.Wait calls
// across any number of goroutines, the general
// form of the shapes deadlock_channel.go (a lock held across a channel
// operation, two or three goroutines) and deadlock_waitgroup.go (a Wait
// under a lock) try one by one.
//
// The search runs over a wait-for graph in the manner of SPDOffline's
// abstract lock graph (Tunç, Mathur, Pavlogiannis and Viswanathan,
// "Sound Dynamic Deadlock Prediction in Linear Time", PLDI 2023, §5),
// whose nodes are requests (events at which a goroutine can block) and
// whose edges say whom a request waits for:
//
//   - an exclusive acquire of lock m (not a TryLock, m kept as a lock)
//     waits for any request whose goroutine holds m there, in either
//     mode (the lock edge of the abstract lock graph);
//   - a shared acquire (RLock) of m waits for any request whose
//     goroutine holds m exclusively, or for another goroutine's
//     exclusive Lock of m that waits: sync.RWMutex prefers writers, so a
//     read lock waits behind a writer that waits (the read-behind-writer
//     edge; deadlock_rwmutex.go quotes the specification);
//   - the first event of a send or receive on an unbuffered channel
//     waits for its partner in the run, goroutine R, to reach its own
//     operation: its edges go to R's requests before that operation (the
//     channel-partner edge);
//   - a WaitGroup.Wait waits for every Done of its group: its edges go to
//     the requests of each other goroutine R that makes a Done, before
//     R's last Done (the WaitGroup edge);
//   - a send on a buffered channel waits on a full
//     buffer for any receiver, a receive on an empty one for any sender
//     (the buffer edge): its edges go to the requests of each other
//     goroutine before each of its first maxBufOps receives (sends) from
//     the one that made room for the send in the run (whose value the
//     receive took) on (bufWaitsFor). The buffer is the checker's ring
//     model (witness.BufChans): a send is a request only on a channel
//     whose run shows its capacity;
//   - a Cond.Wait (its wake-up event, the request: its goroutine has
//     registered, Wait's unlock done, and holds its other locks) waits
//     for a Signal or Broadcast that comes after the waiter took the
//     Cond's lock to wait: its edges go to the requests of each other
//     goroutine R before R's first such signal (the Cond edge). A signal
//     before it stays before the Wait registered, and wakes nothing
//     (allBlocked, witness's condBlocked).
//
// A channel operation made in a blocking select (runtime.selectgo) is a
// request too when static analysis lists the select's other cases
// (Options.SelectCases; selectKnown): the trace holds only the case the
// select took, whose partner the request waits for as above, and a
// select waits only when every case does, so the claim holds only if,
// at the end of the cut, no other case can proceed either: no operation
// that could complete one has run, is a waiting goroutine's next, or
// belongs to a goroutine that may still act (selectStuck,
// deadlock_select.go; the checker's witness/select.go). The finding
// lists the select's other cases (Finding.Stuck) for the report to say
// why none proceeds.
//
// A cycle x1 → x2 → … → xk → x1 through distinct goroutines is a
// candidate deadlock: in a schedule that runs each goroutine up to its
// xi, each waits for the next. Cycles of lock edges only are SPDOffline's
// (deadlock_spd.go): a cycle is tried only if it has a channel
// operation, a Wait or a read-behind-writer edge. The search starts at
// the least-indexed channel operation or Wait of the cycle, so that each
// cycle is found once, or for a cycle of acquires only at an RLock that
// holds another lock, going behind a writer first (readStart): so read/write
// cycles through several RWMutexes (issue 32, item 2: G1 holds a for
// reading and read-locks b, G2 holds b for reading and locks a, G3's
// Lock of b comes between) are found as the channel ones are. A goroutine's requests before an operation are looked
// for in the maxRequestScan events before it (its latest acquire of each
// lock, its channel operations and Waits there).
//
// Every candidate is filtered (must-happen-before, two requests under
// one common lock) and then proved or dropped by the channel layer's
// closure and extension (blockingWitness, deadlock_channel.go): the
// sync-preserving closure of the events before every request (Tunç et
// al., Theorem 2) must hold none of them, every other goroutine runs as
// far as the closure allows, and the finding is made only if at the end
// every goroutine that can still act waits for ever under the serial
// specifications (allBlocked). The checker (package witness,
// blocking.go) re-checks the claim; a claim it rejected would be the
// engine's internal error (analyze.go, checkAll), never a report.
//
// Not covered: a recursive RLock (recursiveRLocks, deadlock_rwmutex.go:
// its goroutine's own read section is not a holder here); a select whose
// cases static analysis cannot list, or non-blocking (a default); a
// cycle that goes through a select's other case (the request waits for
// its taken case's partner only: the others must be blocked apart from
// the cycle); past maxStartSteps
// steps from one start, or maxCycleSteps in all, the rest of the graph is
// not searched; cycles of more than maxBlockingCycle goroutines. A
// cycle of more goroutines than a pattern key has sites (2*maxCycle) is
// keyed by its sites in full (longKey).
//
// Contract: as blockingWitness's: only cuts closed under the lock rule
// and extended to a fixpoint at whose end every goroutine that can still
// act waits for ever, the witness the cut in observed order, no search
// of schedules.

package predict

import (
	"encoding/binary"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// maxBlockingCycle bounds the goroutines of a cycle: trying one compares
// every pair of its requests (must-happen-before, a common lock), and
// without the bound a dense graph's paths run as deep as the step
// budget; maxHolders bounds the requests made holding one lock that
// the search follows, and maxHolderScan the events of the lock's
// sections it looks at for them; maxCycleSteps, the nodes the search visits in one
// run of the layer, and maxStartSteps those it visits from one start, so
// that a dense part of the graph does not use up the search for the rest.
const (
	maxBlockingCycle = 64
	maxCycleSteps    = 30000
	maxStartSteps    = 1000
	maxHolders       = 4096
	maxHolderScan    = 1 << 15
)

// reqKind is what a request of the wait-for graph waits on.
type reqKind uint8

const (
	reqLock  reqKind = iota // an exclusive acquire: the lock's holders, in either mode
	reqRLock                // a shared acquire: the lock's exclusive holder, or a writer that waits
	reqChan                 // an unbuffered send or receive: its partner
	reqWait                 // a WaitGroup.Wait: the goroutines of its Dones
	reqBuf                  // a send or receive on a buffered channel: the goroutines of its receives or sends
	reqCond                 // a Cond.Wait (its wake-up event): the goroutines that signal after it registered
)

// maxBufOps bounds, per goroutine, the operations on a buffered channel
// whose requests a buffered request waits for.
const maxBufOps = 4

// kindMemo is kindOf's answer for one event.
type kindMemo struct {
	k  reqKind
	ok bool
}

// holdKey is a lock and whether a holder of it in shared mode counts.
type holdKey struct {
	m       trace.ObjID
	anyMode bool
}

// untilPos is a goroutine that a request waits for, up to (before) a
// position of its own: a channel partner's operation, a group's Done.
type untilPos struct{ g, p int32 }

// cycleSearch is the state of the search for one run of the layer.
type cycleSearch struct {
	l       *chanLayer
	holders map[holdKey][]int32     // memo of holdersOf
	writers map[trace.ObjID][]int32 // memo of writersOf
	kinds   map[int32]kindMemo      // memo of kindOf
	special int                     // the path's channel operations, Waits and read-behind-writer edges
	dones   map[trace.ObjID][]int32 // per WaitGroup: its Done events
	before  map[untilPos][]int32    // memo of requestsBefore
	// provedLong: the cycles proved of more sites than a pattern key
	// holds, by longKey.
	provedLong map[string]bool
	selects    map[int32]bool         // per site of a select's event: selectKnown
	inSel      map[trace.StackID]bool // per stack: inSelect
	bufWait    map[int32][]untilPos   // memo of bufWaitsFor
	path       []int32
	onPath     map[int32]bool // goroutines on the path
	start      int32
	steps      int // nodes visited in all
	budget     int // the step count at which the search from start stops
	err        error
}

// kindOf returns the kind of request event i, or false if i cannot block
// in a way the search follows.
func (s *cycleSearch) kindOf(i int32) (reqKind, bool) {
	if m, ok := s.kinds[i]; ok {
		return m.k, m.ok
	}
	k, ok := s.kindOfEvent(i)
	s.kinds[i] = kindMemo{k, ok}
	return k, ok
}

// kindOfEvent computes kindOf (it walks the event's stack).
func (s *cycleSearch) kindOfEvent(i int32) (reqKind, bool) {
	c, t, co := s.l.e.c, s.l.e.t, s.l.co
	ev := &c.ev[i]
	switch ev.Op {
	case trace.OpLock:
		return reqLock, !c.observed[ev.Obj] && !tryLock(t, i)
	case trace.OpRLock:
		return reqRLock, !c.observed[ev.Obj] && !tryLock(t, i)
	case trace.OpSend, trace.OpRecv:
		if bc := co.bufs[ev.Obj]; bc != nil {
			// A send can wait only on a buffer whose capacity the run shows.
			return reqBuf, (ev.Op == trace.OpRecv || bc.Cap > 0) && s.selectKnown(i)
		}
		return reqChan, co.unbuffered[ev.Obj] && ev.Sync != trace.SyncNone && c.opStart(i) && s.selectKnown(i)
	case trace.OpWGWait:
		return reqWait, true
	case trace.OpCondWait:
		return reqCond, s.l.e.condSection(i) >= 0
	}
	return 0, false
}

// waitsFor returns the goroutines (with the positions they must not
// reach) that request i waits for, when it is no lock acquire.
func (s *cycleSearch) waitsFor(i int32, k reqKind) []untilPos {
	c := s.l.e.c
	g := int32(c.ev[i].G)
	switch k {
	case reqChan:
		evs := s.l.co.evs[c.ev[i].Obj]
		if j, ok := slices.BinarySearch(evs, i); ok {
			if r, rOp := partner(c, evs, j); r >= 0 {
				return []untilPos{{r, c.pos[rOp]}}
			}
		}
	case reqBuf:
		return s.bufWaitsFor(i)
	case reqCond:
		// Each other goroutine that signals or broadcasts the Cond after
		// the waiter took the lock to wait, up to its first such signal:
		// one before stays before the waiter registered (allBlocked).
		a := s.l.e.condSection(i)
		var out []untilPos
		for _, x := range s.l.co.conds[c.ev[i].Obj] {
			op, r := c.ev[x].Op, int32(c.ev[x].G)
			if x > a && r != g && (op == trace.OpCondSignal || op == trace.OpCondBroadcast) &&
				!slices.ContainsFunc(out, func(u untilPos) bool { return u.g == r }) {
				out = append(out, untilPos{r, c.pos[x]})
			}
		}
		return out
	case reqWait:
		last := map[int32]int32{}
		var gs []int32
		for _, d := range s.dones[c.ev[i].Obj] {
			r := int32(c.ev[d].G)
			if r == g {
				continue
			}
			if _, ok := last[r]; !ok {
				gs = append(gs, r)
			}
			last[r] = c.pos[d]
		}
		out := make([]untilPos, 0, len(gs))
		for _, r := range gs {
			out = append(out, untilPos{r, last[r]})
		}
		return out
	}
	return nil
}

// requestsBefore returns goroutine u.g's requests in the maxRequestScan
// events before position u.p: its latest acquire of each lock, its
// channel operations and Waits, latest first.
func (s *cycleSearch) requestsBefore(u untilPos) []int32 {
	if r, ok := s.before[u]; ok {
		return r
	}
	c := s.l.e.c
	var out []int32
	seen := map[trace.ObjID]bool{}
	for p := u.p - 1; p >= 1 && p > u.p-maxRequestScan; p-- {
		i := c.at(u.g, p)
		k, ok := s.kindOf(i)
		acquire := k == reqLock || k == reqRLock
		if !ok || acquire && seen[c.ev[i].Obj] {
			continue
		}
		if acquire {
			seen[c.ev[i].Obj] = true
		}
		out = append(out, i)
	}
	s.before[u] = out
	return out
}

// holdersOf returns the requests made holding lock m exclusively (or in
// either mode, if anyMode): those inside the sections of m, at most
// maxHolders.
func (s *cycleSearch) holdersOf(m trace.ObjID, anyMode bool) []int32 {
	hk := holdKey{m, anyMode}
	if hs, ok := s.holders[hk]; ok {
		return hs
	}
	c := s.l.e.c
	var out []int32
	scan := 0
	for _, h := range s.l.e.lockGoroutines()[m] {
		for _, sec := range c.cs[gl{h, m}] {
			if sec.shared && !anyMode || scan > maxHolderScan {
				continue
			}
			end := sec.rel
			if end == 0 {
				end = int32(len(c.byG[h])) + 1 // never released
			}
			for p := sec.acq + 1; p < end && len(out) < maxHolders && scan <= maxHolderScan; p++ {
				scan++
				if i := c.at(h, p); requestOp(c.ev[i].Op) && s.holdsAt(i, m, anyMode) {
					if _, ok := s.kindOf(i); ok {
						out = append(out, i)
					}
				}
			}
		}
	}
	s.holders[hk] = out
	return out
}

// writersOf returns the exclusive Locks of lock m (no TryLock), at most
// maxHolders: the writers an RLock of m can wait behind.
func (s *cycleSearch) writersOf(m trace.ObjID) []int32 {
	if ws, ok := s.writers[m]; ok {
		return ws
	}
	c := s.l.e.c
	var out []int32
	for _, h := range s.l.e.lockGoroutines()[m] {
		for _, sec := range c.cs[gl{h, m}] {
			if i := c.at(h, sec.acq); !sec.shared && len(out) < maxHolders && c.ev[i].Op == trace.OpLock && !tryLock(s.l.e.t, i) {
				out = append(out, i)
			}
		}
	}
	s.writers[m] = out
	return out
}

// holdsAt reports whether the goroutine of request i holds lock m
// exclusively there, or in either mode if anyMode (an acquire's own lock
// not counted).
func (s *cycleSearch) holdsAt(i int32, m trace.ObjID, anyMode bool) bool {
	c := s.l.e.c
	if (c.ev[i].Op == trace.OpLock || c.ev[i].Op == trace.OpRLock) && c.ev[i].Obj == m {
		return false
	}
	for _, x := range c.locksets[c.lsOf(i)] {
		if x.l == m && (anyMode || !x.shared) {
			return true
		}
	}
	return false
}

// closes reports whether request i (the path's last) waits for the
// start request, and whether by a read-behind-writer edge.
func (s *cycleSearch) closes(i int32, k reqKind) (ok, behind bool) {
	c := s.l.e.c
	switch k {
	case reqLock:
		return s.holdsAt(s.start, c.ev[i].Obj, true), false
	case reqRLock:
		if s.holdsAt(s.start, c.ev[i].Obj, false) {
			return true, false
		}
		b := s.behind(i, s.start)
		return b, b
	}
	g := int32(c.ev[s.start].G)
	for _, u := range s.waitsFor(i, k) {
		if u.g == g && c.pos[s.start] < u.p && c.pos[s.start] >= u.p-maxRequestScan+1 {
			return true, false
		}
	}
	return false, false
}

// readStart reports whether RLock x starts the search for cycles of
// acquires only (none of them a channel operation or a Wait, whose
// cycles the search finds from those): x is a request whose goroutine
// holds another lock, and another goroutine Locks x's lock, which x can
// wait behind. The cycle is found from each of its RLocks that waits
// behind a writer; shown keeps one.
func (s *cycleSearch) readStart(x int32) bool {
	c := s.l.e.c
	holds := false
	for _, h := range c.locksets[c.lsOf(x)] {
		holds = holds || h.l != c.ev[x].Obj
	}
	if !holds || c.observed[c.ev[x].Obj] {
		return false
	}
	if _, ok := s.kindOf(x); !ok {
		return false
	}
	return slices.ContainsFunc(s.writersOf(c.ev[x].Obj), func(w int32) bool { return c.ev[w].G != c.ev[x].G })
}

// behind reports whether RLock r can wait behind request w: w is an
// exclusive Lock of r's lock (no TryLock).
func (s *cycleSearch) behind(r, w int32) bool {
	c := s.l.e.c
	return c.ev[r].Op == trace.OpRLock && c.ev[w].Op == trace.OpLock && c.ev[w].Obj == c.ev[r].Obj && !tryLock(s.l.e.t, w)
}

// specialNode reports whether request i is a channel operation or a
// Wait: a cycle through one is none of SPDOffline's.
func (s *cycleSearch) specialNode(i int32) bool {
	k, _ := s.kindOf(i)
	return k == reqChan || k == reqWait || k == reqBuf || k == reqCond
}

// blockingCycles searches the wait-for graph for cycles that start at a
// channel operation or a Wait (see the file comment) and tries each.
func (l *chanLayer) blockingCycles() error {
	e := l.e
	c := e.c
	s := &cycleSearch{l: l, holders: map[holdKey][]int32{}, writers: map[trace.ObjID][]int32{}, kinds: map[int32]kindMemo{}, dones: map[trace.ObjID][]int32{},
		before: map[untilPos][]int32{}, bufWait: map[int32][]untilPos{}, onPath: map[int32]bool{}, provedLong: map[string]bool{}, selects: map[int32]bool{}, inSel: map[trace.StackID]bool{}}
	var starts []int32
	for i := range c.ev {
		x := int32(i)
		switch c.ev[x].Op {
		case trace.OpWGDone:
			s.dones[c.ev[x].Obj] = append(s.dones[c.ev[x].Obj], x)
		case trace.OpWGWait, trace.OpSend, trace.OpRecv, trace.OpCondWait:
			if _, ok := s.kindOfEvent(x); ok { // not kept: most starts are visited once
				starts = append(starts, x)
			}
		case trace.OpRLock:
			if s.readStart(x) {
				starts = append(starts, x)
			}
		}
	}
	if len(starts) == 0 {
		return nil
	}
	for _, x := range starts {
		if s.err = e.ctx.Err(); s.err != nil {
			return s.err
		}
		if s.steps > maxCycleSteps || l.n.closures >= maxBlockingTries {
			break
		}
		s.start = x
		s.budget = min(s.steps+maxStartSteps, maxCycleSteps)
		s.path = append(s.path[:0], x)
		s.onPath[int32(c.ev[x].G)] = true
		s.special = b2i(s.specialNode(x))
		s.visit(x)
		delete(s.onPath, int32(c.ev[x].G))
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// visit extends the path, whose last request is i, by every request i
// waits for, trying each cycle that closes.
func (s *cycleSearch) visit(i int32) {
	c := s.l.e.c
	s.steps++
	if s.steps > s.budget || s.err != nil || s.l.n.closures >= maxBlockingTries {
		return
	}
	k, _ := s.kindOf(i)
	if len(s.path) >= 2 {
		// A cycle of acquires only, none of them a read behind a
		// writer, is SPDOffline's (deadlock_spd.go).
		if ok, behind := s.closes(i, k); ok && (s.special > 0 || behind) {
			s.try()
		}
	}
	if len(s.path) >= maxBlockingCycle {
		return
	}
	var next []int32
	switch k {
	case reqLock:
		next = s.holdersOf(c.ev[i].Obj, true)
	case reqRLock:
		next = append(slices.Clip(s.holdersOf(c.ev[i].Obj, false)), s.writersOf(c.ev[i].Obj)...)
	default:
		for _, u := range s.waitsFor(i, k) {
			if !s.onPath[u.g] {
				next = append(next, s.requestsBefore(u)...)
			}
		}
		if k == reqBuf { // a goroutine's operations share requests
			seen := map[int32]bool{}
			next = slices.DeleteFunc(next, func(j int32) bool {
				dup := seen[j]
				seen[j] = true
				return dup
			})
		}
	}
	for _, j := range next {
		g := int32(c.ev[j].G)
		if s.onPath[g] {
			continue
		}
		if s.specialNode(j) && (j <= s.start || !s.specialNode(s.start)) {
			continue // the cycle is found from its least channel operation or Wait
		}
		if len(s.path) == 1 && c.ev[s.start].Op == trace.OpRLock && !s.behind(i, j) {
			continue // from an RLock, the search goes behind a writer first
		}
		sp := b2i(s.specialNode(j)) + b2i(s.behind(i, j))
		s.onPath[g] = true
		s.special += sp
		s.path = append(s.path, j)
		s.visit(j)
		s.path = s.path[:len(s.path)-1]
		s.special -= sp
		delete(s.onPath, g)
		if s.err != nil {
			return
		}
	}
}

// try proves or drops the cycle on the path, once per pattern of its
// sites and never one a finding of the layer already shows.
func (s *cycleSearch) try() {
	l, e := s.l, s.l.e
	c := e.c
	evs := slices.Clone(s.path)
	sites := make([]int32, len(evs))
	for j, i := range evs {
		sites[j] = c.site(i)
	}
	var key patternKey
	long := ""
	if len(sites) <= len(key.sites) {
		key = newPatternKey(KindDeadlock, sites...)
	} else {
		long = longKey(sites)
	}
	if long == "" && (l.proved3[key] || l.proved[key]) || long != "" && s.provedLong[long] || l.shown(evs) {
		return
	}
	l.n.patterns++
	if e.mhbOrdered(evs) || e.gated(evs) {
		return
	}
	l.n.closures++
	if e.cone == nil {
		if s.err = e.needCone(); s.err != nil {
			return
		}
	}
	if fd, ok := e.blockingWitness(l.co, evs...); ok {
		for j := range evs { // Events begin with evs, in cycle order
			fd.WaitsFor = append(fd.WaitsFor, (j+1)%len(evs))
		}
		if e.opts.SelectCases != nil {
			waiting := make([]int32, len(fd.Events))
			for j, x := range fd.Events {
				waiting[j] = int32(x)
			}
			fd.Stuck = e.stuckSelects(waiting) // deadlock_select.go: why no other case proceeds
		}
		l.out = append(l.out, fd)
		if long != "" {
			s.provedLong[long] = true
		} else {
			l.proved3[key] = true
		}
	}
}

// requestOp reports whether op can be a request of the wait-for graph
// (kindOf says whether it is one).
func requestOp(op trace.Op) bool {
	switch op {
	case trace.OpLock, trace.OpRLock, trace.OpSend, trace.OpRecv, trace.OpWGWait, trace.OpCondWait:
		return true
	}
	return false
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shown reports whether a finding of the layer already lists every
// request of evs among its blocked events.
func (l *chanLayer) shown(evs []int32) bool {
	for _, fd := range l.out {
		if !slices.ContainsFunc(evs, func(i int32) bool { return !slices.Contains(fd.Events, int(i)) }) {
			return true
		}
	}
	return false
}

// bufWaitsFor returns whom request i, the k-th send or receive of a
// buffered channel, waits for: a send on a full buffer waits for a
// receive, from the one that made room for it in the run (the
// (k-cap)-th) on; a receive on an empty buffer for a send, from the one
// whose value it took (the k-th) on. Each other goroutine of such an
// operation is waited for up to each of its first maxBufOps of them,
// among the maxRequestScan operations from there.
func (s *cycleSearch) bufWaitsFor(i int32) []untilPos {
	if w, ok := s.bufWait[i]; ok {
		return w
	}
	c := s.l.e.c
	bc := s.l.co.bufs[c.ev[i].Obj]
	own, other, from := bc.Sends, bc.Recvs, 0
	if c.ev[i].Op == trace.OpRecv {
		own, other = bc.Recvs, bc.Sends
	}
	k, _ := slices.BinarySearch(own, i)
	from = k
	if c.ev[i].Op == trace.OpSend {
		from = max(0, k-bc.Cap)
	}
	g := c.ev[i].G
	n := map[trace.GoID]int{}
	var out []untilPos
	for _, x := range other[min(from, len(other)):min(from+maxRequestScan, len(other))] {
		if r := c.ev[x].G; r != g && n[r] < maxBufOps {
			n[r]++
			out = append(out, untilPos{int32(r), c.pos[x]})
		}
	}
	s.bufWait[i] = out
	return out
}

// longKey names a cycle of more sites than a pattern key holds by all of
// them, in cycle order.
func longKey(sites []int32) string {
	b := make([]byte, 0, 4*len(sites))
	for _, x := range sites {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return string(b)
}

// selectKnown reports whether channel event i is made outside a select,
// or in a blocking select whose other cases static analysis lists
// (Options.SelectCases): the request is then its taken case's, whose
// partner it waits for as a plain operation's, and allBlocked and the
// checker see that no other case can proceed (selectStuck,
// deadlock_select.go; witness/select.go).
//
// The answer is asked once per site (selects): it only picks the
// candidates, since allBlocked asks again for the event itself.
func (s *cycleSearch) selectKnown(i int32) bool {
	e := s.l.e
	st := e.t.Events[i].Stack
	sel, seen := s.inSel[st]
	if !seen {
		sel = inSelect(e.t, i)
		s.inSel[st] = sel
	}
	if !sel {
		return true
	}
	site := e.c.site(i)
	if ok, seen := s.selects[site]; seen {
		return ok
	}
	ok := e.selectVictim(i)
	if ok {
		_, ok = e.opts.SelectCases(e.t, int(i))
	}
	s.selects[site] = ok
	return ok
}
