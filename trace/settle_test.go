// This file tests when settle.go settles: a retired life the goroutines
// shared starts no settle, since it would leave out nothing and put the
// next settle four times the table off, and a retired life one goroutine
// owned does, its accesses left out but for the last.

package trace

import "testing"

func TestSettleWaitsForOwnedLife(t *testing.T) {
	const goroot, step = "/goroot", 4
	c := newConverter(Header{GOROOT: goroot}, nil, "")
	c.scan, c.settleStep, c.settleAt = newLocalScan(c.b.t.Stacks, goroot), step, step
	stack := c.b.Stacks().Push(0, Frame{Func: "example.com/p.f", File: "/src/p/p.go", Line: 3})
	const lives = 2 // allocation l is life l
	c.lives, c.lifeOf = lives, make([]uint32, lives+1)
	for l := 1; l <= lives; l++ {
		c.b.lives.add(heapLife{addr: 0x10000 * uint64(l), size: 64})
		c.lifeOf[l] = uint32(l)
	}
	access := func(g *convGoroutine, life int) {
		c.add(g, Event{Op: OpWrite, Addr: lifeBase + uint64(life)<<lifeShift, Size: 8, Obj: lifeObj | ObjID(life-1), Stack: stack})
	}
	parent, child := &convGoroutine{}, &convGoroutine{}
	c.newID(parent, 0, 0)
	c.newID(child, parent.id, stack)
	c.add(parent, Event{Op: OpGo, Peer: int32(child.id), Stack: stack})
	c.add(child, Event{Op: OpStart, Peer: int32(parent.id)})

	// Life 1: the child's, then the parent's too.
	for range 20 {
		access(child, 1)
	}
	for range 20 {
		access(parent, 1)
	}
	c.retire(1)
	c.settleDue()
	if c.dropped != 0 || c.settleAt != step {
		t.Fatalf("a shared life retired: %d events left out, next settle at %d; want none, and still at %d", c.dropped, c.settleAt, step)
	}

	// Life 2: the parent's alone.
	const owned = 20
	for range owned {
		access(parent, 2)
	}
	c.retire(2)
	c.settleDue()
	if c.dropped != owned-1 { // all but the parent's last event
		t.Fatalf("an owned life retired: %d events left out; want %d", c.dropped, owned-1)
	}
}
