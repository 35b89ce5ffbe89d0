// This file implements the readers of a history over chains of goroutines
// (clock_chain.go) that the causal cone's closures need (solve_plan.go's
// closeInto and settle): a clock's components above a cut, the rises at a
// release-acquire event, and the first position of a goroutine whose clock
// knows more of another than a barrier. Each goes through the one
// translation of a chain's value into goroutines' counts (chainMap.count
// and value, by way of riseLog's each and riseCursor's valueAt), so that
// the cone's pass may count per chain as must-happen-before's and SHB's
// do: on issue 31's ring the cone's clocks learnt a component per
// short-lived goroutine.

package predict

// eachAboveChains is eachAbove for a history over chains: every goroutine
// k of which goroutine g's clock after its first p events knows more
// than floor[k] events, translated as each translates. Values up to
// the events of a chain's first goroutine x count x's events alone (its
// base is 0), so a component whose last rise is at most floor[x] (and
// x's events) is passed over without a search, as eachAbove passes over
// a component; otherwise the chain's members are each compared with
// their floor.
func (h *riseLog) eachAboveChains(g, p int32, floor []int32, f func(k, v int32)) {
	ch := h.ch
	own := false
	h.lists(g, func(x int32, r riseList) {
		switch {
		case x == ch.of[g]:
			own = true
			ch.eachAboveOf(x, ch.value(g, p, g, r.valueAt(p)), g, floor, f)
		case r.last() <= min(floor[x], ch.n[x]):
		default:
			if v := r.valueAt(p); v > 0 {
				ch.eachAboveOf(x, v, g, floor, f)
			}
		}
	})
	if x := ch.of[g]; !own && x != g {
		ch.eachAboveOf(x, ch.value(g, p, g, 0), g, floor, f)
	}
}

// eachAboveOf calls f(h, n) for every goroutine h of chain x but skip of
// which a clock whose component for x is v knows n > floor[h] events:
// eachOf with a floor, in one loop (a closure's clocks know thousands of
// goroutines).
func (m *chainMap) eachAboveOf(x, v, skip int32, floor []int32, f func(h, n int32)) {
	for h := x; h >= 0 && m.base[h] < v; h = m.next[h] {
		if h == skip {
			continue
		}
		if n := m.count(v, h); n > floor[h] {
			f(h, n)
		}
	}
}

// lists calls f with every component x of goroutine g's clock and its
// rises, in order, walking the history's spans once.
func (h *riseLog) lists(g int32, f func(x int32, r riseList)) {
	ks := h.keysOf(g)
	if h.wide[g] != nil {
		h.eachList(g, func(j int, r riseList) { f(ks.at(j), r) })
		return
	}
	for j := range ks.len() {
		f(ks.at(j), h.list(g, j))
	}
}

// eachKnown calls f(k, n) for every goroutine k of which a clock whose
// component x is v knows n > 0 events: x itself without chains; with
// chains, the members of chain x (chainMap.eachOf). What a closure reads
// of the rises a pass kept at a release-acquire event (eventRises), which
// are components.
func (h *riseLog) eachKnown(x, v int32, f func(k, n int32)) {
	if !h.chained() {
		f(x, v)
		return
	}
	h.ch.eachOf(x, v, -1, f)
}

// knowsList is how many events of goroutine k goroutine g's clock knows,
// by position of g: the rises of component k, or with chains those of
// k's chain read through riseCursor's translation.
type knowsList struct {
	r riseList
	// With chains: the clock's goroutine g, k, and g's events.
	ch      *chainMap
	g, k, n int32
}

// knowsRises returns how many events of goroutine k goroutine g's clock
// knows, by position of g.
func (h *riseLog) knowsRises(g, k int32) knowsList {
	if !h.chained() {
		return knowsList{r: h.componentRises(g, k)}
	}
	return knowsList{r: h.componentRises(g, h.ch.of[k]), ch: h.ch, g: g, k: k, n: h.ch.n[g]}
}

// valueAt returns how many events of k the clock knows after g's first p
// events.
func (x knowsList) valueAt(p int32) int32 {
	if x.ch == nil {
		return x.r.valueAt(p)
	}
	c := riseCursor{r: x.r, ch: x.ch, g: x.g, k: x.k}
	return c.valueAt(p)
}

// firstAbove returns the first position of g whose clock knows more than
// v events of k, or -1. What a clock knows only grows with its
// position, translated too (a chain's value past one of its goroutines
// counts what its successor knew of it, which is all that any clock but
// its own knows: clock_chain.go), so the position is found by binary
// search over g's positions.
func (x knowsList) firstAbove(v int32) int32 {
	if x.ch == nil {
		return x.r.firstAbove(v)
	}
	if x.ch.of[x.k] != x.ch.of[x.g] {
		// The count changes only at the component's rises: the first
		// whose translation is above v.
		n := x.r.len()
		q := 0
		for hi := n; q < hi; {
			m := int(uint(q+hi) >> 1)
			if r := x.r.at(m); x.ch.count(x.ch.value(x.g, r.pos, x.k, r.v), x.k) > v {
				hi = m
			} else {
				q = m + 1
			}
		}
		if q == n {
			return -1
		}
		return x.r.at(q).pos
	}
	lo, hi := int32(0), x.n+1 // the answer is in [lo, hi]; hi: none
	for lo < hi {
		m := lo + (hi-lo)/2
		if x.valueAt(m) > v {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo > x.n {
		return -1
	}
	return lo
}

// eachKnowsMarked is eachRisesMarked for a history over chains: f is
// called for the members k with mark[k] of every chain goroutine g's
// clock has a component of, and of g's own chain, k's counts translated
// (knowsList). A member that the clock never knows of reads 0 throughout.
func (h *riseLog) eachKnowsMarked(g int32, mark []bool, f func(k int32, rs knowsList)) {
	ch := h.ch
	visit := func(x int32, r riseList) {
		for k := x; k >= 0; k = ch.next[k] {
			if mark[k] {
				f(k, knowsList{r: r, ch: ch, g: g, k: k, n: ch.n[g]})
			}
		}
	}
	own := false
	h.lists(g, func(x int32, r riseList) {
		own = own || x == ch.of[g]
		visit(x, r)
	})
	if !own {
		visit(ch.of[g], riseList{})
	}
}

// last returns how many events of k the clock knows after all g's
// events: the most it ever knows.
func (x knowsList) last() int32 {
	if x.ch == nil {
		return x.r.last()
	}
	return x.valueAt(x.n)
}
