// This file implements vector clocks over chains of goroutines instead of
// goroutines (issue 31): a vector clock is exact over any cover of the
// events by chains that are each totally ordered by the relation it
// computes (Mattern's clocks over a chain decomposition; the chain view
// of Mathur, Pavlogiannis, Tunç and Viswanathan, "A Tree Clock Data
// Structure for Causal Orderings in Concurrent Executions", ASPLOS 2022,
// §2). Go's race detector reuses a finished goroutine's slot for a new
// one; that is sound for a pass here only when the finished goroutine is
// ordered before the new one's first event, so a pass (clock_pass.go)
// decides its chains as it goes: a goroutine B that starts continues the
// chain of a goroutine A that has ended when the clock of B's go
// statement knows every event of A that anyone can know. Its events are
// then the chain's next ones, and a clock holds one component for the
// whole chain: on issue 31's ring a worker's clock learned a component
// per short-lived child (fifty thousand), and now learns one for all its
// children.
//
// "Every event anyone can know": a clock other than A's learns of A's
// events only from what A publishes (a release of any kind, a go
// statement, a write whose clock a read joins) or from a join (OpJoin)
// that waits for A. Without a join, no clock but A's ever knows more of
// A than its last publishing event (lastPub): A's exit, and what A did
// after its last release (pond's workers return after a WaitGroup's Done
// and an unlock), need not be known for B to continue the chain. A clock
// that knows some of B's events then knows exactly A's events up to that
// one, in both views: the count known (chainMap.count) is exact, though
// the chain is not totally ordered by the relation.
//
// What a pass answers about goroutine h's k-th event goes through one
// translation (chainMap.count, riseLog's get, each and cursor in
// clock_rises.go, and the cone's closures' readers built on them in
// clock_chain_cone.go): a component value v of h's chain counts h's events
// as v minus h's base, bounded by h's events, or as what its successor
// started knowing of h once v is past them. Goroutine ids stay what
// every other part of seer names; only a pass's components are chains.
// The causal cone's pass counts per chain too: its relation has the
// read-from of the reads a witness keeps, and a write such a read joins
// publishes (pass.publishes), so a goroutine continues a chain there only
// when its go statement knows every write of the ended one that a kept
// read of another goroutine joins. The differential test is
// clock_chain_test.go.

package predict

import "github.com/seer-tools/seer/trace"

// chainCands is how many chains a goroutine remembers having acquired
// from, for its children to continue (chainMap.start).
const chainCands = 4

// chainFree is how many of the chains whose last goroutine ended most
// recently a start looks at besides its parent's (chainMap.free).
const chainFree = 256

// useChains turns chains on for the passes that take them; tests turn it
// off to compare. chainsUnchecked, for tests only, lets a goroutine
// continue a chain without the ordering check, and chainsSilentWrites
// takes a write whose clock a read joins for one that publishes nothing
// (the cone's and SHB's read-from): both unsound, and the differential
// test must see them.
var (
	useChains          = true
	chainsUnchecked    = false
	chainsSilentWrites = false
)

// chainMap is a pass's chains: per goroutine, its chain and its place
// there. Goroutine g's first event is the chain's base[g]+1-th.
type chainMap struct {
	of    []int32 // per goroutine: its chain (a goroutine id, the chain's first)
	base  []int32 // per goroutine: the chain's events before its first
	n     []int32 // per goroutine: its events
	known []int32 // per goroutine: of its events, those that its successor on the chain starts knowing (n without one)
	next  []int32 // per goroutine: its successor on the chain, or -1
	// While the pass runs: the last goroutine of each chain, the last
	// event of each goroutine, the chains each goroutine acquired from
	// lately (cand, round robin at candAt), and the goroutines a join
	// waits for.
	tail   []int32
	last   []int32
	cand   [][chainCands]int32
	candAt []uint8
	joined bitset
	// free: the chains whose last goroutine has ended, in the order they
	// ended, that no goroutine continues yet: on pond, the goroutine that
	// starts a worker learns of one that ended before it through the
	// pool's mutex, mostly from a third goroutine's release, not its own.
	free []int32
	// lastPub: per goroutine, the position of its last event that
	// publishes its clock in the pass (pass.publishes); set by the pass.
	lastPub []int32
	// handoffs counts the goroutines that continue a chain.
	handoffs int
}

// newChainMap returns chains of one goroutine each, for a pass over c.
func newChainMap(c *ctp) *chainMap {
	ng := len(c.byG)
	m := &chainMap{of: make([]int32, ng), base: make([]int32, ng), n: make([]int32, ng), known: make([]int32, ng),
		next: make([]int32, ng), tail: make([]int32, ng), last: make([]int32, ng), cand: make([][chainCands]int32, ng),
		candAt: make([]uint8, ng), joined: newBitset(ng)}
	for g, evs := range c.byG {
		m.of[g], m.tail[g], m.next[g] = int32(g), int32(g), -1
		m.n[g], m.known[g] = int32(len(evs)), int32(len(evs))
		m.last[g] = -1
		if len(evs) > 0 {
			m.last[g] = evs[len(evs)-1]
		}
		for k := range m.cand[g] {
			m.cand[g][k] = -1
		}
	}
	for i := range c.ev {
		if e := &c.ev[i]; e.Op == trace.OpJoin && e.Peer > 0 && int(e.Peer) < ng {
			m.joined.set(e.Peer)
		}
	}
	return m
}

// chainOf returns goroutine g's chain: g itself without chains (m nil).
func (m *chainMap) chainOf(g int32) int32 {
	if m == nil {
		return g
	}
	return m.of[g]
}

// ep returns the component entry of goroutine g's event at position p.
func (m *chainMap) ep(g, p int32) centry {
	if m == nil {
		return centry{g, p}
	}
	return centry{m.of[g], m.base[g] + p}
}

// count returns how many events of goroutine k a clock knows whose
// component for k's chain is v: none below k's base, those up to v within
// k's events, and past them what k's successor started knowing of k.
func (m *chainMap) count(v, k int32) int32 {
	if m == nil {
		return v
	}
	b := m.base[k]
	switch {
	case v <= b:
		return 0
	case v <= b+m.n[k]:
		return v - b
	default:
		return m.known[k]
	}
}

// value returns the component of k's chain that goroutine g's clock after
// its first p events holds, given stored, what its history holds: a
// clock does not store its own chain's component, which is g's own
// events past its base when k is on g's chain. Before g's first event
// (p 0) it is what g started with: the chain's value at g's base would
// say that the last event of its predecessor is known, which only that
// one knows.
func (m *chainMap) value(g, p, k, stored int32) int32 {
	if m != nil && p > 0 && m.of[k] == m.of[g] {
		return max(stored, m.base[g]+p)
	}
	return stored
}

// noteAcquired remembers that goroutine g acquired epochs eps: the chains
// of goroutines that may end before g starts another, which that one
// could continue.
func (m *chainMap) noteAcquired(g int32, eps []centry) {
	if m == nil {
		return
	}
	cs := &m.cand[g]
	for _, e := range eps {
		if e.g == m.of[g] {
			continue
		}
		dup := false
		for _, x := range cs {
			if x == e.g {
				dup = true
				break
			}
		}
		if !dup {
			cs[m.candAt[g]%chainCands] = e.g
			m.candAt[g]++
		}
	}
}

// need returns how many of goroutine a's events a clock must know for a
// goroutine it starts to continue a's chain: those up to the last that
// publishes its clock, unless a join waits for a (which learns them all).
func (m *chainMap) need(a int32) int32 {
	if m.joined.has(a) {
		return m.n[a]
	}
	return m.lastPub[a]
}

// ended notes that goroutine g's last event has been replayed: its
// chain is free for a goroutine that starts knowing it (start).
func (m *chainMap) ended(g int32) {
	if m == nil {
		return
	}
	m.free = append(m.free, m.of[g])
}

// start decides the chain of goroutine b at its first event i, whose go
// statement's clock is gc (in chain components), made by goroutine
// parent: b continues a chain that parent acquired from lately, or one
// that was freed lately, whose last goroutine has ended and whose events
// gc knows (need), else keeps its own.
func (m *chainMap) start(b, parent int32, gc vclock, i int32) {
	if m == nil {
		return
	}
	for k, x := range m.cand[parent] {
		if m.take(b, x, gc, i) {
			m.cand[parent][k] = -1
			return
		}
	}
	for k := len(m.free) - 1; k >= 0 && k >= len(m.free)-chainFree; k-- { // the most recent first
		if m.take(b, m.free[k], gc, i) {
			return
		}
	}
}

// take makes goroutine b, at its first event i, continue chain x if
// its last goroutine has ended and gc, the clock b starts with, knows
// what it needs of it.
func (m *chainMap) take(b, x int32, gc vclock, i int32) bool {
	if x < 0 {
		return false
	}
	a := m.tail[x]
	if a == b || m.last[a] >= i {
		return false // not ended
	}
	need := m.need(a)
	if !chainsUnchecked && gc.get(x) < m.base[a]+need {
		return false
	}
	m.of[b], m.base[b] = x, m.base[a]+m.n[a]
	m.known[a], m.next[a], m.tail[x] = need, b, b
	m.handoffs++
	// No longer free: from the most recent, where a start looks.
	for k := len(m.free) - 1; k >= 0; k-- {
		if m.free[k] == x {
			m.free = append(m.free[:k], m.free[k+1:]...)
			break
		}
	}
	return true
}

// members calls f for the goroutines of chain x in order, while it
// returns true.
func (m *chainMap) members(x int32, f func(h int32) bool) {
	for h := x; h >= 0; h = m.next[h] {
		if !f(h) {
			return
		}
	}
}

// eachOf calls f(h, n) for every goroutine h of chain x but skip that a
// clock whose component for x is v knows n > 0 events of.
func (m *chainMap) eachOf(x, v, skip int32, f func(h, n int32)) {
	m.members(x, func(h int32) bool {
		if m.base[h] >= v {
			return false
		}
		if h != skip {
			if n := m.count(v, h); n > 0 {
				f(h, n)
			}
		}
		return true
	})
}
