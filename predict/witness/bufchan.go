// This file implements the serial specification of a buffered channel
// as far as the run shows it, for blocking claims (blocking.go) and for
// the engine that makes them (predict, deadlock_channel.go and
// deadlock_cycles.go), so that both judge a buffer by one model.
//
// The race runtime annotates each operation on a buffered channel of
// non-empty elements as one release-acquire of the buffer slot it uses,
// chanbuf(c, i) (runtime.racenotify, for a value put in or taken from the
// buffer and for a hand-over to a parked partner alike), so the trace has
// an object per slot. Go's buffer is a ring: the k-th send of the
// channel uses slot k mod cap, the k-th receive takes the k-th send's
// value from that slot. The slots of one channel are in one heap
// allocation (the hchan's own, after its header, for elements without
// pointers; an allocation of its own otherwise), which the trace's
// addresses name (trace.HeapLife). So a channel is the slot objects of
// one heap life, and:
//
//   - its capacity is the period of its sends' slots: the first send to
//     come back to the first send's slot is the cap-th; a run whose sends
//     never wrap round does not show the capacity (Cap 0);
//   - the run must follow the ring: send k's slot is send (k mod cap)'s,
//     and receive k's slot is send k's; a channel whose run does not is
//     not judged;
//   - after a schedule that runs the channel's first n sends and first m
//     receives (in observed order: Prefix), the buffer holds n-m values;
//     a send then blocks when n-m is the capacity, a receive when it is
//     0 (and no close of the channel is in the schedule);
//   - a close annotates the hchan (&c.buf), in the slots' allocation only
//     when the buffer is after the header (the first slot not at offset
//     0): otherwise (Apart) the channel's closes are unknown, and a claim
//     holds only if no close of the run that is not shown to be another
//     channel's (an orphan) is in the schedule after the channel's last
//     send (a send on a closed channel panics, with no event of a slot,
//     so the channel's close, if the run has it, comes after its sends).
//
// A channel whose slots are not in a heap life the recording found is not
// judged.

package witness

import (
	"fmt"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// BufChan is a buffered channel of non-empty elements as the run shows
// it (see the file comment).
type BufChan struct {
	Slots  []trace.ObjID // its slots' objects, in the order of first use
	Cap    int           // its capacity, or 0 if the run does not show it
	Sends  []int32       // its sends, in observed order (one event each)
	Recvs  []int32       // its receives, in observed order
	Closes []int32       // its closes, when not Apart
	Apart  bool          // its buffer is an allocation of its own: its closes are not known
}

// BufChans returns the buffered channels of the run that the model
// judges, by each of their slots' objects, and the orphan closes: the
// run's closes that no judged channel owns. chans holds, per channel object, its synchronisation
// events (sends, receives, closes) in order.
func BufChans(t *trace.Trace, chans map[trace.ObjID][]int32) (map[trace.ObjID]*BufChan, []int32) {
	lives := map[uint64]*slotGroup{}
	closeLife := map[uint64][]int32{} // closes of objects with no send or receive, per heap life
	var closes []int32                // every close of the run
	objs := make([]trace.ObjID, 0, len(chans))
	for obj := range chans {
		objs = append(objs, obj)
	}
	slices.Sort(objs)
	for _, obj := range objs {
		evs := chans[obj]
		if len(evs) == 0 {
			continue
		}
		life, _, heap := trace.HeapLife(t.Events[evs[0]].Addr)
		ops := 0
		for _, x := range evs {
			switch t.Events[x].Op {
			case trace.OpSend, trace.OpRecv:
				ops++
			case trace.OpClose:
				closes = append(closes, x)
			}
		}
		if ops == 0 {
			if heap {
				closeLife[life] = append(closeLife[life], evs...)
			}
			continue
		}
		if !heap {
			continue
		}
		g := lives[life]
		if g == nil {
			g = &slotGroup{}
			lives[life] = g
		}
		if !OneEventOps(t, evs) {
			// An unbuffered channel, zero-sized elements, or a receive on
			// the closed channel: no ring's slot in this allocation is
			// judged.
			g.bad = true
			continue
		}
		g.slots = append(g.slots, obj)
	}
	out := map[trace.ObjID]*BufChan{}
	mine := map[int32]bool{} // closes of judged channels
	for life, g := range lives {
		if g.bad {
			continue
		}
		bc := &BufChan{}
		for _, obj := range g.slots {
			for _, x := range chans[obj] {
				switch t.Events[x].Op {
				case trace.OpSend:
					bc.Sends = append(bc.Sends, x)
				case trace.OpRecv:
					bc.Recvs = append(bc.Recvs, x)
				case trace.OpClose:
					bc.Closes = append(bc.Closes, x)
				}
			}
		}
		slices.Sort(bc.Sends)
		slices.Sort(bc.Recvs)
		if !bc.ring(t, len(g.slots)) {
			continue
		}
		for _, x := range bc.Sends {
			if o := t.Events[x].Obj; !slices.Contains(bc.Slots, o) {
				bc.Slots = append(bc.Slots, o)
			}
		}
		bc.Apart = slices.ContainsFunc(bc.Sends, func(x int32) bool {
			_, off, _ := trace.HeapLife(t.Events[x].Addr)
			return off == 0
		})
		if bc.Apart {
			bc.Closes = nil
		} else {
			bc.Closes = append(bc.Closes, closeLife[life]...)
			slices.Sort(bc.Closes)
			for _, x := range bc.Closes {
				mine[x] = true
			}
		}
		for _, obj := range bc.Slots {
			out[obj] = bc
		}
	}
	// A close that no judged channel owns may be the close of one whose
	// buffer is apart.
	var orphans []int32
	for _, x := range closes {
		if !mine[x] {
			orphans = append(orphans, x)
		}
	}
	slices.Sort(orphans)
	return out, orphans
}

// slotGroup is the slot objects of one heap life, bad if the life holds
// a channel object that is no ring's slot.
type slotGroup struct {
	slots []trace.ObjID
	bad   bool
}

// ring reports whether the channel's run follows the ring (see the file
// comment), with n slot objects, and sets Cap when its sends wrap round.
func (bc *BufChan) ring(t *trace.Trace, n int) bool {
	if len(bc.Sends) == 0 {
		return false
	}
	addr := func(x int32) uint64 { return t.Events[x].Addr }
	first := addr(bc.Sends[0])
	for k := 1; k < len(bc.Sends); k++ {
		if addr(bc.Sends[k]) == first {
			bc.Cap = k
			break
		}
	}
	if bc.Cap > 0 {
		if bc.Cap != n {
			return false // a slot the sends' ring does not go through
		}
		for k := bc.Cap; k < len(bc.Sends); k++ {
			if addr(bc.Sends[k]) != addr(bc.Sends[k%bc.Cap]) {
				return false
			}
		}
	}
	if len(bc.Recvs) > len(bc.Sends) {
		return false
	}
	for k, r := range bc.Recvs {
		if addr(r) != addr(bc.Sends[k]) {
			return false
		}
	}
	return true
}

// Held returns how many values the channel holds after a schedule (ran
// says whether it runs an event), and false if the schedule's
// sends or receives are not the run's first ones (Prefix).
func (bc *BufChan) Held(ran func(x int32) bool) (int, bool) {
	n, ok1 := prefix(bc.Sends, ran)
	m, ok2 := prefix(bc.Recvs, ran)
	return n - m, ok1 && ok2
}

// prefix returns how many of evs are in the schedule, and whether they
// are its first ones.
func prefix(evs []int32, ran func(x int32) bool) (int, bool) {
	n := 0
	for n < len(evs) && ran(evs[n]) {
		n++
	}
	for _, x := range evs[n:] {
		if ran(x) {
			return n, false
		}
	}
	return n, true
}

// Blocked reports why op (OpSend or OpRecv) on the channel cannot go on
// after the schedule (ran says which events it runs; orphans are the
// run's orphan closes, BufChans's second result), or "" if it is
// blocked.
func (bc *BufChan) Blocked(op trace.Op, ran func(x int32) bool, orphans []int32) string {
	held, ok := bc.Held(ran)
	switch {
	case !ok:
		return "the schedule's operations on the channel are not the run's first ones"
	case op == trace.OpSend && bc.Cap == 0:
		return "the run does not show the channel's capacity"
	case op == trace.OpSend && held != bc.Cap:
		return fmt.Sprintf("the buffer holds %d values at the end of the schedule, of %d: it has room", held, bc.Cap)
	case op == trace.OpRecv && held != 0:
		return fmt.Sprintf("the buffer holds %d values at the end of the schedule", held)
	}
	for _, x := range bc.Closes {
		if ran(x) {
			return "the schedule closes the channel"
		}
	}
	if bc.Apart {
		// A send on a closed channel panics with no event of the slot:
		// the channel's close comes after its last send.
		last := bc.Sends[len(bc.Sends)-1]
		for _, x := range orphans {
			if x > last && ran(x) {
				return "the schedule closes a channel that may be this one"
			}
		}
	}
	return ""
}
