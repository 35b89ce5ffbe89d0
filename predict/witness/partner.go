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
// acquires. The checker keeps every other acquire seeing its observed
// release; one of a rendezvous may see its partner's release instead
// when the witness runs the four events in a row, on one unbuffered
// channel, A's two events its send or receive whole (the first event of
// its operation, then the next), B's likewise, one a send and the other a
// receive. Any two such operations can meet in Go: a goroutine whose
// operation is not yet begun in the schedule has not yet reached the
// channel, so B can be the one parked when A arrives, whoever was parked
// in the run.
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
// than in the run, is one of a rendezvous the witness runs whole (see
// the file comment): the release it sees is its partner's, just before
// it, and the receive's value is free.
func (s *fstate) repaired(step int, st *syncState) bool {
	if s.k.valueFree == nil || len(st.merges) != 0 || step < 1 || st.rel != s.f.Witness[step-1] {
		return false
	}
	// The acquire is B's (the rendezvous starts just before it) or A's
	// (it ends the rendezvous).
	return s.rendezvous(step-1) || s.rendezvous(step-3)
}

// rendezvous reports whether Witness[at:at+4] is a rendezvous on an
// unbuffered channel (A's release, B's acquire and release, A's
// acquire) whose receive's value is free.
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
	if ea.Sync != trace.SyncRelease || eb.Sync != trace.SyncAcquire ||
		t.Events[b2].Sync != trace.SyncRelease || t.Events[a2].Sync != trace.SyncAcquire {
		return false
	}
	recv := a1
	if eb.Op == trace.OpRecv {
		recv = b1
	}
	// A select's receive is not the plain receive the caller judged.
	return !inSelect(t, &t.Events[recv]) && k.valueFree(recv)
}
