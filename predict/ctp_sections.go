// This file implements the critical sections of the CTP (UCG paper §2:
// locks stay locks): matching acquires with releases per goroutine and
// lock, locksets, and the lookups the UCG's induction rules and the
// encoder use. A lock used in a way no critical section explains (unlocked
// by another goroutine, or while free) becomes an "observed lock", kept in
// observed order.

package predict

import "github.com/seer-tools/seer/trace"

// buildLocks matches acquires with releases per goroutine and lock, and
// marks locks that are not used as locks.
func (c *ctp) buildLocks() {
	type state struct {
		writer  int32 // goroutine holding it exclusively, or 0
		readers map[int32]int
	}
	st := make(map[trace.ObjID]*state)
	open := make(map[gl]int) // index in cs[gl] of the open section
	for i := range c.ev {
		e := &c.ev[i]
		if !e.Op.IsLock() {
			continue
		}
		s := st[e.Obj]
		if s == nil {
			s = &state{readers: make(map[int32]int)}
			st[e.Obj] = s
		}
		g := int32(e.G)
		switch e.Op {
		case trace.OpLock:
			if s.writer != 0 || len(s.readers) > 0 {
				c.observed[e.Obj] = true
			}
			s.writer = g
		case trace.OpRLock:
			// A recursive RLock (the goroutine already reads) is no
			// section of its own: the outer one spans it (depth, below).
			if s.writer != 0 {
				c.observed[e.Obj] = true
			}
			s.readers[g]++
		case trace.OpUnlock:
			if s.writer != g {
				c.observed[e.Obj] = true
			}
			s.writer = 0
		case trace.OpRUnlock:
			if s.readers[g] == 0 {
				c.observed[e.Obj] = true
			} else if s.readers[g]--; s.readers[g] == 0 {
				delete(s.readers, g)
			}
		}
	}
	// Each (goroutine, lock)'s sections, sized exactly.
	ncs := make(map[gl]int)
	for i := range c.ev {
		if e := &c.ev[i]; (e.Op == trace.OpLock || e.Op == trace.OpRLock) && !c.observed[e.Obj] {
			ncs[gl{int32(e.G), e.Obj}]++
		}
	}
	hasCS := make([]bool, len(c.byG))
	for k, n := range ncs {
		c.cs[k] = make([]csect, 0, n)
		hasCS[k.g] = true
	}
	for g, ok := range hasCS {
		if ok {
			c.lockG = append(c.lockG, int32(g))
		}
	}
	held := make([]int32, len(c.byG))
	cur := make([]int32, len(c.byG)) // per goroutine: current lockset id
	// depth counts a goroutine's read locks of a lock: the outer RLock
	// opens its section and the RUnlock that ends the last closes it; the
	// RLocks and RUnlocks between (recursive read locking) leave the
	// section, the lockset and lockMode alone, so that every layer sees
	// one shared section (sync.RWMutex's reader count, without its writer
	// preference, which only deadlock_rwmutex.go's waiting rule uses).
	depth := make(map[gl]int32)
	intern := map[string]int32{"": 0}
	c.locksets = [][]heldLock{nil}
	for i := range c.ev {
		e := &c.ev[i]
		g := int32(e.G)
		ls := cur[g]
		if e.Op.IsLock() && !c.observed[e.Obj] && !c.innerRead(depth, g, e) {
			k := gl{g, e.Obj}
			switch e.Op {
			case trace.OpLock, trace.OpRLock:
				shared := e.Op == trace.OpRLock
				c.cs[k] = append(c.cs[k], csect{acq: c.pos[i], shared: shared})
				open[k] = len(c.cs[k]) - 1
				held[g]++
				c.lockMode[i] = 'w'
				if shared {
					c.lockMode[i] = 'r'
				}
				cur[g] = c.internLockset(intern, c.locksets[cur[g]], heldLock{e.Obj, shared}, true)
				ls = cur[g]
			default:
				j := open[k]
				c.cs[k][j].rel = c.pos[i]
				delete(open, k)
				held[g]--
				c.lockMode[i] = 'W'
				if e.Op == trace.OpRUnlock {
					c.lockMode[i] = 'R'
				}
				cur[g] = c.internLockset(intern, c.locksets[cur[g]], heldLock{e.Obj, e.Op == trace.OpRUnlock}, false)
			}
		}
		c.ls.add(int32(i), ls)
		if held[g] > 0 {
			c.locked.set(int32(i))
		}
	}
	c.ls.done()
	c.buildPinned()
}

// internLockset returns the id of set with h added (or removed).
func (c *ctp) internLockset(intern map[string]int32, set []heldLock, h heldLock, add bool) int32 {
	var out []heldLock
	for _, x := range set {
		if x.l != h.l {
			out = append(out, x)
		}
	}
	if add {
		out = append(out, h)
	}
	for i := 1; i < len(out); i++ { // keep sorted by lock
		for j := i; j > 0 && out[j].l < out[j-1].l; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	key := make([]byte, 0, 5*len(out))
	for _, x := range out {
		b := byte(0)
		if x.shared {
			b = 1
		}
		key = append(key, byte(x.l), byte(x.l>>8), byte(x.l>>16), byte(x.l>>24), b)
	}
	if id, ok := intern[string(key)]; ok {
		return id
	}
	id := int32(len(c.locksets))
	c.locksets = append(c.locksets, out)
	intern[string(key)] = id
	return id
}

// section returns the critical section of lock l in goroutine g that
// contains position p (acquired at or before p and not released before
// p), if any.
func (c *ctp) section(g int32, l trace.ObjID, p int32) (csect, bool) {
	list := c.cs[gl{g, l}]
	lo, hi := 0, len(list)
	for lo < hi { // first section with acq > p
		m := (lo + hi) / 2
		if list[m].acq <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return csect{}, false
	}
	s := list[lo-1]
	if s.rel != 0 && s.rel < p {
		return csect{}, false
	}
	return s, true
}

// heldAt calls f for each lock goroutine g holds at position p, with its
// critical section (an acquire and a release are inside their section).
func (c *ctp) heldAt(g, p int32, f func(l trace.ObjID, s csect)) {
	if p <= 0 {
		return
	}
	for _, h := range c.locksets[c.lsOf(c.at(g, p))] {
		if s, ok := c.section(g, h.l, p); ok {
			f(h.l, s)
		}
	}
}

// innerRead reports whether lock event e of goroutine g is a read lock
// or unlock nested inside g's outer read section of its lock, counting
// g's read depth in depth as it goes (events in trace order).
func (c *ctp) innerRead(depth map[gl]int32, g int32, e *trace.Event) bool {
	k := gl{g, e.Obj}
	switch e.Op {
	case trace.OpRLock:
		depth[k]++
		if depth[k] > 1 {
			c.nestedRead[e.Obj] = true
		}
		return depth[k] > 1
	case trace.OpRUnlock:
		depth[k]--
		return depth[k] > 0
	}
	return false
}
