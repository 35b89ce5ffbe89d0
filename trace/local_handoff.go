// This file implements handed-over lives: the heap lives that compactLocal
// (local.go) takes as local although two or more goroutines touched them,
// because each goroutine that took a life over was started, directly or
// through its ancestors, by a go statement of the one before it that came
// after that one's last event on the life.
//
// A test that makes a value and starts a goroutine that alone uses it from
// then on hands the value over by the go statement: x/sync's syncmap test
// seeds a rand.Rand per goroutine (rand.New, in the test goroutine) and
// starts the goroutine that draws from it. Before, such a life was shared
// (two goroutines touched it) and every access kept: the draws were nearly
// all of that trace's events, and most of seer predict's time
// (bench/RESULTS.md, "syncmap: lives handed over by a go statement").
//
// Soundness. Let a life's events be those of g1, then g2, ..., then gk,
// each g(j+1) a descendant of gj through a child c that gj's go statement
// created after gj's last event on the life, every event on the life an
// access. Every analysis takes a go statement as happening before the
// whole goroutine it starts (the first OpGo naming a goroutine that has
// no event yet, joined at the goroutine's first event: clock_pass.go's
// goClk, ctp.go's goEv, and the witness checker's schedules, which never
// run a goroutine before its go statement), and program order within each
// goroutine; so in the run and in every schedule a witness can give, each
// event of gj on the life comes before each of g(j+1)'s. The life's
// accesses are then totally ordered by must-happen-before alone, as a
// local life's are by program order: no two of them race, none can come
// between two accesses of a transaction of another goroutine (they are
// all before or all after it), and each read sees the same write in every
// schedule, or the initial value in every one. Leaving them out changes
// no finding, as for local memory (local.go's file comment). Any other
// pattern (an earlier owner touching the life again, a goroutine not
// started that way, a synchronisation event on the life, a go statement
// a goroutine's own events came before) makes the life shared, as before.
// TestHandoffOrdered checks, on random traces, that every access left out
// this way is ordered by program order and go statements with every
// conflicting access of the trace.

package trace

// handoffLives is false to take a life touched by two goroutines as shared
// whatever the order, for the tests that compare the two.
var handoffLives = true

// handoffDepth bounds the ancestors handedTo walks from a goroutine to the
// life's owner: deeper, the life is taken as shared.
const handoffDepth = 64

// goTree is what handedTo needs of the goroutines seen so far: how many
// events each has had, and the goroutine whose go statement started it,
// with that goroutine's count at the go statement.
type goTree struct {
	count  []uint32 // per goroutine: its events so far
	parent []uint32 // per goroutine: the one whose go statement started it before any of its events, or 0
	goAt   []uint32 // per goroutine: its parent's count at that go statement
}

// grow makes room for goroutine g.
func (t *goTree) grow(g int) {
	for len(t.count) <= g {
		n := len(t.count) + 64
		t.count = append(t.count, make([]uint32, n)...)
		t.parent = append(t.parent, make([]uint32, n)...)
		t.goAt = append(t.goAt, make([]uint32, n)...)
	}
}

// note counts event e of goroutine g and returns g's count after it.
func (t *goTree) note(g int, e *Event) uint32 {
	if len(t.count) <= g {
		t.grow(g)
	}
	t.count[g]++
	n := t.count[g]
	if e.Op == OpGo && e.Peer > 0 {
		c := int(e.Peer)
		t.grow(c)
		// Only the first go statement naming c, before c's first event,
		// orders c's events after it (clock_pass.go's goClk).
		if t.count[c] == 0 && t.parent[c] == 0 && c != g {
			t.parent[c], t.goAt[c] = uint32(g), n
		}
	}
	return n
}

// handedTo reports whether goroutine to's every event comes after from's
// event numbered last (its count then) by go statements: to is a
// descendant of from through a child that from started after that event.
func (t *goTree) handedTo(from, to, last uint32) bool {
	a := to
	for range handoffDepth {
		if int(a) >= len(t.parent) {
			return false
		}
		p := t.parent[a]
		if p == 0 {
			return false
		}
		if p == from {
			return t.goAt[a] > last
		}
		a = p
	}
	return false
}
