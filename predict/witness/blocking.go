// This file implements the check of a blocking claim (Kind Deadlock with
// an event that is not a lock acquire): a schedule at whose end every
// goroutine that can still act is blocked for ever, so that the test
// never returns.
//
// The claim lists, in Schedule.Events, the next operation of every
// goroutine that has not ended at the schedule's end, and the checker
// re-checks, against the primitives' serial specifications, that none of
// them can go on whatever the others do:
//
//   - each listed event is its goroutine's next event after the schedule
//     (every read of every goroutine in the schedule seeing its observed
//     writer, so that the next event is known: the maximal causal model
//     says nothing of what a goroutine does after a read that saw
//     another value);
//   - an acquire (Lock, RLock; not a TryLock) waits for a lock that some
//     goroutine holds in a conflicting mode at the end of the schedule,
//     or an RLock waits behind a listed Lock of its lock that waits
//     (sync.RWMutex prefers writers: rwmutex.go);
//   - a Cond.Wait (its wake-up event, OpCondWait, is next) registered in
//     the schedule (its goroutine's last act is Wait's unlock of the
//     Cond's lock, then only reads of the lock's word: Unlock's atomic,
//     which the trace keeps as a read) after every Signal and Broadcast
//     of the Cond in the
//     schedule: each of those comes before the acquire that began the
//     critical section Wait was called in, and so does the signaller's
//     next event (the annotation precedes the runtime's wake-up; Wait
//     takes its ticket inside that section; Go's Cond has no spurious
//     wake-ups, and a Signal wakes only a waiter already registered);
//   - a WaitGroup.Wait finds the group's counter above zero (the deltas
//     of its Adds in the schedule less one per Done; every decrement in
//     the run must be a Done);
//   - a send or receive (not in a select: another case might be ready)
//     is the first event of its operation, on a channel the run shows to
//     be unbuffered, that the schedule has not closed, and no listed
//     event is the matching receive or send: an unbuffered operation
//     completes only with a partner, and every goroutine that could be
//     one is listed as blocked elsewhere, has ended or does not exist; a
//     receive may also be on a channel that no goroutine of the run ever
//     sends on (a done channel), whatever its capacity, since its buffer
//     is empty and only a close would end the wait;
//   - every goroutine not listed has ended in the schedule, or does not
//     exist yet (its go statement is not in the schedule) or is the
//     testing harness's or the runtime's own (no test owns it, or the
//     runtime created it), and then in the whole run never operates on
//     an object that a listed event waits on (a harness goroutine may go
//     on and create the goroutines that do not exist yet).
//
// A channel is unbuffered if its first two synchronisation events (in
// observed order, which is exact per object) are a release by one
// goroutine and an acquire by another: the race runtime's rendezvous
// annotation (runtime.racesync), which only unbuffered channels make;
// the operations of a buffered one begin with an acquire
// (racenotify, zero-sized elements) or are single release-acquires. On an
// unbuffered channel that is not closed, every send and receive is two
// events of its goroutine in a row.
//
// A send or receive on a buffered channel (every operation of it one
// release-acquire of a slot, OneEventOps) is judged by the ring model of
// bufchan.go (BufChans): the schedule's operations on the channel must
// be the run's first ones, and then a receive is blocked when the buffer
// is empty after the schedule (as many receives as sends ran), a send
// when it is full (the sends less the receives are the capacity that
// the run's sends show by wrapping round the slots), and no close of
// the channel is in the schedule.
//
// A select's event is claimed blocked only when the caller lists its
// other cases (select.go).
//
// What is not claimed blocked: other selects, non-blocking operations,
// sends on buffered channels whose capacity the run does not show, and
// operations on channels the ring model does not judge; a schedule that
// leaves such a goroutine waiting is rejected.

package witness

import (
	"fmt"
	"strings"

	"github.com/seer-tools/seer/trace"
)

// blockingClaim reports whether a Deadlock schedule is a blocking claim
// (checked here) rather than a lock-order cycle (checkDeadlock): some
// event is not a lock acquire.
func (k *Checker) blockingClaim(f *Schedule) bool {
	if f.Kind != Deadlock && f.Kind != StuckLeak { // leak_selectstuck.go
		return false
	}
	for _, i := range f.Events {
		if i >= 0 && i < k.n {
			if op := k.t.Events[i].Op; op != trace.OpLock && op != trace.OpRLock {
				return true
			}
		}
	}
	return sameLockWaits(k.t, f.Events) // a read lock behind a writer (rwmutex.go)
}

// checkBlocking checks a blocking claim (see the file comment).
func (s *fstate) checkBlocking() error {
	k, t, f := s.k, s.k.t, s.f
	// ran[g]: goroutine g's events in the schedule (a prefix of its own).
	ran := make([]int32, k.ng)
	copy(ran, s.b)
	for _, i := range f.Witness {
		if g := t.Events[i].G; int(g) > 0 && int(g) < k.ng {
			ran[g]++
		}
	}
	next := func(g trace.GoID) int32 { // index of g's next event, or -1
		if n := ran[g]; n < k.gOff[g+1]-k.gOff[g] {
			return k.gEv[k.gOff[g]+n]
		}
		return -1
	}
	listed := make(map[trace.GoID]int32)
	for _, i := range f.Events {
		e := &t.Events[i]
		if int(e.G) <= 0 || int(e.G) >= k.ng {
			return fmt.Errorf("event %d has no goroutine", i)
		}
		if _, dup := listed[e.G]; dup {
			return fmt.Errorf("goroutine %d listed twice", e.G)
		}
		if next(e.G) != int32(i) {
			return fmt.Errorf("goroutine %d's next event after the schedule is not %d", e.G, i)
		}
		listed[e.G] = int32(i)
	}
	waited := make(map[trace.ObjID]bool)
	for _, i := range f.Events {
		if err := s.blocked(int32(i), ran, next, listed); err != nil {
			return err
		}
		waited[t.Events[i].Obj] = true
	}
	// Every other goroutine has ended, does not exist, or is the
	// harness's or the runtime's and keeps off the objects waited on.
	for g := 1; g < k.ng; g++ {
		gid := trace.GoID(g)
		if _, ok := listed[gid]; ok {
			continue
		}
		n := ran[g]
		if n > 0 && t.Events[k.gEv[k.gOff[g]+n-1]].Op == trace.OpEnd {
			continue
		}
		// A goroutine whose go statement is not in the schedule may still
		// be created by a harness goroutine: like those, it must keep off
		// the objects waited on.
		unborn := n == 0 && (k.goOf[g] < 0 || ran[t.Events[k.goOf[g]].G] <= k.posOf[k.goOf[g]])
		if !unborn && !k.harness(gid) && !s.returned(gid, n) { // leak_selectstuck.go
			if nx := next(gid); nx >= 0 {
				return fmt.Errorf("goroutine %d can go on: its next event %d is not listed as blocked", g, nx)
			}
			return fmt.Errorf("goroutine %d has not ended, and the run does not say what it waits for", g)
		}
		for _, x := range k.gEv[k.gOff[g]+s.since(gid, n) : k.gOff[g+1]] {
			if e := &t.Events[x]; e.Obj != 0 && waited[e.Obj] && !e.Op.IsAccess() {
				return fmt.Errorf("goroutine %d (not the test's, or not yet created) operates on object %d that a blocked goroutine waits on (event %d)", g, e.Obj, x)
			}
		}
	}
	return nil
}

// harness reports whether goroutine g belongs to no test or was created
// by the runtime.
func (k *Checker) harness(g trace.GoID) bool {
	gr := k.t.Goroutine(g)
	if gr == nil {
		return false
	}
	if gr.Test == "" {
		return true
	}
	create := k.t.Stack(gr.Create)
	return len(create) > 0 && strings.HasPrefix(create[0].Func, "runtime.")
}

// blocked checks that event i, its goroutine's next, cannot happen at
// the end of the schedule.
func (s *fstate) blocked(i int32, ran []int32, next func(trace.GoID) int32, listed map[trace.GoID]int32) error {
	k, t := s.k, s.k.t
	e := &t.Events[i]
	for _, fr := range t.Stack(e.Stack) {
		switch {
		case strings.HasSuffix(fr.Func, ".TryLock"), strings.HasSuffix(fr.Func, ".TryRLock"):
			return fmt.Errorf("event %d is a TryLock, which never blocks", i)
		case fr.Func == "runtime.selectnbsend", fr.Func == "runtime.selectnbrecv":
			return fmt.Errorf("event %d is in a select, whose other cases may be ready", i)
		}
	}
	if inSelectgo(t, e) {
		// Its own case is checked below as a plain operation.
		if err := s.selectStuck(i, ran, listed); err != nil { // select.go
			return err
		}
	}
	switch e.Op {
	case trace.OpLock, trace.OpRLock:
		if k.lockBad[e.Obj] {
			return fmt.Errorf("event %d acquires a lock whose run breaks its specification", i)
		}
		for g := 1; g < k.ng; g++ {
			nx := next(trace.GoID(g))
			if nx < 0 {
				nx = int32(k.n)
			}
			if trace.GoID(g) != e.G && k.holds(trace.GoID(g), nx, e.Obj, e.Op == trace.OpRLock) {
				return nil
			}
		}
		if k.writerWaiting(i, next, listed) { // rwmutex.go
			return nil
		}
		return fmt.Errorf("acquire %d: no goroutine holds its lock in a conflicting mode", i)
	case trace.OpSend, trace.OpRecv:
		if e.Op == trace.OpRecv && k.neverSent(e.Obj) {
			// Empty whatever its capacity: only a close ends the wait.
		} else if bc := k.bufChan(e.Obj); bc != nil {
			// A buffered channel (bufchan.go): a send waits on a full
			// buffer, a receive on an empty one.
			if why := bc.Blocked(e.Op, k.inSchedule(ran), k.orphans); why != "" {
				return fmt.Errorf("event %d: %s", i, why)
			}
		} else if !k.unbuffered(e.Obj) {
			return fmt.Errorf("event %d: the run does not show channel %d to be unbuffered", i, e.Obj)
		} else if !k.opStart(i) {
			return fmt.Errorf("event %d is not the first event of its channel operation", i)
		}
		for _, x := range k.chanEvents(e.Obj) {
			if t.Events[x].Op == trace.OpClose && ran[t.Events[x].G] > k.posOf[x] {
				return fmt.Errorf("event %d: the schedule closes its channel (event %d)", i, x)
			}
		}
		want := trace.OpRecv
		if e.Op == trace.OpRecv {
			want = trace.OpSend
		}
		for _, j := range listed {
			if o := &t.Events[j]; o.Op == want && (o.Obj == e.Obj || k.bufChan(o.Obj) != nil && k.bufChan(o.Obj) == k.bufChan(e.Obj)) {
				return fmt.Errorf("event %d: event %d is its partner, ready", i, j)
			}
		}
		return nil
	case trace.OpCondWait:
		return s.condBlocked(i, ran)
	case trace.OpWGWait:
		n, ok := k.wgCounter(e.Obj, ran)
		if !ok {
			return fmt.Errorf("event %d: the run does not give every delta of its WaitGroup", i)
		}
		if n <= 0 {
			return fmt.Errorf("event %d: its WaitGroup's counter is %d at the end of the schedule", i, n)
		}
		return nil
	}
	return fmt.Errorf("event %d (%s) is not an operation known to block", i, e.Op)
}

// wgCounter returns WaitGroup w's counter after the schedule (ran:
// each goroutine's events in it): the deltas of its Adds less one per
// Done, and false if some decrement in the run is not a Done (an
// Add(-n), whose n the run does not record).
func (k *Checker) wgCounter(w trace.ObjID, ran []int32) (int64, bool) {
	t := k.t
	var n int64
	for i := range t.Events {
		e := &t.Events[i]
		if e.Obj != w || (e.Op != trace.OpWGAdd && e.Op != trace.OpWGDone) {
			continue
		}
		if e.Op == trace.OpWGDone && !hasFrame(t, e, "sync.(*WaitGroup).Done") {
			return 0, false
		}
		if int(e.G) <= 0 || int(e.G) >= k.ng || ran[e.G] <= k.posOf[i] {
			continue // not in the schedule
		}
		if e.Op == trace.OpWGAdd {
			v, _ := t.Value(i)
			n += int64(v)
		} else {
			n--
		}
	}
	return n, true
}

func hasFrame(t *trace.Trace, e *trace.Event, fn string) bool {
	for _, f := range t.Stack(e.Stack) {
		if f.Func == fn {
			return true
		}
	}
	return false
}

// chanEvents returns the synchronisation events on channel c, in order
// (computed once per checker).
func (k *Checker) chanEvents(c trace.ObjID) []int32 {
	k.chansOnce.Do(func() {
		k.chans = make(map[trace.ObjID][]int32)
		for i := range k.t.Events {
			e := &k.t.Events[i]
			if e.Obj != 0 && (e.Op == trace.OpSend || e.Op == trace.OpRecv || e.Op == trace.OpClose) && e.Sync != trace.SyncNone {
				k.chans[e.Obj] = append(k.chans[e.Obj], int32(i))
			}
		}
	})
	return k.chans[c]
}

// neverSent reports whether no goroutine of the run sends on channel c
// (it is only closed, as done channels are).
func (k *Checker) neverSent(c trace.ObjID) bool {
	for _, x := range k.chanEvents(c) {
		if k.t.Events[x].Op == trace.OpSend {
			return false
		}
	}
	return true
}

// OneEventOps reports whether every send and receive among a channel's
// synchronisation events evs is a single release-acquire of a buffer
// slot, as the race runtime annotates each operation on a buffered
// channel of non-empty elements (runtime.racenotify, for the buffer and
// for a hand-over alike). Such a channel's buffer holds its sends less
// its receives.
func OneEventOps(t *trace.Trace, evs []int32) bool {
	n := 0
	for _, x := range evs {
		switch e := &t.Events[x]; e.Op {
		case trace.OpSend, trace.OpRecv:
			if e.Sync != trace.SyncReleaseAcquire {
				return false
			}
			n++
		}
	}
	return n > 0
}

// bufChan returns the buffered channel whose slot object c is, or nil
// if the model does not judge it (bufchan.go; computed once per checker).
func (k *Checker) bufChan(c trace.ObjID) *BufChan {
	k.bufsOnce.Do(func() {
		k.chanEvents(0)
		k.bufs, k.orphans = BufChans(k.t, k.chans)
	})
	return k.bufs[c]
}

// inSchedule returns whether an event is in the schedule (ran: each
// goroutine's events in it).
func (k *Checker) inSchedule(ran []int32) func(x int32) bool {
	return func(x int32) bool {
		g := k.t.Events[x].G
		return int(g) > 0 && int(g) < k.ng && ran[g] > k.posOf[x]
	}
}

// unbuffered reports whether the run shows channel c to be unbuffered:
// its first two events are a release by one goroutine and an acquire by
// another, sends or receives (see the file comment).
func (k *Checker) unbuffered(c trace.ObjID) bool {
	evs := k.chanEvents(c)
	if len(evs) < 2 {
		return false
	}
	a, b := &k.t.Events[evs[0]], &k.t.Events[evs[1]]
	return a.Sync == trace.SyncRelease && b.Sync == trace.SyncAcquire && a.G != b.G &&
		a.Op != trace.OpClose && b.Op != trace.OpClose
}

// opStart reports whether event i, on an unbuffered channel, begins its
// operation: an even number of its goroutine's events on the channel
// come right before it.
func (k *Checker) opStart(i int32) bool {
	e := &k.t.Events[i]
	g := e.G
	run := 0
	for p := k.posOf[i] - 1; p >= 0; p-- {
		o := &k.t.Events[k.gEv[k.gOff[g]+p]]
		if o.Obj != e.Obj || (o.Op != trace.OpSend && o.Op != trace.OpRecv) {
			break
		}
		run++
	}
	return run%2 == 0
}

// checkLeak checks an observed leak: each event is the last of its
// goroutine in the run with a frame of the user's code, no event of the
// goroutine ends it, the goroutine belongs to a test, and the schedule
// runs all of its events.
func (s *fstate) checkLeak() error {
	k, t, f := s.k, s.k.t, s.f
	if len(f.Events) == 0 {
		return fmt.Errorf("leak needs a goroutine's last event")
	}
	ran := make(map[trace.GoID]int32)
	for _, i := range f.Events {
		ran[t.Events[i].G] = 0
	}
	for _, i := range f.Witness {
		if g := t.Events[i].G; int(g) > 0 {
			if n, ok := ran[g]; ok {
				ran[g] = n + 1
			}
		}
	}
	for _, i := range f.Events {
		e := &t.Events[i]
		g := e.G
		if int(g) <= 0 || int(g) >= k.ng {
			return fmt.Errorf("event %d has no goroutine", i)
		}
		if k.harness(g) {
			return fmt.Errorf("goroutine %d belongs to no test, or the runtime made it", g)
		}
		total := k.gOff[g+1] - k.gOff[g]
		for p := k.posOf[i]; p < total; p++ {
			x := k.gEv[k.gOff[g]+p]
			o := &t.Events[x]
			if o.Op == trace.OpEnd {
				return fmt.Errorf("goroutine %d ended", g)
			}
			if _, user := trace.UserFrame(t.Stack(o.Stack), t.Header.GOROOT); user && p > k.posOf[i] {
				return fmt.Errorf("event %d is not goroutine %d's last in the user's code (%d is)", i, g, x)
			}
		}
		if s.b[g]+ran[g] != total {
			return fmt.Errorf("the schedule does not run all of goroutine %d's events", g)
		}
	}
	return nil
}

// condBlocked checks that Cond.Wait wake-up i cannot come (see the file
// comment): its goroutine registered after every signal and broadcast
// of the Cond in the schedule.
func (s *fstate) condBlocked(i int32, ran []int32) error {
	k, t := s.k, s.k.t
	e := &t.Events[i]
	g := e.G
	p := k.posOf[i]
	if p == 0 {
		return fmt.Errorf("event %d: no Cond.Wait before it", i)
	}
	// Wait's unlock, then only reads of the lock's word (Unlock's atomic).
	q := p - 1
	for ; q > 0 && t.Events[k.gEv[k.gOff[g]+q]].Op == trace.OpRead; q-- {
	}
	u := k.gEv[k.gOff[g]+q]
	if ue := &t.Events[u]; ue.Op != trace.OpUnlock || !hasFrame(t, ue, "sync.(*Cond).Wait") {
		return fmt.Errorf("event %d: its goroutine's last act is not Cond.Wait's unlock", i)
	}
	for r := q + 1; r < p; r++ {
		if x := k.gEv[k.gOff[g]+r]; t.Events[x].Addr != t.Events[u].Addr {
			return fmt.Errorf("event %d: its goroutine reads other memory (event %d) after Cond.Wait's unlock", i, x)
		}
	}
	a := int32(-1) // the acquire that began the section
	for q := q - 1; q >= 0; q-- {
		x := k.gEv[k.gOff[g]+q]
		if o := &t.Events[x]; o.Obj == t.Events[u].Obj && o.Op.IsLock() {
			if o.Op == trace.OpLock {
				a = x
			}
			break
		}
	}
	if a < 0 {
		return fmt.Errorf("event %d: the run does not show the lock taken before Cond.Wait", i)
	}
	// Rank in the schedule: the prefix in observed order, then Witness.
	at := make(map[int32]int, len(s.f.Witness))
	for n, x := range s.f.Witness {
		at[int32(x)] = n
	}
	rank := func(x int32) int {
		if n, ok := at[x]; ok {
			return k.n + n
		}
		return int(x)
	}
	k.condsOnce.Do(func() {
		k.conds = make(map[trace.ObjID][]int32)
		for x := range t.Events {
			if o := &t.Events[x]; o.Op == trace.OpCondSignal || o.Op == trace.OpCondBroadcast {
				k.conds[o.Obj] = append(k.conds[o.Obj], int32(x))
			}
		}
	})
	for _, x := range k.conds[e.Obj] {
		h := t.Events[x].G
		if int(h) <= 0 || int(h) >= k.ng || ran[h] <= k.posOf[x] {
			continue // not in the schedule
		}
		if rank(x) > rank(a) {
			return fmt.Errorf("event %d: signal %d comes after its goroutine took the lock to wait", i, x)
		}
		// The runtime wakes waiters after the annotation: the signaller's
		// next event must be in the schedule before a too.
		if ran[h] <= k.posOf[x]+1 || rank(k.gEv[k.gOff[h]+k.posOf[x]+1]) > rank(a) {
			return fmt.Errorf("event %d: signal %d's goroutine does not go on before its goroutine took the lock to wait", i, x)
		}
	}
	return nil
}
