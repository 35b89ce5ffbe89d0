// This file implements what the converter does for code that the runtime,
// not a go statement of the test, starts: finalizers and cleanups, and
// functions that timers start (time.AfterFunc).
//
// Ordering. Before each batch of finalizers or cleanups the runtime calls
// __tsan_finalizer_goroutine, with which ThreadSanitizer makes the running
// goroutine acquire everything that every goroutine has done so far (its
// AcquireGlobal). The converter builds the same ordering from ordinary
// events: each goroutine still running that did something since the last
// such point releases a fresh synchronisation object, which the finalizer
// goroutine then acquires, and each goroutine that has ended since is
// joined. Analyses need no new event kind, and a finalizer is never
// predicted to run before what preceded it in the recorded run: the run
// does not show when its object became unreachable.
//
// Attribution. Findings belong to the test whose goroutine tree holds the
// racing goroutines, but the runtime's goroutines belong to no test. So
// every batch continues the finalizer goroutine as a new goroutine (a go
// event without a creation stack, then the old one ends) attributed to the
// test that made the latest event before it; and a goroutine a timer starts
// belongs to the test whose goroutine released the timer its context last
// acquired (time.AfterFunc releases the timer, the timer context acquires
// it before it runs the function).

package trace

import "sort"

// fingoBase is where the synchronisation objects of acquire-all points
// live in the trace's address space: far above heap lifetimes (see
// lifeBase) and globals.
const fingoBase = 1 << 62

// acquireAll handles a __tsan_finalizer_goroutine record of spool goroutine
// gid, whose converter state is g, and returns the goroutine that the
// spool's gid continues as.
func (c *converter) acquireAll(gid uint32, g *convGoroutine) *convGoroutine {
	if g.test == "" || g.batch {
		v := *g
		c.newID(&v, g.id, 0)
		v.test, v.batch, v.events = c.runningTest(), true, 0
		c.add(g, Event{Op: OpGo, Peer: int32(v.id)})
		c.add(g, Event{Op: OpEnd})
		g.ended = true
		c.gs[gid] = &v
		c.lastG = nil // g's memo
		c.add(&v, Event{Op: OpStart, Peer: int32(g.id)})
		if v.test != "" {
			c.b.SetGoroutine(v.id, v.test, "")
		}
		g = &v
	}
	cover := c.covered[gid]
	if cover == nil {
		cover = make(map[GoID]int)
		c.covered[gid] = cover
	}
	others := make([]*convGoroutine, 0, len(c.gs))
	for _, o := range c.gs {
		if o != g && o.id != 0 && o.events > 0 {
			others = append(others, o)
		}
	}
	sort.Slice(others, func(i, j int) bool { return others[i].id < others[j].id })
	c.fingos++
	addr := uint64(fingoBase + 8*c.fingos)
	obj := c.syncObj(ObjSync, addr)
	released := false
	for _, o := range others {
		if cover[o.id] == o.events {
			continue
		}
		if o.ended {
			c.add(g, Event{Op: OpJoin, Peer: int32(o.id), Stack: g.lastStack})
		} else {
			c.add(o, Event{Op: OpReleaseMerge, Sync: SyncReleaseMerge, Addr: addr, Obj: obj, Stack: o.lastStack})
			released = true
		}
		cover[o.id] = o.events
	}
	if released {
		c.add(g, Event{Op: OpAcquire, Sync: SyncAcquire, Addr: addr, Obj: obj, Stack: g.lastStack})
	}
	return g
}

// runningTest returns the test of the latest event made by a goroutine
// that belongs to one ("" if none has yet).
func (c *converter) runningTest() string {
	if s := c.scan; s != nil {
		// The table may lack a goroutine's last event (settle left it
		// out, or the side log holds it: local_side.go): the scan knows
		// each goroutine's last, and lastKey orders them.
		best, test := uint64(0), ""
		for g := 1; 2*g+1 < len(s.last) && g < len(c.conv); g++ {
			i := s.last[2*g]
			if i == -1 || c.conv[g] == nil || c.conv[g].test == "" {
				continue
			}
			if k := c.lastKey(i); test == "" || k > best {
				best, test = k, c.conv[g].test
			}
		}
		return test
	}
	for i := c.b.Len() - 1; i >= 0; i-- {
		if test := c.conv[c.b.Event(i).G].test; test != "" {
			return test
		}
	}
	return ""
}

// newID gives g a new trace goroutine with the given parent and creation
// stack.
func (c *converter) newID(g *convGoroutine, parent GoID, create StackID) {
	g.id = c.b.Goroutine(parent, create)
	for len(c.conv) <= int(g.id) {
		c.conv = append(c.conv, nil)
	}
	c.conv[g.id] = g
}

// adopt notes, when timer context g acquires at trace address addr,
// the test of the goroutine that made the release it acquires: the test
// that the goroutines g starts next belong to.
func (c *converter) adopt(g *convGoroutine, addr uint64) {
	if !g.system {
		return
	}
	if i, ok := c.lastRelease(addr); ok {
		if test := c.conv[c.b.Event(i).G].test; test != "" {
			g.adopted, g.adoptedAt = test, c.b.Event(i).Stack
		}
	}
}
