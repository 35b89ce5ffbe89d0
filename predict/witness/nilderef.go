// This file implements the check of a predicted nil dereference (Kind
// NilDeref, issue 32 item 6) and of its slice and map forms
// (IndexOutOfRange, NilMapWrite): a schedule in which a goroutine's read
// of a pointer, interface, slice or map sees a write that stored nil,
// where the run's read saw another write.
//
// Events are w, the write, and r, the read, of another goroutine, on the
// same bytes (same address and size). The checker re-checks, against the
// serial specifications:
//
//   - the schedule is feasible: every goroutine runs a prefix of its
//     observed events, every read but r (its goroutine's last event in
//     the schedule, which may see another writer) sees its observed
//     writer, locks are exclusive, synchronisation sees what it saw;
//   - w runs before r, and r is its goroutine's last event;
//   - no other write to any of r's bytes runs between w and r: r reads
//     what w stored.
//
// That w stores nil, and that r's goroutine dereferences what it reads
// right after with no check between and nothing recovering the panic,
// is the static half of the claim (package static's Program.NilStore and
// Program.NilDeref), which the checker cannot see: the trace records
// which write a read saw, not values.
//
// The schedule usually reverses critical sections: in the run r's
// section came first; in the schedule the writer's whole section runs
// before r's goroutine takes the lock. It is given as a prefix of the run
// (the writer's side, in observed order) and a Witness holding r's
// goroutine's events from its section's acquire to r, which the checker
// replays against the state after the prefix.

package witness

import (
	"errors"
	"fmt"

	"github.com/seer-tools/seer/trace"
)

// NilDeref, IndexOutOfRange and NilMapWrite: the schedule ends with a
// read that sees a store of nil (nilderef.go); the claim's static half
// says the read value is then dereferenced (a pointer, an interface),
// indexed (a slice) or assigned an entry (a map).
const (
	NilDeref        Kind = "nil-dereference"
	IndexOutOfRange Kind = "index-out-of-range"
	NilMapWrite     Kind = "nil-map-write"
)

// checkNilDeref checks that r, its goroutine's last event, reads what w
// stored.
func (s *fstate) checkNilDeref() error {
	k, t, f := s.k, s.k.t, s.f
	if len(f.Events) != 2 {
		return fmt.Errorf("nil dereference needs a write and a read, not %v", f.Events)
	}
	w, r := f.Events[0], f.Events[1]
	we, re := &t.Events[w], &t.Events[r]
	if we.Op != trace.OpWrite || !chkMem(we) {
		return fmt.Errorf("event %d is not a plain write", w)
	}
	if re.Op != trace.OpRead || !chkMem(re) {
		return fmt.Errorf("event %d is not a plain read", r)
	}
	if we.Addr != re.Addr || we.Size != re.Size {
		return fmt.Errorf("events %d and %d do not access the same bytes", w, r)
	}
	if we.G == re.G {
		return fmt.Errorf("events %d and %d are of one goroutine", w, r)
	}
	if !s.inSchedule(int32(w)) {
		return fmt.Errorf("write %d does not run in the schedule", w)
	}
	if g := re.G; int(g) <= 0 || int(g) >= k.ng || s.lastOf[g] != int32(r) || !s.inSchedule(int32(r)) {
		return fmt.Errorf("read %d is not its goroutine's last event in the schedule", r)
	}
	rw, rr := s.rank(int32(w)), s.rank(int32(r))
	if rw >= rr {
		return fmt.Errorf("write %d does not run before read %d", w, r)
	}
	id := int32(-1)
	if l := k.loc[r]; l >= 0 && int(l) < len(k.hotID) {
		id = k.hotID[l]
	}
	if id < 0 {
		return errors.New("the read's memory is not written by two goroutines")
	}
	for _, x := range k.hotW[id] {
		if int(x) == w {
			continue
		}
		xe := &t.Events[x]
		if xe.Addr >= re.End() || re.Addr >= xe.End() || !s.inSchedule(x) {
			continue
		}
		if rx := s.rank(x); rw < rx && rx < rr {
			return fmt.Errorf("write %d runs between write %d and read %d", x, w, r)
		}
	}
	return nil
}
