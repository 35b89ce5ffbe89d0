// This file tests the side log (local_side.go) against the event table
// alone: random runs of goroutines that touch heap lives (alone, after a
// go statement, or together), synchronise on them, start goroutines and
// end lives, fed to the converter with the side log and without it
// (settling or not), must give the same trace, event for event, and the
// same counts of accesses left out.

package trace

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// A sideStep is one step of a random run: what goroutine g does.
type sideStep struct {
	kind  sideKind
	g     int    // the goroutine (index in the run's goroutines)
	child int    // sideGo: the goroutine started
	life  int    // the life touched, synchronised on or ended (1-based)
	off   uint64 // the offset in the life
	size  uint32
	write bool
	stack int    // index in the run's stacks
	value uint64 // sideStore: the value stored
}

type sideKind int

const (
	sideAccess sideKind = iota // a plain access of a life
	sideGlobal                 // a plain access outside the lives
	sideSend                   // a send on the life's first word
	sideRecv                   // a receive there (its Peer: the latest send)
	sideStore                  // an atomic store there, with a value
	sideGo                     // g starts child
	sideEnd                    // g ends
	sideRetire                 // the life's allocation ends
)

// randomSideRun makes a random run of n steps over lives lives.
func randomSideRun(rng *rand.Rand, n, lives int) []sideStep {
	var steps []sideStep
	running := []int{0} // goroutines started and not ended
	next := 1           // the next goroutine's index
	retired := make([]bool, lives+1)
	// Each life is mostly one goroutine's, so that lives stay owned,
	// are handed over, or become shared late.
	owner := make([]int, lives+1)
	for tries := 0; len(steps) < n && tries < 50*n; tries++ { // (lives may all end first)
		g := running[rng.Intn(len(running))]
		life := 1 + rng.Intn(lives)
		if retired[life] {
			continue
		}
		if owner[life] == 0 || rng.Intn(8) == 0 {
			owner[life] = g + 1
		}
		st := sideStep{g: g, life: life, stack: rng.Intn(4)}
		switch r := rng.Intn(100); {
		case r < 70:
			if owner[life] != g+1 && rng.Intn(3) != 0 {
				continue // touched mostly by its owner
			}
			st.kind, st.off, st.size, st.write = sideAccess, uint64(rng.Intn(6))*4, uint32(1+rng.Intn(8)), rng.Intn(2) == 0
			switch rng.Intn(32) {
			case 0: // a size a record of the log holds, or one it does not
				st.size = uint32(250 + rng.Intn(10))
			case 1: // an offset a record holds, or one it does not
				st.off = 1<<24 - 4 + uint64(rng.Intn(2))*4
			}
		case r < 74:
			st.kind, st.off, st.size, st.write = sideGlobal, uint64(rng.Intn(4))*8, 8, rng.Intn(2) == 0
		case r < 76:
			st.kind = sideSend
		case r < 78:
			st.kind = sideRecv
		case r < 79:
			st.kind, st.value = sideStore, uint64(1+rng.Intn(5))
		case r < 88:
			if next > 40 {
				continue
			}
			st.kind, st.child = sideGo, next
			running = append(running, next)
			next++
			// The child takes over some of the parent's lives.
			for l := 1; l <= lives; l++ {
				if owner[l] == g+1 && rng.Intn(2) == 0 {
					owner[l] = st.child + 1
				}
			}
		case r < 91:
			if len(running) == 1 {
				continue
			}
			st.kind = sideEnd
			for k, h := range running {
				if h == g {
					running = append(running[:k], running[k+1:]...)
					break
				}
			}
		default:
			st.kind = sideRetire
			retired[life] = true
		}
		steps = append(steps, st)
	}
	return steps
}

// sideConfig is how sideConvert converts: with the side log or not, and
// how often it settles or compacts the log.
type sideConfig struct {
	side      bool
	settle    int    // settleEvery for the table (side off); negative: never
	compactAt uint32 // the side log's compactAt (side on)
	siteMin   uint32 // and its siteMin
	// The log's stop (local_side_stop.go): the events converted at which
	// it is first judged (0: sideJudgeFirst) and the least share it must
	// hold (sideShare).
	judgeAt, share int
	// access: the accesses of lives come as records, through
	// converter.access (and takeAccess), not as events.
	access bool
}

// sideConvert feeds run to a converter as its records would, over lives
// lives, and returns the trace, how many events the side log put back
// (at the end or when it stopped), how many lives it did not hold
// (sideLog.hold), and whether it stopped (local_side_stop.go).
func sideConvert(t *testing.T, run []sideStep, lives int, cfg sideConfig) (*Trace, int, int, bool) {
	const goroot = "/goroot"
	c := newConverter(Header{GOROOT: goroot}, nil, "")
	c.lives = uint64(lives)
	c.scan, c.settleStep = newLocalScan(c.b.t.Stacks, goroot), cfg.settle
	c.settleAt = max(cfg.settle, 0)
	if cfg.side {
		c.startSide()
		c.side.compactAt, c.side.siteMin = cfg.compactAt, cfg.siteMin
		if cfg.judgeAt > 0 {
			c.sideJudge, c.sideShare = cfg.judgeAt, cfg.share
		}
	}
	var stacks []StackID
	var pcs []uint64 // per stack: a pc of its frame
	for k, f := range []Frame{
		{Func: "example.com/p.f", File: "/src/p/p.go", Line: 3},
		{Func: "example.com/p.g", File: "/src/p/p.go", Line: 9},
		{Func: "runtime.mallocgc", File: goroot + "/src/runtime/malloc.go", Line: 1},
		{Func: "sync.(*Mutex).Lock", File: goroot + "/src/sync/mutex.go", Line: 2},
	} {
		stacks = append(stacks, c.b.Stacks().Push(0, f))
		pcs = append(pcs, 0x1000+uint64(k))
		c.syms[pcs[k]] = []Frame{f}
	}
	c.lifeOf = make([]uint32, lives+1)
	for l := 1; l <= lives; l++ {
		c.b.lives.add(heapLife{addr: 0x10000 * uint64(l), size: 64})
		c.lifeOf[l] = uint32(l) // allocation l is life l
	}
	gs := map[int]*convGoroutine{}
	gs[0] = &convGoroutine{}
	c.newID(gs[0], 0, 0)
	lifeAddr := func(l int, off uint64) uint64 { return lifeBase + uint64(l)<<lifeShift + off }
	for _, st := range run {
		g := gs[st.g]
		stack := stacks[st.stack]
		switch st.kind {
		case sideAccess:
			if cfg.access {
				base := 0x10000 * uint64(st.life)
				r := rawEvent{kind: rRead, addr: base + st.off, size: uint64(st.size), pc: pcs[st.stack], aid: uint32(st.life), astart: base, aend: base + 64}
				if st.write {
					r.kind = rWrite
				}
				c.access(g, &r, 0)
				continue
			}
			op := OpRead
			if st.write {
				op = OpWrite
			}
			c.add(g, Event{Op: op, Addr: lifeAddr(st.life, st.off), Size: st.size, Obj: lifeObj | ObjID(st.life-1), Stack: stack})
		case sideGlobal:
			op := OpRead
			if st.write {
				op = OpWrite
			}
			c.add(g, Event{Op: op, Addr: 0x5000 + st.off, Size: st.size, Stack: stack})
		case sideSend:
			addr := lifeAddr(st.life, 0)
			i := c.add(g, Event{Op: OpSend, Sync: SyncRelease, Addr: addr, Obj: c.syncObj(ObjChan, addr), Stack: stack})
			c.setLastRelease(addr, i)
		case sideRecv:
			addr := lifeAddr(st.life, 0)
			e := Event{Op: OpRecv, Sync: SyncAcquire, Addr: addr, Obj: c.syncObj(ObjChan, addr), Stack: stack, Peer: -1}
			if i, ok := c.lastRelease(addr); ok && c.b.Event(i).Op == OpSend {
				e.Peer = int32(i)
			}
			c.add(g, e)
		case sideStore:
			addr := lifeAddr(st.life, 8)
			i := c.addValue(g, Event{Op: OpAtomicStore, Sync: SyncRelease, Addr: addr, Size: 8, Obj: lifeObj | ObjID(st.life-1), Stack: stack}, st.value, 0)
			c.setLastRelease(addr, i)
		case sideGo:
			child := &convGoroutine{}
			gs[st.child] = child
			c.newID(child, g.id, stack)
			c.add(g, Event{Op: OpGo, Peer: int32(child.id), Stack: stack})
			c.add(child, Event{Op: OpStart, Peer: int32(g.id)})
		case sideEnd:
			c.add(g, Event{Op: OpEnd, Stack: stack})
			g.ended = true
		case sideRetire:
			c.retire(uint32(st.life))
			c.settleDue()
		}
	}
	notHeld := 0
	if c.side != nil {
		for _, s := range c.side.site {
			if s == sideNotHeld {
				notHeld++
			}
		}
	}
	c.finish()
	c.compact(nil, c.b.Len())
	tr, err := c.b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr, c.putBack, notHeld, c.sideStops > 0
}

// TestSideLogSameTrace converts random runs with the side log and
// without it, settling often or never, and compacting the log often or
// never: the traces must be the same.
func TestSideLogSameTrace(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	configs := []sideConfig{
		{side: false, settle: -1},
		{side: false, settle: 16},
		{side: true, compactAt: 1 << 30, siteMin: 1 << 30},
		{side: true, compactAt: 4, siteMin: 1 << 30},
		{side: true, compactAt: 4, siteMin: 4},
		// The same, and stopped, with the accesses as records.
		{side: true, compactAt: 1 << 30, siteMin: 1 << 30, access: true},
		{side: true, compactAt: 4, siteMin: 4, access: true},
		{side: true, compactAt: 4, siteMin: 4, judgeAt: 20, share: 2, access: true},
		// The log stopped at its first judgement (share 0), or when it
		// holds less than half of the events, judged from the 20th on.
		{side: true, compactAt: 1 << 30, siteMin: 1 << 30, judgeAt: 20, share: 0},
		{side: true, compactAt: 4, siteMin: 4, judgeAt: 20, share: 2},
	}
	putBack, kept, left, notHeld := 0, 0, 0, 0
	stopped := map[int]int{} // config -> runs in which the log stopped
	for r := range 300 {
		lives := 2 + rng.Intn(12)
		run := randomSideRun(rng, 50+rng.Intn(400), lives)
		want, _, _, _ := sideConvert(t, run, lives, configs[0])
		kept += len(want.Events)
		left += want.LocalAccesses()
		for k, cfg := range configs[1:] {
			got, n, nh, stop := sideConvert(t, run, lives, cfg)
			putBack, notHeld = putBack+n, notHeld+nh
			if stop {
				stopped[k+1]++
			}
			if d := sideDiff(want, got); d != "" {
				t.Fatalf("run %d (%d steps, %d lives), %+v against the table alone: %s", r, len(run), lives, cfg, d)
			}
		}
	}
	// The runs must exercise what the log does: events held back and
	// put back (lives shared late, last events), events left out, and
	// lives not held.
	if putBack == 0 || left == 0 || kept == 0 || notHeld == 0 {
		t.Errorf("the runs put back %d events, kept %d, left out %d, did not hold %d lives: the test wants all four", putBack, kept, left, notHeld)
	}
	// The log stops in every run judged with share 0, and in some of
	// those judged with share 2, not all.
	if s, n := stopped[len(configs)-2], stopped[len(configs)-1]; s < 250 || n == 0 || n == 300 {
		t.Errorf("the log stopped in %d runs (share 0) and %d (share 2) of 300: the test wants nearly all, then some", s, n)
	}
}

// sideDiff says how two traces differ, or "".
func sideDiff(want, got *Trace) string {
	for i := range min(len(want.Events), len(got.Events)) {
		if want.Events[i] != got.Events[i] {
			return fmt.Sprintf("event %d: got %+v, want %+v", i, got.Events[i], want.Events[i])
		}
	}
	switch {
	case len(want.Events) != len(got.Events):
		return fmt.Sprintf("%d events, want %d", len(got.Events), len(want.Events))
	case !reflect.DeepEqual(want.Values, got.Values):
		return fmt.Sprintf("values %v, want %v", got.Values, want.Values)
	case !reflect.DeepEqual(want.Local, got.Local):
		return fmt.Sprintf("left out %v, want %v", got.Local, want.Local)
	case !reflect.DeepEqual(want.Objects, got.Objects):
		return fmt.Sprintf("objects %v, want %v", got.Objects, want.Objects)
	case !reflect.DeepEqual(want.Goroutines, got.Goroutines):
		return fmt.Sprintf("goroutines %+v, want %+v", got.Goroutines, want.Goroutines)
	}
	return ""
}

// TestSideLastKey checks that lastKey orders table events and records of
// the log as the trace does: a record goes before the table event of its
// pos, after those before it, and records of one pos in their order.
func TestSideLastKey(t *testing.T) {
	c := &converter{side: newSideLog()}
	// The trace: rec 0, T0, rec 1, rec 2, T1, T2, rec 3, T3, T4, rec 4.
	for _, pos := range []int{0, 1, 1, 3, 5} {
		if !c.side.hold(1, 1) {
			t.Fatal("the log does not hold life 1")
		}
		e := Event{Op: OpRead, Addr: lifeBase + 1<<lifeShift, Size: 8, Obj: lifeObj}
		c.side.add(&e, 1, pos)
	}
	rec := func(i int32) int32 { return -2 - i }
	order := []int32{rec(0), 0, rec(1), rec(2), 1, 2, rec(3), 3, 4, rec(4)}
	for k := 1; k < len(order); k++ {
		if a, b := c.lastKey(order[k-1]), c.lastKey(order[k]); a >= b {
			t.Errorf("lastKey(%d) = %#x, not before lastKey(%d) = %#x", order[k-1], a, order[k], b)
		}
	}
}
