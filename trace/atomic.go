// This file implements transactions for atomicity checking: every
// activation of a function marked //seer:atomic (Convert's Atomic option)
// becomes an OpTxBegin .. OpTxEnd region of its goroutine, whether the
// function was called or inlined into its caller.
//
// A goroutine's call stack is its entry records (each with a serial number
// and the frames of its call site) plus the frames of the current event.
// The activation an event belongs to is the outermost atomic frame of that
// stack, identified by the serial of the entry whose function contains it
// (and, for an inlined activation, the call line). When consecutive events
// of a goroutine belong to different activations, the transaction changes
// there. A transaction ends before the first event outside it, so its end
// can be later than the function's return but never earlier: a
// transaction holds exactly the activation's events.
//
// Two calls of an inlined atomic function from one call site in a loop
// cannot be told apart by their stacks, and merging them would make one
// transaction of two (and a false report possible). Callers therefore
// build packages with atomic functions without inlining (-gcflags=-l), so
// every call has its entry record; the inlined case remains for code the
// flag does not reach.

package trace

import "strconv"

// txKey identifies an activation of an atomic function; "" is none.
type txKey string

// outerAtomic returns the outermost frame of frames (innermost first) that
// is an atomic function, as a key relative to the activation of the
// physical function the frames belong to (serial). The last frame is the
// physical function; the others are inlined into it, and frame i+1 holds
// the line where frame i was called.
func outerAtomic(frames []Frame, serial uint64, atomic func(string) bool) txKey {
	for i := len(frames) - 1; i >= 0; i-- {
		if !atomic(frames[i].Func) {
			continue
		}
		k := strconv.FormatUint(serial, 10)
		if i < len(frames)-1 {
			k += "@" + strconv.Itoa(frames[i+1].Line) + "/" + frames[i].Func
		}
		return txKey(k)
	}
	return ""
}

// txEnter is called for each function entry: the entry's call-site frames
// lie in the function of the entry below it.
func (c *converter) txEnter(g *convGoroutine, pc uint64) {
	var outer txKey
	if n := len(g.outer); n > 0 {
		outer = g.outer[n-1]
		if outer == "" {
			outer = outerAtomic(c.frames(pc), g.serials[n-1], c.atomic)
		}
	} else {
		outer = outerAtomic(c.frames(pc), 0, c.atomic)
	}
	c.serial++
	g.serials = append(g.serials, c.serial)
	g.outer = append(g.outer, outer)
}

func (c *converter) txExit(g *convGoroutine) {
	if n := len(g.serials); n > 0 {
		g.serials = g.serials[:n-1]
		g.outer = g.outer[:n-1]
	}
}

// txEvent moves g into the transaction of an event whose own frames (the
// innermost physical function and what is inlined into it) are frames and
// whose stack is stack.
func (c *converter) txEvent(g *convGoroutine, frames []Frame, stack StackID) {
	key := txKey("")
	if n := len(g.outer); n > 0 {
		key = g.outer[n-1]
		if key == "" {
			key = outerAtomic(frames, g.serials[n-1], c.atomic)
		}
	} else {
		key = outerAtomic(frames, 0, c.atomic)
	}
	c.txSwitch(g, key, stack)
}

// txSwitch ends g's transaction (at its last event's stack) and begins the
// one with key (at stack), if they differ.
func (c *converter) txSwitch(g *convGoroutine, key txKey, stack StackID) {
	if key == g.tx {
		return
	}
	if g.tx != "" {
		c.addEvent(Event{G: g.id, Op: OpTxEnd, Stack: g.lastStack})
	}
	if key != "" {
		c.addEvent(Event{G: g.id, Op: OpTxBegin, Stack: stack})
	}
	g.tx = key
}
