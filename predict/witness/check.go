// This file implements the witness checker: an independent re-check of
// every reported schedule against the serial specifications, following
// Şerbănuţă, Chen and Roşu, "Maximal Causal Models", Theorem 2: a schedule
// is feasible iff it is a consistent extended interleaving prefix of the
// observed trace. See doc.go for what the checker trusts.
//
// Checked: every goroutine's events form a prefix of its observed events;
// each read sees, byte by byte, the same writer as in the observed run,
// except a goroutine's last event (its value may differ) and the reads
// that relevance.go relaxes; locks are exclusive (shared mode excepted);
// each non-lock synchronisation that acquires sees the same release (and
// release-merges) as observed; a goroutine starts after its go statement;
// a join comes after all the joined goroutine's observed events; and the
// schedule shows the finding (a race's two accesses last and adjacent; an
// atomicity violation's remote access between its local accesses, the
// second of which ends the schedule; a deadlock's goroutines each stopped
// just before acquiring a lock that another of them holds).
//
// A schedule is a prefix P of the observed run (Schedule.Prefix: the
// events below Prefix, less each goroutine's events from its limit on)
// followed by Witness. Replaying P event by event would cost the length
// of the trace per finding; instead the checker uses that the observed run
// is consistent. P is the observed run up to Prefix less a set X of
// per-goroutine suffixes, and an event of P sees in P what it saw in the
// run unless what it saw is in X: a read whose writer is in X, an acquire
// whose release is, a goroutine whose go statement is, a join whose
// goroutine's events are, or a lock whose operations in X leave it in
// another state. So the checker walks X, not P, and checks the dependents
// of each of its events (indices built once per trace); it finds the
// state after P, where Witness starts, from per-location and per-address
// histories. The work per finding is proportional to X, the witness and
// the number of goroutines, not to the trace. index.go builds the
// indices once per trace; prefix.go checks P and replays Witness.

package witness

import (
	"errors"
	"fmt"
	"math"

	"github.com/seer-tools/seer/trace"
)

// Kind is the property a schedule claims to show.
type Kind string

const (
	// Race: the schedule ends with two conflicting accesses of different
	// goroutines, adjacent.
	Race Kind = "race"
	// Atomicity: the schedule runs a remote access between two accesses
	// of one transaction of another goroutine, and ends with the second.
	Atomicity Kind = "atomicity"
	// Deadlock: the schedule stops goroutines of a cycle, each just
	// before an acquire (its next observed event) of a lock that another
	// of them holds in a conflicting mode at the schedule's end, so that
	// none of them can go on. Their reads must all see their observed
	// writers, the last included: a goroutine's next event is known only
	// then.
	Deadlock Kind = "deadlock"
	// Leak: goroutines that the run itself left blocked for ever: each
	// event is the last of a test's goroutine that never ended, and the
	// schedule (the recorded run) runs all of its events (blocking.go).
	Leak Kind = "leak"
)

// A Schedule is what an analysis claims: a schedule of the program that
// recorded a trace, and the property it shows. The schedule is the
// observed run's events below Prefix, less each goroutine's events from
// its limit on (its least event in Witness or Stops), followed by Witness.
type Schedule struct {
	Kind    Kind
	Events  []int // Race: the two accesses; Atomicity: local, remote, local; Deadlock: the blocked acquires
	Prefix  int
	Stops   []int
	Witness []int
}

// Limits returns every goroutine's limit: the least index of its events
// in s.Witness and s.Stops, or MaxInt.
func (s *Schedule) Limits(t *trace.Trace) []int {
	limit := make([]int, len(t.Goroutines))
	for g := range limit {
		limit[g] = math.MaxInt
	}
	for _, list := range [2][]int{s.Witness, s.Stops} {
		for _, i := range list {
			if i >= 0 && i < len(t.Events) {
				if g := t.Events[i].G; int(g) >= 0 && int(g) < len(limit) && i < limit[g] {
					limit[g] = i
				}
			}
		}
	}
	return limit
}

// Expand returns the whole schedule as trace indices, in order.
func (s *Schedule) Expand(t *trace.Trace) []int {
	if s.Prefix <= 0 {
		return append([]int(nil), s.Witness...)
	}
	limit := s.Limits(t)
	n := min(s.Prefix, len(t.Events))
	out := make([]int, 0, len(s.Witness)+n/4)
	for i := 0; i < n; i++ {
		if g := t.Events[i].G; g > 0 && int(g) < len(limit) && i < limit[g] {
			out = append(out, i)
		}
	}
	return append(out, s.Witness...)
}

func chkReads(op trace.Op) bool {
	return op == trace.OpRead || op == trace.OpAtomicLoad || op == trace.OpOnceCheck || op == trace.OpAtomicRMW
}

func chkWrites(op trace.Op) bool {
	return op == trace.OpWrite || op == trace.OpAtomicStore || op == trace.OpOnceDone || op == trace.OpAtomicRMW
}

func chkMem(e *trace.Event) bool { return e.Size > 0 && (e.Op.IsAccess() || e.Op.IsAtomic()) }

// chkSync reports whether e is synchronisation kept as observed (not a
// lock, not an atomic, not a goroutine life-cycle event).
func chkSync(e *trace.Event) bool {
	if e.Sync == trace.SyncNone || e.Op.IsLock() || e.Op.IsAtomic() || e.Op.IsAccess() {
		return false
	}
	switch e.Op {
	case trace.OpGo, trace.OpStart, trace.OpEnd, trace.OpJoin, trace.OpTxBegin, trace.OpTxEnd:
		return false
	}
	return true
}

// syncState is what an acquire sees: the latest release and the merges
// since.
type syncState struct {
	rel    int
	merges []int
}

func (s syncState) equal(o syncState) bool {
	if s.rel != o.rel || len(s.merges) != len(o.merges) {
		return false
	}
	seen := make(map[int]bool, len(s.merges))
	for _, m := range s.merges {
		seen[m] = true
	}
	for _, m := range o.merges {
		if !seen[m] {
			return false
		}
	}
	return true
}

func (s *syncState) apply(e *trace.Event, i int) {
	switch e.Sync {
	case trace.SyncRelease, trace.SyncReleaseAcquire:
		s.rel, s.merges = i, nil
	case trace.SyncReleaseMerge:
		s.merges = append(s.merges, i)
	}
}

// lockState is a lock's serial state: held exclusively, or by readers.
type lockState struct {
	writer  bool
	readers int32
}

// step applies lock operation op; false if the specification forbids it.
func (l *lockState) step(op trace.Op) bool {
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

func lockError(op trace.Op) string {
	switch op {
	case trace.OpLock:
		return "acquired while held"
	case trace.OpRLock:
		return "read lock acquired while write-held"
	case trace.OpUnlock:
		return "unlock of a lock not held"
	}
	return "read unlock of a lock not read-held"
}

// fstate is the checker's view of one finding's schedule.
type fstate struct {
	k      *Checker
	f      *Schedule
	prefix int32
	b      []int32                 // per goroutine: how many of its events P holds
	lastOf []int32                 // per goroutine: its last event in the schedule, or -1
	xlocks map[trace.ObjID][]int32 // lock operations of X, in order

	badNext map[trace.ObjID]int // per lock whose run breaks its specification: its next operation's index in lockOps
}

// inP reports whether event i is in the prefix P.
func (s *fstate) inP(i int32) bool {
	g := s.k.t.Events[i].G
	return i < s.prefix && int(g) > 0 && int(g) < s.k.ng && s.k.posOf[i] < s.b[g]
}

// exempt reports whether read i may see another writer: it is its
// goroutine's last event in the schedule, or a relaxed plain read.
func (s *fstate) exempt(i int32) bool {
	e := &s.k.t.Events[i]
	return s.lastOf[e.G] == i || (e.Op == trace.OpRead && s.k.relaxed != nil && s.k.relaxed(i))
}

// Check checks that f is feasible for the program that recorded the
// trace and shows the property f claims. A nil error means it does.
func (k *Checker) Check(f *Schedule) error {
	s, err := k.feasible(f)
	if err != nil {
		return err
	}
	return k.checkProperty(s)
}

// Feasible checks that f's schedule is a consistent extended interleaving
// prefix of the run, whatever it shows.
func (k *Checker) Feasible(f *Schedule) error {
	_, err := k.feasible(f)
	return err
}

func (k *Checker) feasible(f *Schedule) (*fstate, error) {
	t := k.t
	n, ng := k.n, k.ng
	if len(f.Witness) == 0 {
		return nil, errors.New("empty witness")
	}
	for _, list := range [3][]int{f.Events, f.Witness, f.Stops} {
		for _, i := range list {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("event %d out of range", i)
			}
		}
	}
	if f.Prefix < 0 || f.Prefix > n {
		return nil, fmt.Errorf("prefix %d out of range", f.Prefix)
	}
	seen := make(map[int]bool, len(f.Witness))
	s := &fstate{k: k, f: f, prefix: int32(f.Prefix), b: make([]int32, ng), lastOf: make([]int32, ng)}
	for g := range s.lastOf {
		s.lastOf[g] = -1
	}
	for _, i := range f.Witness {
		if seen[i] {
			return nil, fmt.Errorf("event %d twice in the witness", i)
		}
		seen[i] = true
		if g := t.Events[i].G; int(g) > 0 && int(g) < ng {
			s.lastOf[g] = int32(i)
		}
	}
	limit := f.Limits(t)
	for g := 1; g < ng; g++ {
		s.b[g] = k.countBelow(g, min(f.Prefix, limit[g]))
		if s.lastOf[g] < 0 && s.b[g] > 0 {
			s.lastOf[g] = k.gEv[k.gOff[g]+s.b[g]-1]
		}
	}
	if k.blockingClaim(f) {
		// Every goroutine's next event must be the observed one
		// (blocking.go).
		for g := range s.lastOf {
			s.lastOf[g] = -1
		}
	} else if f.Kind == SelectLeak && len(f.Events) >= 2 {
		// The sender's and the receiver's next events must be the
		// observed ones (leak.go).
		for _, i := range f.Events[:2] {
			if g := t.Events[i].G; int(g) > 0 && int(g) < ng {
				s.lastOf[g] = -1
			}
		}
	} else if f.Kind == Deadlock || IsMisuse(f.Kind) {
		// A blocked goroutine's next event must be the observed one: its
		// last read too must see its observed writer. So must a misuse's
		// offending goroutine's (misuse.go).
		pending := f.Events
		if IsMisuse(f.Kind) {
			pending = nextEvents(f)
		}
		for _, i := range pending {
			if g := t.Events[i].G; int(g) > 0 && int(g) < ng {
				s.lastOf[g] = -1
			}
		}
	}
	if err := s.checkPrefix(); err != nil {
		return nil, err
	}
	if err := s.replay(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkProperty checks that the schedule shows the finding.
func (k *Checker) checkProperty(s *fstate) error {
	t, f := k.t, s.f
	w := f.Witness
	ev := func(i int) *trace.Event { return &t.Events[i] }
	overlaps := func(a, b *trace.Event) bool { return a.Addr < b.End() && b.Addr < a.End() }
	switch f.Kind {
	case Race:
		if len(f.Events) != 2 || len(w) < 2 {
			return errors.New("race needs two events and a witness of two or more")
		}
		a, b := ev(f.Events[0]), ev(f.Events[1])
		if a.G == b.G || !chkMem(a) || !chkMem(b) || !overlaps(a, b) ||
			!(chkWrites(a.Op) || chkWrites(b.Op)) || (a.Op.IsAtomic() && b.Op.IsAtomic()) {
			return fmt.Errorf("events %v do not conflict", f.Events)
		}
		x, y := w[len(w)-2], w[len(w)-1]
		if !((x == f.Events[0] && y == f.Events[1]) || (x == f.Events[1] && y == f.Events[0])) {
			return fmt.Errorf("witness does not end with the racing events %v", f.Events)
		}
	case Atomicity:
		if len(f.Events) != 3 {
			return errors.New("atomicity needs three events")
		}
		c1, r, c2 := f.Events[0], f.Events[1], f.Events[2]
		e1, er, e2 := ev(c1), ev(r), ev(c2)
		if e1.G != e2.G || er.G == e1.G || c1 >= c2 {
			return fmt.Errorf("events %v: want two local accesses around a remote one", f.Events)
		}
		if !chkMem(e1) || !chkMem(er) || !chkMem(e2) || !overlaps(e1, er) || !overlaps(er, e2) {
			return fmt.Errorf("events %v do not touch common memory", f.Events)
		}
		wc, wr, wc2 := chkWrites(e1.Op), chkWrites(er.Op), chkWrites(e2.Op)
		if !wr && !(wc && wc2) { // R-R-R, R-R-W, W-R-R are serializable
			return fmt.Errorf("events %v form a serializable pattern", f.Events)
		}
		if !k.sameTransaction(c1, c2) {
			return fmt.Errorf("events %d and %d are not in one transaction", c1, c2)
		}
		if w[len(w)-1] != c2 {
			return fmt.Errorf("witness does not end with %d", c2)
		}
		// Rank in the schedule: P in observed order, then Witness.
		rank := func(i int) int {
			if s.inP(int32(i)) {
				return i - k.n
			}
			for p, j := range w {
				if j == i {
					return p
				}
			}
			return k.n
		}
		if pc, pr := rank(c1), rank(r); pc >= k.n || pr >= k.n || pc > pr {
			return fmt.Errorf("witness does not order %d before %d", c1, r)
		}
	case Leak:
		return s.checkLeak()
	case SelectLeak:
		return s.checkSelectLeak()
	case StuckLeak:
		return s.checkStuckLeak()
	case NilDeref, IndexOutOfRange, NilMapWrite:
		return s.checkNilDeref()
	case Deadlock:
		if k.blockingClaim(f) {
			return s.checkBlocking()
		}
		return s.checkDeadlock()
	default:
		if IsMisuse(f.Kind) {
			return s.checkMisuse()
		}
		return fmt.Errorf("unknown kind %q", f.Kind)
	}
	return nil
}

// checkDeadlock checks that every goroutine of the cycle stops just before
// its blocked acquire, and that each acquire's lock is held, in a mode
// that excludes it, by another goroutine of the cycle.
func (s *fstate) checkDeadlock() error {
	k, t, f := s.k, s.k.t, s.f
	if len(f.Events) < 2 {
		return errors.New("deadlock needs two or more blocked acquires")
	}
	ran := make(map[trace.GoID]int32) // per goroutine of the cycle: its events in the schedule
	for _, i := range f.Events {
		e := &t.Events[i]
		if e.Op != trace.OpLock && e.Op != trace.OpRLock {
			return fmt.Errorf("event %d is not an acquire", i)
		}
		if k.lockBad[e.Obj] {
			return fmt.Errorf("event %d acquires a lock whose run breaks its specification", i)
		}
		if int(e.G) <= 0 || int(e.G) >= k.ng {
			return fmt.Errorf("event %d has no goroutine", i)
		}
		if _, dup := ran[e.G]; dup {
			return fmt.Errorf("goroutine %d blocks twice in the cycle", e.G)
		}
		ran[e.G] = s.b[e.G]
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
		if ran[e.G] != k.posOf[i] {
			return fmt.Errorf("goroutine %d's next event after the schedule is not %d", e.G, i)
		}
	}
	for _, i := range f.Events {
		e := &t.Events[i]
		held := false
		for _, j := range f.Events {
			if h := t.Events[j].G; h != e.G && k.holds(h, int32(j), e.Obj, e.Op == trace.OpRLock) {
				held = true
				break
			}
		}
		if !held {
			return fmt.Errorf("acquire %d: no other goroutine of the cycle holds its lock in a conflicting mode", i)
		}
	}
	return nil
}

// holds reports whether goroutine g, having run its events before index
// next, holds lock l: exclusively, or if shared is false, in either mode.
func (k *Checker) holds(g trace.GoID, next int32, l trace.ObjID, shared bool) bool {
	writer, readers := false, 0
	for _, x := range k.lockOps[l] {
		if x >= next {
			break
		}
		e := &k.t.Events[x]
		if e.G != g {
			continue
		}
		switch e.Op {
		case trace.OpLock:
			writer = true
		case trace.OpUnlock:
			writer = false
		case trace.OpRLock:
			readers++
		case trace.OpRUnlock:
			readers--
		}
	}
	return writer || (!shared && readers > 0)
}

// sameTransaction reports whether events c1 < c2 of one goroutine lie in
// one transaction: one outermost begin..end region, or one critical
// section of some lock.
func (k *Checker) sameTransaction(c1, c2 int) bool {
	t := k.t
	g := t.Events[c1].G
	if int(g) <= 0 || int(g) >= k.ng {
		return false
	}
	depth, depthAtC1 := 0, 0
	endedBetween := false
	held := make(map[trace.ObjID]bool)
	for _, i32 := range k.gEv[k.gOff[g]:k.gOff[g+1]] {
		i := int(i32)
		if i >= c2 {
			break
		}
		e := &t.Events[i]
		switch e.Op {
		case trace.OpTxBegin:
			depth++
		case trace.OpTxEnd:
			if depth > 0 {
				depth--
				if depth == 0 && i > c1 {
					endedBetween = true
				}
			}
		case trace.OpLock, trace.OpRLock:
			if i < c1 {
				held[e.Obj] = true
			}
		case trace.OpUnlock, trace.OpRUnlock:
			delete(held, e.Obj)
		}
		if i == c1 {
			depthAtC1 = depth
		}
	}
	return (depthAtC1 > 0 && !endedBetween) || len(held) > 0
}
