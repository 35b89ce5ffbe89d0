// This file implements the one synchronisation the checker lets see
// another partner than in the run: a rendezvous on an unbuffered channel
// whose receive takes a different send (issue 32, channel partners). In
// another schedule, goroutine H's send can be taken by the receive that
// took G's send in the run, leaving G to wait for a partner that may
// never come.
//
// The race runtime annotates a rendezvous (runtime.racesync, called by
// the goroutine that arrives second, A, for the one parked, B) as four
// events on the channel's address: A releases, B acquires, B releases, A
// acquires. Which of the two arrived second in the run is in its events
// (a release then an acquire, or the other way round), and in another
// schedule the other may be the one parked: the events are the run's
// annotation of one step in which each goroutine learns of the other,
// whatever their order. So the checker keeps every other acquire seeing
// its observed release, and accepts the acquires of a rendezvous that
// the witness runs whole: four events in a row on one unbuffered
// channel that no event of the schedule has closed, A's two around B's
// two, each goroutine's two its send or receive whole (the first event
// of its operation, then the next), one a send and the other a receive.
// Any two such operations can meet in Go: a goroutine whose operation is
// not yet begun in the schedule has not yet reached the channel, so
// either can be the one parked when the other arrives, whoever was
// parked in the run.
//
// What the receive does after it is not in the trace: it took another
// value. So the receive's goroutine may go on only when its value
// decides nothing, which the checker cannot see: the caller says so
// (Checker.ValueFree, static analysis: the value is discarded, or of a
// zero-sized type), as it says which reads are relaxed. Without it, no
// receive takes another send.

package witness

import "github.com/seer-tools/seer/trace"

// ValueFree lets the receives for which free reports true (given the
// first event of the operation) take another send than in the run: the
// program never uses the value received (see the file comment). Like
// Relax, it must come before any Check.
func (k *Checker) ValueFree(free func(recv int32) bool) { k.valueFree = free }

// repaired reports whether acquire w[step], which sees another release
// than in the run, is one of a rendezvous the witness runs whole, with a
// receive whose value is free (see the file comment).
func (s *fstate) repaired(step int) bool {
	if s.k.valueFree == nil {
		return false
	}
	for at := step - 3; at <= step; at++ {
		if s.rendezvous(at) {
			return true
		}
	}
	return false
}

// rendezvous reports whether Witness[at:at+4] is a rendezvous on an
// unbuffered channel not closed before it (A's two events around B's
// two) whose receive's value is free.
func (s *fstate) rendezvous(at int) bool {
	k, t, w := s.k, s.k.t, s.f.Witness
	if at < 0 || at+4 > len(w) {
		return false
	}
	a1, b1, b2, a2 := int32(w[at]), int32(w[at+1]), int32(w[at+2]), int32(w[at+3])
	ea, eb := &t.Events[a1], &t.Events[b1]
	if ea.G == eb.G || ea.Obj != eb.Obj || ea.Obj == 0 || !k.unbuffered(ea.Obj) {
		return false
	}
	if (ea.Op != trace.OpSend || eb.Op != trace.OpRecv) && (ea.Op != trace.OpRecv || eb.Op != trace.OpSend) {
		return false
	}
	// Each goroutine's two events are its whole operation, in order.
	for _, op := range [2][2]int32{{a1, a2}, {b1, b2}} {
		x, y := &t.Events[op[0]], &t.Events[op[1]]
		if x.G != y.G || x.Obj != y.Obj || x.Op != y.Op || k.posOf[op[1]] != k.posOf[op[0]]+1 || !k.opStart(op[0]) {
			return false
		}
	}
	// No close of the channel runs before: a send would panic, a receive
	// take the zero value.
	for _, x := range k.chanEvents(ea.Obj) {
		if t.Events[x].Op != trace.OpClose {
			continue
		}
		if s.inP(x) {
			return false
		}
		for _, j := range w[:at] {
			if int32(j) == x {
				return false
			}
		}
	}
	recv := a1
	if eb.Op == trace.OpRecv {
		recv = b1
	}
	// A select's receive is not the plain receive the caller judged.
	return !inSelect(t, &t.Events[recv]) && k.valueFree(recv)
}
