// This file tests local_handoff.go: compactLocal leaves out the accesses
// of a heap life that go statements hand from goroutine to goroutine, and
// only accesses ordered by program order and go statements with every
// other access of their bytes (checked by brute force on random goroutine
// trees, against vector clocks of those edges alone).

package trace

import (
	"math/rand"
	"slices"
	"testing"
)

// hev is an event of a handoff test trace: goroutine, op, life (for
// accesses and releases) or child (for go), word within the life.
type hev struct {
	g    GoID
	op   Op
	x    int
	word uint64
}

// handoffTrace makes a trace of evs, each access and release at life x's
// word, each go naming goroutine x, with every goroutine's end last. Each
// access's Peer is its index, so that the tests can tell which were kept.
func handoffTrace(evs []hev) *Trace {
	ng := 0
	for _, h := range evs {
		ng = max(ng, int(h.g))
		if h.op == OpGo {
			ng = max(ng, h.x)
		}
	}
	tr := &Trace{Goroutines: make([]Goroutine, ng+1)}
	for g := range tr.Goroutines {
		tr.Goroutines[g].ID = GoID(g)
	}
	for i, h := range evs {
		e := Event{G: h.g, Op: h.op}
		switch h.op {
		case OpGo, OpStart:
			e.Peer = int32(h.x)
			if h.op == OpGo {
				tr.Goroutines[h.x].Parent = h.g
			}
		default:
			e.Addr = lifeBase + uint64(h.x)<<lifeShift + h.word*8
			if h.op.IsAccess() {
				e.Size, e.Peer = 8, int32(i)
			}
		}
		tr.Events = append(tr.Events, e)
	}
	for g := 1; g <= ng; g++ {
		tr.Events = append(tr.Events, Event{G: GoID(g), Op: OpEnd})
	}
	return tr
}

// keptAccesses compacts a copy of tr with handoffLives set to on and
// returns the indices (Peer) of the accesses it kept.
func keptAccesses(tr *Trace, on bool) map[int32]bool {
	was := handoffLives
	handoffLives = on
	defer func() { handoffLives = was }()
	c := cloneForCompaction(tr)
	compactLocal(c, nil, nil)
	kept := map[int32]bool{}
	for _, e := range c.Events {
		if e.Op.IsAccess() {
			kept[e.Peer] = true
		}
	}
	return kept
}

func TestHandoffLives(t *testing.T) {
	const r, w = OpRead, OpWrite
	for _, tc := range []struct {
		name string
		evs  []hev
		left []int // the accesses left out (by index in evs)
	}{
		{"parent then child", []hev{
			{1, w, 0, 0}, {1, r, 0, 0}, {1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {2, r, 0, 0}, {2, w, 0, 0},
		}, []int{0, 1, 4, 5}},
		{"parent touches it after the go", []hev{
			{1, w, 0, 0}, {1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {2, r, 0, 0}, {1, w, 0, 0},
		}, nil},
		{"parent touches it after the go, before the child", []hev{
			{1, w, 0, 0}, {1, OpGo, 2, 0}, {1, w, 0, 0}, {2, OpStart, 1, 0}, {2, r, 0, 0},
		}, nil},
		{"child started before the parent's last access", []hev{
			{1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {1, w, 0, 0}, {2, r, 0, 0}, {2, w, 0, 0},
		}, nil},
		{"a sibling, not a child", []hev{
			{1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {1, OpGo, 3, 0}, {3, OpStart, 1, 0},
			{2, w, 0, 0}, {3, r, 0, 0},
		}, nil},
		{"grandchild through a child started after the last access", []hev{
			{1, w, 0, 0}, {1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {2, OpGo, 3, 0}, {3, OpStart, 2, 0},
			{3, r, 0, 0}, {3, w, 0, 0},
		}, []int{0, 5, 6}},
		{"grandchild through a child started before the last access", []hev{
			{1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {1, w, 0, 0}, {2, OpGo, 3, 0}, {3, OpStart, 2, 0},
			{3, r, 0, 0},
		}, nil},
		{"a chain of three", []hev{
			{1, w, 0, 0}, {1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {2, w, 0, 0}, {2, OpGo, 3, 0}, {3, OpStart, 2, 0},
			{3, r, 0, 0},
		}, []int{0, 3, 6}},
		{"the first owner back after the chain", []hev{
			{1, w, 0, 0}, {1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {2, w, 0, 0}, {2, OpGo, 3, 0}, {3, OpStart, 2, 0},
			{3, r, 0, 0}, {2, r, 0, 0},
		}, nil},
		{"synchronisation on the life", []hev{
			{1, w, 0, 0}, {1, OpGo, 2, 0}, {2, OpStart, 1, 0}, {2, OpRelease, 0, 1}, {2, r, 0, 0},
		}, nil},
		{"a go statement after the child's first event", []hev{
			{2, OpRelease, 2, 0}, {1, w, 0, 0}, {1, OpGo, 2, 0}, {2, r, 0, 0},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := handoffTrace(tc.evs)
			kept, keptOff := keptAccesses(tr, true), keptAccesses(tr, false)
			var left, leftOff []int
			for i, h := range tc.evs {
				if h.op.IsAccess() && !kept[int32(i)] {
					left = append(left, i)
				}
				if h.op.IsAccess() && !keptOff[int32(i)] {
					leftOff = append(leftOff, i)
				}
			}
			if !slices.Equal(left, tc.left) {
				t.Errorf("left out %v, want %v", left, tc.left)
			}
			if len(leftOff) != 0 {
				t.Errorf("without handoffs: left out %v, want none (every life shared)", leftOff)
			}
		})
	}
}

// TestHandoffOrdered checks compactLocal on random goroutine trees whose
// goroutines pass lives to descendants (and sometimes touch them after):
// it leaves out everything it did without handoffs and more, and every
// access it leaves out is ordered, by program order and go statements
// alone, with every access of another goroutine to a common byte, and
// shares no byte with a synchronisation event.
func TestHandoffOrdered(t *testing.T) {
	more, refused := 0, 0
	for seed := int64(0); seed < 500; seed++ {
		r := rand.New(rand.NewSource(seed))
		tr := randomHandoffTrace(r)
		on, off := keptAccesses(tr, true), keptAccesses(tr, false)
		before := forkOrder(tr)
		for i := range tr.Events {
			e := &tr.Events[i]
			if !e.Op.IsAccess() {
				continue
			}
			if !off[int32(i)] && on[int32(i)] {
				t.Fatalf("seed %d: event %d left out without handoffs, kept with them", seed, i)
			}
			if on[int32(i)] {
				continue
			}
			if off[int32(i)] {
				more++
			}
			for j := range tr.Events {
				f := &tr.Events[j]
				if j == i || !e.Overlaps(f) && !(f.Size == 0 && e.Addr <= f.Addr && f.Addr < e.End()) {
					continue
				}
				if !f.Op.IsAccess() {
					t.Fatalf("seed %d: access %d (g%d) left out, but event %d (%v, g%d) synchronises on its memory", seed, i, e.G, j, f.Op, f.G)
				}
				if f.G != e.G && !before(i, j) && !before(j, i) {
					t.Fatalf("seed %d: access %d (g%d) left out, but access %d (g%d) of its memory is not ordered with it by go statements", seed, i, e.G, j, f.G)
				}
			}
		}
		// Count the traces with an access that go statements order
		// after another goroutine's yet the life stays shared: the
		// refusals the test must also see.
		for i := range tr.Events {
			if e := &tr.Events[i]; e.Op.IsAccess() && on[int32(i)] && off[int32(i)] {
				refused++
				break
			}
		}
	}
	if more == 0 || refused == 0 {
		t.Fatalf("handoffs left out %d more accesses, %d traces kept some: the test checks nothing", more, refused)
	}
	t.Logf("%d more accesses left out over the traces", more)
}

// forkOrder returns whether event i of tr happens before event j by
// program order and go statements alone (the first go naming a goroutine
// with no event yet, joined at its first event), by vector clocks.
func forkOrder(tr *Trace) func(i, j int) bool {
	ng := len(tr.Goroutines)
	cur := make([][]int, ng)
	goClk := make([][]int, ng)
	for g := range cur {
		cur[g] = make([]int, ng)
	}
	started := make([]bool, ng)
	clk := make([][]int, len(tr.Events))
	for i := range tr.Events {
		e := &tr.Events[i]
		g := e.G
		if !started[g] {
			started[g] = true
			if goClk[g] != nil {
				for k, v := range goClk[g] {
					cur[g][k] = max(cur[g][k], v)
				}
			}
		}
		cur[g][g]++
		clk[i] = slices.Clone(cur[g])
		if e.Op == OpGo && e.Peer > 0 && !started[e.Peer] && goClk[e.Peer] == nil {
			goClk[e.Peer] = slices.Clone(cur[g])
		}
	}
	return func(i, j int) bool {
		g := tr.Events[i].G
		return clk[i][g] <= clk[j][g]
	}
}

// randomHandoffTrace makes a trace of up to 6 goroutines, each started by
// a go statement of a running one, that access 3 lives: a life's holder
// mostly, now and then another goroutine; a holder that starts a
// goroutine passes it its lives half the time, and a life moves now and
// then to any descendant of its holder, started before or after the
// holder's last access. Some events release on a life.
func randomHandoffTrace(r *rand.Rand) *Trace {
	const ng, nl = 6, 3
	var evs []hev
	running := []GoID{1}
	parent := make([]GoID, ng+1)
	next := GoID(2)
	holder := []GoID{1, 1, 1}
	descends := func(a, b GoID) bool { // a is b or a descendant of b
		for ; a != 0; a = parent[a] {
			if a == b {
				return true
			}
		}
		return false
	}
	n := 20 + r.Intn(120)
	for range n {
		g := running[r.Intn(len(running))]
		l := r.Intn(nl)
		switch k := r.Intn(20); {
		case k < 2 && next <= ng:
			c := next
			next++
			parent[c] = g
			evs = append(evs, hev{g, OpGo, int(c), 0}, hev{c, OpStart, int(g), 0})
			running = append(running, c)
			for l := range holder {
				if holder[l] == g && r.Intn(2) == 0 {
					holder[l] = c
				}
			}
		case k == 2:
			var ds []GoID
			for _, d := range running {
				if descends(d, holder[l]) {
					ds = append(ds, d)
				}
			}
			holder[l] = ds[r.Intn(len(ds))]
		case k == 3 && r.Intn(8) == 0:
			evs = append(evs, hev{g, OpRelease, l, uint64(r.Intn(2))})
		default:
			if r.Intn(10) != 0 {
				g = holder[l]
			}
			op := OpRead
			if r.Intn(3) == 0 {
				op = OpWrite
			}
			evs = append(evs, hev{g, op, l, uint64(r.Intn(2))})
		}
	}
	return handoffTrace(evs)
}
