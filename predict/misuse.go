// This file implements the misuse layer: the channel, WaitGroup and
// mutex operations that panic (or throw) in the real program, predicted
// from one run, each with a witness.
//
// Every kind asks the same question of the maximal causal model: is there
// a feasible schedule after which an operation op is the next step of its
// goroutine, with its primitive in a state where op fails? The schedule
// is built as for deadlocks (deadlock_lockorder.go): the causal cone of the events
// op's goroutine ran before it (and of the events that must be in, such
// as the close a send comes after), closed under the sync-preserving lock
// rule, run in observed order. The cone keeps every read's writer, so the
// goroutine's next step is op; the primitive's state is then a function
// of the cut. The kinds, and the state that makes op fail:
//
//   - send-on-closed: op starts a send on a channel (chansend's read of
//     it) and the channel's close is in the cut;
//   - close-of-closed: op is a close and another close of the channel is
//     in the cut (a run that did not panic never closes a channel twice,
//     and the second close of one that did is not recorded: the kind is
//     found only in traces that hold two closes);
//   - negative-waitgroup: op is a Done and the group's counter, summed
//     over the cut's Adds and Dones, is zero (if the least cut leaves it
//     above zero, Dones of other goroutines that do not need op are
//     added, cheapest first);
//   - waitgroup-reuse: op is a Wait, another goroutine's next step is an
//     Add with a positive delta, and the counter is zero: the Wait
//     returns at once, before the task the Add counts (sync.WaitGroup:
//     "calls with a positive delta that occur when the counter is zero
//     must happen before a Wait"). Both must be next, so neither must
//     happen before the other; an Add after the Wait returned (a group
//     reused in rounds) is not reported;
//   - unlock-of-unlocked: op is an Unlock (RUnlock) of a lock that some
//     goroutine releases without having taken it itself (the CTP's
//     "observed" locks); on any other lock every unlock follows its own
//     goroutine's lock, which mutual exclusion keeps held. The lock's
//     operations in the cut, in observed order, leave it in a state that
//     op's specification forbids. A lock whose first operation releases
//     (a copy of a held mutex) or that a plain write overwrites while in
//     use is not judged (witness.LockKnown): its state is not its
//     operations'.
//
// A send (or a second close) whose goroutine's critical section is open
// at it and came before the close's section in the run has no such cut:
// the lock rule puts the send in it. For those, misuse_reorder.go builds
// the schedule that moves the section after the close's instead.
//
// Must-happen-before filters first: a send that must happen before its
// close, a Done that its group's Adds must precede with nothing to
// undercut them, any Done of a group whose every Done has a unit of an
// Add of its own that must precede it (misuse_wgcover.go), a Wait and an
// Add that must be ordered, or that one kept read-from edge orders
// (cone_readfrom.go). Findings are one per pattern of sites;
// Predicted is false when the recorded run itself reached op in the
// failing state (the send started after the close, the Wait returned
// before the Add, the unlock found the lock free: the trace ends there
// when the program died of it). The checker (package witness, misuse.go)
// re-checks each with the primitives' serial specifications.
//
// Bounds: the candidates tried (maxMisuseClosures, and MaxTries per
// pattern of sites), and the Dones a lowering adds one at a time
// (misuseWork, counted by their closures' sizes). A lowering
// that reaches its bound gives up on its candidate and says so: the
// misuse row's MisuseStopped, and a note (seer predict, and seer check on
// the test during which the first such candidate ran).
//
// Contract: it reports only operations whose closure (the cut above)
// leaves them their goroutine's next step with the primitive in the
// failing state; it builds the witness from that cut in observed order
// (deadlockWitness), or from the moved section's schedule
// (misuse_reorder.go), with no search.

package predict

import (
	"slices"
	"time"

	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// maxMisuseClosures bounds the candidates the misuse layer tries, each a
// closure (lower's steps are bounded apart).
const maxMisuseClosures = 2000

// misuseWork bounds the work of the layer's WaitGroup lowerings (lower),
// and a quarter of it one lowering's, in lowerCost's units. Each step of a
// lowering adds a Done's causal cone to the cut and closes it: a closure
// over the cut's goroutines, and a sum of the group's counter over its
// events. A Done whose cone brings its own Add (the task's Add before the
// task is handed over: a pool's queue) leaves the counter where it was,
// and without a bound one candidate's lowering was a closure per Done of
// its group: minutes on a pool's run of tens of thousands of goroutines.
// Bounded by work rather than by steps, a small run's lowering is never
// stopped, and a large run's stops after a few seconds.
const misuseWork int64 = 1 << 24

// lowerCost is what one step of lower on a group of n events costs in
// misuseWork's units: the goroutines of the cut, and the events.
func (m *misuse) lowerCost(n int) int64 { return int64(len(m.cut) + n) }

// misuse is the layer's state for one trace.
type misuse struct {
	e        *engine
	n        *misuseCounts
	out      []Finding
	proved   map[patternKey]bool
	tries    map[patternKey]int
	looks    map[patternKey]int // candidates of a key looked at, filtered or not
	cut, tmp []int32
	// wgd holds the delta of each event of the WaitGroup being tried
	// (0 for a Wait), in the order of its events: the counter is summed
	// over them once per step of lower, and a delta read from the trace
	// costs a walk of the event's stack (witness.DoneDelta).
	wgd []int64
	// wgAt holds each of those events' goroutine and position, so that
	// the sum asks whether an event is in the cut without reading the
	// event table (thousands of events, summed at every step of lower).
	wgAt [][2]int32
}

// misuseLayer finds and proves the misuse kinds. Its funnel row counts
// the candidates that passed the must-happen-before filters (Misuse) and
// the patterns of sites proved (MisuseSites).
func (e *engine) misuseLayer() ([]Finding, Stage, error) {
	t0 := time.Now()
	var n misuseCounts
	c := e.c
	closes := map[uint64][]int32{}
	sends := map[uint64][]int32{}
	wgs := map[trace.ObjID][]int32{}
	var wgOrder []trace.ObjID
	var unlocks []int32
	lockOps := map[trace.ObjID][]int32{} // the observed locks' operations
	// Whether a read starts a send depends on its stack alone: judged
	// once per stack (reads are most of a trace).
	sendStack := make([]int8, c.t.Stacks.Len()+1) // 0 unknown, 1 yes, 2 no
	for i := range c.ev {
		ev := &c.ev[i]
		switch ev.Op {
		case trace.OpClose:
			closes[ev.Addr] = append(closes[ev.Addr], int32(i))
		case trace.OpRead:
			st := int(ev.Stack)
			if st >= len(sendStack) {
				st = 0 // not a stack of the table: judged each time
			}
			if sendStack[st] == 0 || st == 0 {
				sendStack[st] = 2
				if witness.SendStart(c.t, i) {
					sendStack[st] = 1
				}
			}
			if sendStack[st] == 1 {
				sends[ev.Addr] = append(sends[ev.Addr], int32(i))
			}
		case trace.OpWGAdd, trace.OpWGDone, trace.OpWGWait:
			if wgs[ev.Obj] == nil {
				wgOrder = append(wgOrder, ev.Obj)
			}
			wgs[ev.Obj] = append(wgs[ev.Obj], int32(i))
		}
		if ev.Op.IsLock() && c.observed[ev.Obj] {
			lockOps[ev.Obj] = append(lockOps[ev.Obj], int32(i))
			if ev.Op == trace.OpUnlock || ev.Op == trace.OpRUnlock {
				unlocks = append(unlocks, int32(i))
			}
		}
	}
	known := map[trace.ObjID]bool{}
	for l, ops := range lockOps {
		known[l] = witness.LockKnown(c.t, l, ops)
	}
	unlocks = slices.DeleteFunc(unlocks, func(u int32) bool { return !known[c.ev[u].Obj] })
	if len(closes) == 0 && len(wgs) == 0 && len(unlocks) == 0 {
		return nil, n.stage(0, time.Since(t0)), nil
	}
	m := &misuse{e: e, n: &n, proved: map[patternKey]bool{}, tries: map[patternKey]int{}, looks: map[patternKey]int{}}
	var addrs []uint64
	for a := range closes {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	for _, a := range addrs {
		if err := m.channel(closes[a], sends[a]); err != nil {
			return nil, n.stage(len(m.out), time.Since(t0)), err
		}
	}
	for _, w := range wgOrder {
		if err := m.waitGroup(wgs[w]); err != nil {
			return nil, n.stage(len(m.out), time.Since(t0)), err
		}
	}
	for _, u := range unlocks {
		if err := m.unlock(u); err != nil {
			return nil, n.stage(len(m.out), time.Since(t0)), err
		}
	}
	return m.out, n.stage(len(m.out), time.Since(t0)), nil
}

// key names a finding by its kind and the sites of its first one or two
// events.
func (m *misuse) key(kind report.Kind, evs ...int32) patternKey {
	c := m.e.c
	if len(evs) > 1 {
		return newPatternKey(kind, c.site(evs[0]), c.site(evs[1]))
	}
	return newPatternKey(kind, c.site(evs[0]))
}

// maxLooks bounds the candidates of one pattern of sites that the
// filters look at (a loop makes thousands of one site).
const maxLooks = 64

// look reports whether a candidate of key k is worth filtering: its
// pattern of sites is not proved and has looks left. It counts the look.
func (m *misuse) look(k patternKey) bool {
	if m.proved[k] || m.looks[k] >= maxLooks {
		return false
	}
	m.looks[k]++
	return true
}

// try reports whether a candidate of key k that passed the filters is
// worth a closure: its pattern of sites has tries left and the layer has
// closures left. It counts the candidate.
func (m *misuse) try(k patternKey) bool {
	if m.proved[k] || m.tries[k] >= m.e.opts.MaxTries || m.n.tried >= maxMisuseClosures {
		return false
	}
	m.tries[k]++
	m.n.tried++
	return true
}

// mustBefore reports whether every schedule that runs b's goroutine up
// to b (b excluded) runs a: a must happen before the event before b.
func (m *misuse) mustBefore(a, b int32) bool {
	c := m.e.c
	return m.e.mhb.knows(int32(c.ev[b].G), c.pos[b]-1, int32(c.ev[a].G)) >= c.pos[a]
}

// closure computes in m.cut the sync-preserving closure of the events up
// to each of in (included) and before each of next, and reports whether
// it holds none of next.
func (m *misuse) closure(in, next []int32) (bool, error) {
	e, c := m.e, m.e.c
	if e.cone == nil {
		if err := e.needCone(); err != nil {
			return false, err
		}
	}
	if m.cut == nil {
		m.cut = make([]int32, len(c.byG))
		m.tmp = make([]int32, len(c.byG))
	}
	clear(m.cut)
	for _, i := range in {
		e.coneInto(m.cut, int32(c.ev[i].G), c.pos[i])
	}
	for _, i := range next {
		e.coneInto(m.cut, int32(c.ev[i].G), c.pos[i]-1)
	}
	return m.close(next)
}

// close closes m.cut under the lock rule and reports whether it holds
// none of next.
func (m *misuse) close(next []int32) (bool, error) {
	// The stopping rule: the cut holds none of next, and the analysis
	// is not cancelled (the layer's closures are many).
	below := m.e.c.holdsNone(next)
	var err error
	closed := m.e.closeCut(m.cut, -1, -1, func(cut []int32) bool {
		if !below(cut) {
			return false
		}
		err = m.e.ctx.Err()
		return err == nil
	})
	if err != nil {
		return false, err
	}
	return closed, nil
}

// inCut reports whether event i is in m.cut.
func (m *misuse) inCut(i int32) bool { return m.e.c.pos[i] <= m.cut[m.e.c.ev[i].G] }

// emit records the finding whose schedule is m.cut in observed order
// (deadlockWitness's form: the prefix up to the cut's last event, which is
// the witness).
func (m *misuse) emit(kind report.Kind, k patternKey, evs []int32, predicted bool) {
	empty := true
	for _, n := range m.cut {
		empty = empty && n == 0
	}
	if empty {
		return // nothing runs before the op: no schedule to show
	}
	if panics(kind) && m.e.recoveredMisuse(evs[len(evs)-1], predicted) {
		m.proved[k] = true // the program recovers its panic at these sites
		return
	}
	fd := m.e.deadlockWitness(evs, m.cut)
	fd.Kind, fd.Predicted = kind, predicted
	fd.Count = 1
	m.out = append(m.out, fd)
	m.proved[k] = true
}

// channel tries the sends on (and second closes of) one channel.
func (m *misuse) channel(closes, sends []int32) error {
	for _, cl := range closes {
		for _, s := range sends {
			k := m.key(KindSendOnClosed, cl, s)
			if !m.look(k) || m.mustBeforeIncl(s, cl) {
				continue // every schedule that closes has started the send
			}
			if !m.try(k) {
				continue
			}
			ok, err := m.closure([]int32{cl}, []int32{s})
			if err != nil {
				return err
			}
			if ok {
				m.emit(KindSendOnClosed, k, []int32{cl, s}, s < cl)
			} else if err := m.moved(KindSendOnClosed, k, cl, s, closes, sends); err != nil {
				return err
			}
		}
		for _, c2 := range closes {
			if c2 == cl {
				continue
			}
			k := m.key(KindCloseOfClosed, cl, c2)
			if !m.look(k) || m.mustBeforeIncl(c2, cl) || !m.try(k) {
				continue
			}
			ok, err := m.closure([]int32{cl}, []int32{c2})
			if err != nil {
				return err
			}
			if ok {
				m.emit(KindCloseOfClosed, k, []int32{cl, c2}, c2 < cl)
			} else if err := m.moved(KindCloseOfClosed, k, cl, c2, closes, sends); err != nil {
				return err
			}
		}
	}
	return nil
}

// mustBeforeIncl reports whether a must happen before b, b's own
// acquires included: no schedule that runs b stops a's goroutine before a.
func (m *misuse) mustBeforeIncl(a, b int32) bool {
	c := m.e.c
	return m.e.mhb.knows(int32(c.ev[b].G), c.pos[b], int32(c.ev[a].G)) >= c.pos[a]
}

// wgDelta returns the delta of WaitGroup event i (witness.DoneDelta).
func (m *misuse) wgDelta(i int32) (int64, bool) { return witness.DoneDelta(m.e.c.t, int(i)) }

// known reports whether a WaitGroup's counter can be judged from its
// events: every decrement is a Done, and the replay in observed order
// gives at each Add the counter the run recorded. It leaves the events'
// deltas in m.wgd.
func (m *misuse) known(evs []int32) bool {
	t := m.e.c.t
	var n int64
	m.wgd, m.wgAt = m.wgd[:0], m.wgAt[:0]
	for _, i := range evs {
		m.wgAt = append(m.wgAt, [2]int32{int32(m.e.c.ev[i].G), m.e.c.pos[i]})
		if t.Events[i].Op == trace.OpWGWait {
			m.wgd = append(m.wgd, 0)
			continue
		}
		d, ok := m.wgDelta(i)
		if !ok {
			return false
		}
		m.wgd = append(m.wgd, d)
		if t.Events[i].Op == trace.OpWGAdd && t.Header.Format != "std" {
			if _, old := t.Value(int(i)); int64(int32(old>>32)) != n {
				return false
			}
		}
		n += d
	}
	return true
}

// counter returns the group's counter over m.cut, in observed order, and
// whether it stays at zero or above all along. evs are the group's events,
// whose deltas, goroutines and positions known left in m.wgd and m.wgAt.
func (m *misuse) counter(evs []int32) (int64, bool) {
	var n int64
	for j := range evs {
		d := m.wgd[j]
		if d == 0 || m.wgAt[j][1] > m.cut[m.wgAt[j][0]] {
			continue
		}
		if n += d; n < 0 {
			return n, false
		}
	}
	return n, true
}

// lower adds to m.cut the Dones of evs that do not need any of next,
// one at a time, until the counter is at most want; it reports whether
// it got there with the closure still holding none of next. Each Done
// added is a step (a closure), within a quarter of misuseWork and the
// layer's misuseWork: a lowering that would need more gives up, counted
// in m.n.stopped (the misuse row's MisuseStopped), and proves nothing.
func (m *misuse) lower(evs, next []int32, want int64) (bool, error) {
	n, ok := m.counter(evs)
	cost, work := m.lowerCost(len(evs)), int64(0)
	for _, d := range evs {
		if !ok {
			return false, nil
		}
		if n <= want {
			return true, nil
		}
		if m.e.c.ev[d].Op != trace.OpWGDone || m.inCut(d) || slices.Contains(next, d) {
			continue
		}
		skip := false
		for _, x := range next {
			skip = skip || m.mustBeforeIncl(x, d)
		}
		if skip {
			continue
		}
		if work+cost > misuseWork/4 || m.n.work+cost > misuseWork {
			if m.n.stopped == 0 {
				m.n.stoppedAt = next[0]
			}
			m.n.stopped++
			return false, nil
		}
		work += cost
		m.n.work += cost
		m.n.steps++
		copy(m.tmp, m.cut)
		m.e.coneInto(m.cut, int32(m.e.c.ev[d].G), m.e.c.pos[d])
		good, err := m.close(next)
		if err != nil {
			return false, err
		}
		if !good {
			copy(m.cut, m.tmp)
			continue
		}
		n, ok = m.counter(evs)
	}
	return ok && n <= want, nil
}

// waitGroup tries the Dones and the Wait/Add pairs of one WaitGroup.
func (m *misuse) waitGroup(evs []int32) error {
	if !m.known(evs) {
		return nil
	}
	c := m.e.c
	var adds []int32
	add := map[int32]int64{} // an Add's delta
	for j, i := range evs {
		if c.ev[i].Op == trace.OpWGAdd {
			adds = append(adds, i)
			add[i] = m.wgd[j]
		}
	}
	covered := 0 // donesCovered's answer, once a Done passes the filter: 1 yes, -1 no
	for _, d := range evs {
		if c.ev[d].Op != trace.OpWGDone {
			continue
		}
		k := m.key(KindNegativeWaitGroup, d)
		if !m.look(k) {
			continue
		}
		if err := m.e.ctx.Err(); err != nil {
			return err // the filter below reads the group's every event
		}
		// The Adds that every schedule reaching d runs, against the
		// Dones that may run before it.
		var must, may int64
		for _, a := range adds {
			if m.mustBefore(a, d) {
				must += add[a]
			}
		}
		for _, x := range evs {
			if x != d && c.ev[x].Op == trace.OpWGDone && !m.mustBeforeIncl(d, x) {
				may++
			}
		}
		if must-may >= 1 {
			continue
		}
		if covered == 0 {
			covered = -1
			if wgCover && m.donesCovered(evs) { // misuse_wgcover.go
				covered = 1
			}
		}
		if covered == 1 {
			break // no schedule takes the counter below zero
		}
		if !m.try(k) {
			continue
		}
		ok, err := m.closure(nil, []int32{d})
		if err != nil {
			return err
		}
		if ok {
			if ok, err = m.lower(evs, []int32{d}, 0); err != nil {
				return err
			}
		}
		if ok {
			// Observed: the run's own counter was at zero at d (the
			// trace ends there).
			var run int64
			for j, x := range evs {
				if x >= d {
					break
				}
				run += m.wgd[j]
			}
			m.emit(KindNegativeWaitGroup, k, []int32{d}, run > 0)
		}
	}
	for _, w := range evs {
		if c.ev[w].Op != trace.OpWGWait {
			continue
		}
		if err := m.e.ctx.Err(); err != nil {
			return err // a Wait is paired with the group's every Add
		}
		for _, a := range adds {
			k := m.key(KindWaitGroupReuse, w, a)
			if c.ev[a].G == c.ev[w].G || !m.look(k) || m.mustBefore(a, w) || m.mustBefore(w, a) {
				continue
			}
			if m.e.readFromOrdered(a, w) {
				continue // a read one needs saw a write the other follows (cone_readfrom.go)
			}
			if !m.try(k) {
				continue
			}
			next := []int32{w, a}
			ok, err := m.closure(nil, next)
			if err != nil {
				return err
			}
			if ok {
				if ok, err = m.lower(evs, next, 0); err != nil {
					return err
				}
			}
			if ok {
				if n, _ := m.counter(evs); n != 0 {
					continue
				}
				m.emit(KindWaitGroupReuse, k, next, a < w)
			}
		}
	}
	return nil
}

// unlock tries an unlock of an observed lock.
func (m *misuse) unlock(u int32) error {
	c := m.e.c
	k := m.key(KindUnlockOfUnlocked, u)
	if !m.look(k) || !m.try(k) {
		return nil
	}
	ok, err := m.closure(nil, []int32{u})
	if err != nil || !ok {
		return err
	}
	l := c.ev[u].Obj
	var st, obs lockStateP
	for i := range c.ev[:u] {
		ev := &c.ev[i]
		if ev.Obj != l || !ev.Op.IsLock() {
			continue
		}
		if !obs.step(ev.Op) {
			obs.broken = true
		}
		if m.inCut(int32(i)) && !st.step(ev.Op) {
			return nil // the cut itself breaks the lock: no witness here
		}
	}
	if st.step(c.ev[u].Op) {
		return nil // the unlock finds the lock held
	}
	// Observed: the run itself reached u with the lock in a state that
	// forbids it (and was sound until then).
	observed := !obs.broken && !obs.step(c.ev[u].Op)
	m.emit(KindUnlockOfUnlocked, k, []int32{u}, !observed)
	return nil
}

// lockStateP is a lock's serial state (the analysis's own copy of the
// specification; the checker has another).
type lockStateP struct {
	writer  bool
	readers int
	broken  bool
}

func (l *lockStateP) step(op trace.Op) bool {
	switch op {
	case trace.OpLock:
		if l.writer || l.readers > 0 {
			return false
		}
		l.writer = true
	case trace.OpRLock:
		if l.writer {
			return false
		}
		l.readers++
	case trace.OpUnlock:
		if !l.writer {
			return false
		}
		l.writer = false
	case trace.OpRUnlock:
		if l.readers == 0 {
			return false
		}
		l.readers--
	}
	return true
}
