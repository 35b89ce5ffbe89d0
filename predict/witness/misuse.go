// This file implements the checker's side of the misuse kinds: channel,
// WaitGroup and mutex operations that panic (or throw) in the real
// program. Each claim is a feasible schedule (checked as for every kind)
// after which the offending operation is the next step of its goroutine,
// and the state of its primitive, computed here from the primitive's
// serial specification and the schedule alone, makes that step fail:
//
//   - SendOnClosed: Events are a close of channel c and the start of a
//     send on c (chansend's read of the channel, the first thing a send
//     does, before it looks at the closed flag). The close is in the
//     schedule, no other close of c is, and no other send on c starts
//     after the close in the schedule (it would have panicked first).
//   - CloseOfClosed: Events are two closes of c; the first is in the
//     schedule, the second is next.
//   - NegativeWaitGroup: Events are a Done; the group's counter after the
//     schedule is zero or less, so the Done takes it below zero.
//   - WaitGroupReuse: Events are a Wait and an Add with a positive delta,
//     of two goroutines, both next, with the counter zero: the Wait can
//     return at once, before the task the Add counts (sync.WaitGroup's
//     rule: an Add at zero must happen before the Wait).
//   - UnlockOfUnlocked: Events are an Unlock (RUnlock); the lock's state
//     after the schedule does not allow it.
//
// A goroutine whose offending step is next must have seen its observed
// writers to the end (as for deadlocks): only then is its next step
// known.
//
// A send's (or second close's) schedule may reverse critical sections
// (predict's misuse_reorder.go): in the run the sender's section came
// first; the schedule is a prefix of the run that holds the closer's
// whole section, then a Witness holding the sender's events from its
// section's acquire up to the send, replayed against the state after the
// prefix like any Witness. Its reads must see their observed writers too:
// a sender that reads a closed flag in its section, which the closer's
// section set after the read in the run, sees another writer there, and
// the schedule is rejected.
//
// A channel is named by its race address (the address chansend reads and
// closechan writes and releases: one per allocation in a Go recording).
// A WaitGroup's counter is the sum of its deltas: OpWGAdd's value, -1 for
// a Done. It is trusted only for a group whose every decrement is a Done
// (an Add with a negative delta records no delta) and whose replay in the
// observed order gives, at each OpWGAdd, the counter the run recorded
// there (its old state word): a group that was copied over, or whose
// events were lost, fails that and is never judged. An OpWGDone is the
// release made at the start of Done, before its decrement; the decrement
// follows with nothing in between that can block, so the schedule may run
// it at once, and the counter counts it there.

package witness

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/seer-tools/seer/trace"
)

// The misuse kinds.
const (
	SendOnClosed      Kind = "send-on-closed"
	CloseOfClosed     Kind = "close-of-closed"
	NegativeWaitGroup Kind = "negative-waitgroup"
	WaitGroupReuse    Kind = "waitgroup-reuse"
	UnlockOfUnlocked  Kind = "unlock-of-unlocked"
)

// IsMisuse reports whether k is one of the misuse kinds.
func IsMisuse(k Kind) bool {
	switch k {
	case SendOnClosed, CloseOfClosed, NegativeWaitGroup, WaitGroupReuse, UnlockOfUnlocked:
		return true
	}
	return false
}

// nextEvents returns the events of a misuse claim that must be the next
// steps of their goroutines.
func nextEvents(f *Schedule) []int {
	switch f.Kind {
	case SendOnClosed, CloseOfClosed:
		if len(f.Events) == 2 {
			return f.Events[1:]
		}
	case NegativeWaitGroup, UnlockOfUnlocked:
		if len(f.Events) == 1 {
			return f.Events
		}
	case WaitGroupReuse:
		if len(f.Events) == 2 {
			return f.Events
		}
	}
	return nil
}

// SendStart reports whether event i of t starts a send: chansend's read
// of the channel, made before it looks at the closed flag (a select's
// send case makes it too). The channel is the event's address.
func SendStart(t *trace.Trace, i int) bool {
	e := &t.Events[i]
	if e.Op != trace.OpRead {
		return false
	}
	top, ok := t.Stacks.Top(e.Stack)
	return ok && top.Func == "runtime.chansend"
}

// DoneDelta returns the delta of WaitGroup event i: the value of an Add,
// -1 for a Done, and false for an Add with a negative delta (its delta is
// not recorded) or an event that is neither.
func DoneDelta(t *trace.Trace, i int) (int64, bool) {
	e := &t.Events[i]
	switch e.Op {
	case trace.OpWGAdd:
		v, _ := t.Value(i)
		return int64(v), true
	case trace.OpWGDone:
		frames := t.Stack(e.Stack)
		for _, f := range frames {
			if f.Func == "sync.(*WaitGroup).Done" {
				return -1, true
			}
		}
		for _, f := range frames {
			if strings.HasPrefix(f.Func, "sync.") {
				return 0, false // Add(-n): n is not recorded
			}
		}
		// A synthetic trace's Done: one event, no frames of sync.
		return -1, true
	}
	return 0, false
}

// LockKnown reports whether the serial state of lock l can be followed
// from its operations ops (in observed order): its first operation
// acquires (a mutex whose first operation releases was copied while
// held, and its state is that of the copy), and no plain write overwrites
// its words after that (m = sync.Mutex{} resets a mutex in use). The
// misuse kinds judge no other lock.
func LockKnown(t *trace.Trace, l trace.ObjID, ops []int32) bool {
	if len(ops) == 0 {
		return false
	}
	if op := t.Events[ops[0]].Op; op != trace.OpLock && op != trace.OpRLock {
		return false
	}
	o := t.Object(l)
	if o == nil || t.Header.Format == "std" {
		return o != nil
	}
	size := uint64(8) // sync.Mutex
	if o.Kind == trace.ObjRWMutex {
		size = 24
	}
	for i := int(ops[0]) + 1; i < len(t.Events); i++ {
		e := &t.Events[i]
		if e.Op == trace.OpWrite && e.Addr < o.Addr+size && o.Addr < e.End() {
			return false
		}
	}
	return true
}

// misuseIndex lists, once per trace, each channel's closes and send
// starts and each WaitGroup's events, and which groups' counters are
// known.
type misuseIndex struct {
	closes map[uint64][]int32
	sends  map[uint64][]int32
	wg     map[trace.ObjID][]int32
	wgBad  map[trace.ObjID]string // why the counter is not known
}

// misuseCache builds the index once, whoever asks first.
type misuseCache struct {
	once sync.Once
	x    *misuseIndex
}

func (k *Checker) misuse() *misuseIndex {
	k.mis.once.Do(func() { k.mis.x = k.buildMisuse() })
	return k.mis.x
}

func (k *Checker) buildMisuse() *misuseIndex {
	t := k.t
	x := &misuseIndex{closes: map[uint64][]int32{}, sends: map[uint64][]int32{},
		wg: map[trace.ObjID][]int32{}, wgBad: map[trace.ObjID]string{}}
	count := map[trace.ObjID]int64{}
	for i := range t.Events {
		e := &t.Events[i]
		switch e.Op {
		case trace.OpClose:
			x.closes[e.Addr] = append(x.closes[e.Addr], int32(i))
		case trace.OpRead:
			if SendStart(t, i) {
				x.sends[e.Addr] = append(x.sends[e.Addr], int32(i))
			}
		case trace.OpWGAdd, trace.OpWGDone, trace.OpWGWait:
			x.wg[e.Obj] = append(x.wg[e.Obj], int32(i))
			if e.Op == trace.OpWGWait || x.wgBad[e.Obj] != "" {
				continue
			}
			d, ok := DoneDelta(t, i)
			if !ok {
				x.wgBad[e.Obj] = fmt.Sprintf("event %d decrements it by an unrecorded delta", i)
				continue
			}
			if e.Op == trace.OpWGAdd {
				if _, old := t.Value(i); t.Header.Format != "std" && int64(int32(old>>32)) != count[e.Obj] {
					x.wgBad[e.Obj] = fmt.Sprintf("at event %d the run's counter was %d, its events say %d", i, int32(old>>32), count[e.Obj])
					continue
				}
			}
			count[e.Obj] += d
		}
	}
	return x
}

// inSchedule reports whether event i runs in the schedule.
func (s *fstate) inSchedule(i int32) bool {
	if s.inP(i) {
		return true
	}
	return slices.Contains(s.f.Witness, int(i))
}

// rank orders the schedule's events: P's in observed order, then
// Witness's; events not in the schedule rank last.
func (s *fstate) rank(i int32) int {
	if s.inP(i) {
		return int(i) - s.k.n
	}
	if p := slices.Index(s.f.Witness, int(i)); p >= 0 {
		return p
	}
	return s.k.n
}

// checkNext checks that each of evs is the next step of its goroutine
// after the schedule, no two of the same goroutine.
func (s *fstate) checkNext(evs []int) error {
	k, t := s.k, s.k.t
	seen := map[trace.GoID]bool{}
	for _, i := range evs {
		g := t.Events[i].G
		if int(g) <= 0 || int(g) >= k.ng {
			return fmt.Errorf("event %d has no goroutine", i)
		}
		if seen[g] {
			return fmt.Errorf("goroutine %d has two next steps", g)
		}
		seen[g] = true
		ran := s.b[g]
		for _, j := range s.f.Witness {
			if t.Events[j].G == g {
				ran++
			}
		}
		if ran != k.posOf[i] {
			return fmt.Errorf("goroutine %d's next event after the schedule is not %d", g, i)
		}
	}
	return nil
}

// checkMisuse checks that the schedule ends with the misuse f claims.
func (s *fstate) checkMisuse() error {
	f := s.f
	next := nextEvents(f)
	if next == nil {
		return fmt.Errorf("%s: wrong number of events %v", f.Kind, f.Events)
	}
	if err := s.checkNext(next); err != nil {
		return err
	}
	switch f.Kind {
	case SendOnClosed, CloseOfClosed:
		return s.checkClosed()
	case NegativeWaitGroup, WaitGroupReuse:
		return s.checkCounter()
	case UnlockOfUnlocked:
		return s.checkUnlock()
	}
	return fmt.Errorf("unknown kind %q", f.Kind)
}

// checkClosed checks a send on (or a close of) a closed channel: the
// close is in the schedule, the channel's other closes are not, and no
// send on it starts after the close.
func (s *fstate) checkClosed() error {
	k, t, f := s.k, s.k.t, s.f
	c, op := f.Events[0], f.Events[1]
	ce, oe := &t.Events[c], &t.Events[op]
	if ce.Op != trace.OpClose {
		return fmt.Errorf("event %d is not a close", c)
	}
	if f.Kind == SendOnClosed && !SendStart(t, op) {
		return fmt.Errorf("event %d does not start a send", op)
	}
	if f.Kind == CloseOfClosed && oe.Op != trace.OpClose {
		return fmt.Errorf("event %d is not a close", op)
	}
	if oe.Addr != ce.Addr {
		return fmt.Errorf("events %d and %d are on different channels", c, op)
	}
	if !s.inSchedule(int32(c)) {
		return fmt.Errorf("close %d does not run in the schedule", c)
	}
	x := k.misuse()
	for _, j := range x.closes[ce.Addr] {
		if int(j) != c && s.inSchedule(j) {
			return fmt.Errorf("the schedule closes the channel twice: %d and %d", c, j)
		}
	}
	rc := s.rank(int32(c))
	for _, j := range x.sends[ce.Addr] {
		if int(j) != op && s.inSchedule(j) && s.rank(j) > rc {
			return fmt.Errorf("send %d starts after close %d: the schedule panics there first", j, c)
		}
	}
	return nil
}

// counter returns WaitGroup w's counter after the schedule, checking that
// it is known and never negative on the way (the schedule would have
// panicked there).
func (s *fstate) counter(w trace.ObjID) (int64, error) {
	k, t := s.k, s.k.t
	x := k.misuse()
	if why := x.wgBad[w]; why != "" {
		return 0, fmt.Errorf("the counter of WaitGroup %d is not known: %s", w, why)
	}
	var evs []int32
	for _, i := range x.wg[w] {
		if s.inSchedule(i) && t.Events[i].Op != trace.OpWGWait {
			evs = append(evs, i)
		}
	}
	slices.SortFunc(evs, func(a, b int32) int { return s.rank(a) - s.rank(b) })
	var n int64
	for _, i := range evs {
		d, ok := DoneDelta(t, int(i))
		if !ok {
			return 0, fmt.Errorf("event %d: delta not known", i)
		}
		if n += d; n < 0 {
			return 0, fmt.Errorf("the counter goes below zero at event %d: the schedule panics there first", i)
		}
	}
	return n, nil
}

// checkCounter checks a negative counter or an Add at zero concurrent
// with a Wait.
func (s *fstate) checkCounter() error {
	t, f := s.k.t, s.f
	e := &t.Events[f.Events[0]]
	switch f.Kind {
	case NegativeWaitGroup:
		if d, ok := DoneDelta(t, f.Events[0]); e.Op != trace.OpWGDone || !ok || d >= 0 {
			return fmt.Errorf("event %d is not a Done", f.Events[0])
		}
	case WaitGroupReuse:
		a := &t.Events[f.Events[1]]
		if e.Op != trace.OpWGWait {
			return fmt.Errorf("event %d is not a Wait", f.Events[0])
		}
		if d, _ := DoneDelta(t, f.Events[1]); a.Op != trace.OpWGAdd || d <= 0 {
			return fmt.Errorf("event %d is not an Add with a positive delta", f.Events[1])
		}
		if a.Obj != e.Obj {
			return fmt.Errorf("events %v are on different WaitGroups", f.Events)
		}
	}
	n, err := s.counter(e.Obj)
	if err != nil {
		return err
	}
	switch {
	case f.Kind == NegativeWaitGroup && n > 0:
		return fmt.Errorf("the counter is %d before Done %d: it does not go below zero", n, f.Events[0])
	case f.Kind == WaitGroupReuse && n != 0:
		return fmt.Errorf("the counter is %d, not zero, when Wait %d and Add %d are next", n, f.Events[0], f.Events[1])
	}
	return nil
}

// checkUnlock checks an unlock that the lock's state after the schedule
// does not allow.
func (s *fstate) checkUnlock() error {
	k, t := s.k, s.k.t
	u := s.f.Events[0]
	e := &t.Events[u]
	if e.Op != trace.OpUnlock && e.Op != trace.OpRUnlock {
		return fmt.Errorf("event %d is not an unlock", u)
	}
	if !LockKnown(t, e.Obj, k.lockOps[e.Obj]) {
		return fmt.Errorf("the state of lock %d is not known: its run starts with a release or overwrites it", e.Obj)
	}
	var evs []int32
	for _, i := range k.lockOps[e.Obj] {
		if s.inSchedule(i) {
			evs = append(evs, i)
		}
	}
	slices.SortFunc(evs, func(a, b int32) int { return s.rank(a) - s.rank(b) })
	var st lockState
	for _, i := range evs {
		if !st.step(t.Events[i].Op) {
			return fmt.Errorf("lock operation %d: %s", i, lockError(t.Events[i].Op))
		}
	}
	if st.step(e.Op) {
		return errors.New("the lock's state after the schedule allows the unlock")
	}
	return nil
}
