// This file tests the converter's way of putting events in the table
// (converter.addValue and addEvent): each event it adds, an access as a
// //seer:atomic transaction's begin and end, is noted by the running scan
// (its goroutine's count and last event, localScan.noteLast) and as its
// goroutine's first stack (noteFirstStack).

package trace

import "testing"

func TestConverterNotesEveryEvent(t *testing.T) {
	const goroot = "/goroot"
	user := Frame{Func: "example.com/p.f", File: "/src/p/p.go", Line: 3}
	tests := []struct {
		name  string
		steps func(c *converter, g *convGoroutine, stack StackID)
		// want: the index of g's last event, its count of events, and
		// its first stack's depth (1: stack, 2: the transaction's).
		last, count, firstDepth int
	}{
		{
			name: "accesses",
			steps: func(c *converter, g *convGoroutine, stack StackID) {
				c.add(g, Event{Op: OpWrite, Addr: 0x100, Size: 8, Stack: stack})
				c.add(g, Event{Op: OpRead, Addr: 0x100, Size: 8, Stack: stack})
			},
			last: 1, count: 2, firstDepth: 1,
		},
		{
			name: "a transaction's begin first",
			steps: func(c *converter, g *convGoroutine, stack StackID) {
				tx := c.b.Stacks().Push(stack, Frame{Func: "example.com/p.g", File: "/src/p/p.go", Line: 9})
				c.txSwitch(g, "example.com/p.g", tx)
				c.add(g, Event{Op: OpWrite, Addr: 0x100, Size: 8, Stack: stack})
			},
			last: 1, count: 2, firstDepth: 2,
		},
		{
			name: "a transaction's end last",
			steps: func(c *converter, g *convGoroutine, stack StackID) {
				c.add(g, Event{Op: OpWrite, Addr: 0x100, Size: 8, Stack: stack})
				c.txSwitch(g, "example.com/p.g", stack)
				c.add(g, Event{Op: OpRead, Addr: 0x100, Size: 8, Stack: stack})
				c.txSwitch(g, "", 0)
			},
			last: 3, count: 4, firstDepth: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConverter(Header{GOROOT: goroot}, nil, "")
			c.scan = newLocalScan(c.b.t.Stacks, goroot)
			stack := c.b.Stacks().Push(0, user)
			g := &convGoroutine{}
			c.newID(g, 0, 0)
			tt.steps(c, g, stack)
			if n := c.b.Len(); n != tt.count {
				t.Fatalf("%d events in the table, want %d", n, tt.count)
			}
			if !c.scan.isLast(tt.last, g.id) {
				t.Errorf("event %d is not goroutine %d's last for the scan (last %v)", tt.last, g.id, c.scan.last)
			}
			if got := c.scan.tree.count[g.id]; int(got) != tt.count {
				t.Errorf("the scan counted %d events of goroutine %d, want %d", got, g.id, tt.count)
			}
			if int(g.id) >= len(c.firstStack) || len(c.b.Stacks().Frames(c.firstStack[g.id])) != tt.firstDepth {
				t.Errorf("goroutine %d's first stack %v, want one of depth %d", g.id, c.firstStack, tt.firstDepth)
			}
		})
	}
}

// TestConverterRootAfterEnter feeds a converter, as merge does, the records
// of a goroutine no recorded go statement started whose first record is a
// function entry: its access must make the goroutine (visit's goroutine of
// the run of records, inlined from goID, is the one enter found, which has
// no id yet).
func TestConverterRootAfterEnter(t *testing.T) {
	const goroot = "/goroot"
	for _, gids := range [][]uint32{{7}, {7, 9}, {7, 9, 7}} {
		c := newConverter(Header{GOROOT: goroot}, nil, "")
		const pc = 0x1000
		c.syms[pc] = []Frame{{Func: "example.com/p.f", File: "/src/p/p.go", Line: 3}}
		for k, gid := range gids {
			c.enter(gid, pc)
			c.visit(&rawEvent{kind: rWrite, gid: gid, addr: 0x5000 + uint64(k)*8, size: 8, pc: pc})
		}
		if c.b.Len() != len(gids) {
			t.Fatalf("gids %v: %d events, want %d", gids, c.b.Len(), len(gids))
		}
		for i := range gids {
			e := c.b.Event(i)
			if e.G == 0 || int(e.G) > c.b.NumGoroutines() {
				t.Errorf("gids %v: event %d of goroutine %d, of %d made", gids, i, e.G, c.b.NumGoroutines())
			}
		}
		if _, err := c.b.Trace(); err != nil {
			t.Errorf("gids %v: %v", gids, err)
		}
	}
}
